import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import {
  audio,
  error,
  image,
  json,
  resource,
  resourceLink,
  text,
  ToolError,
} from "./result.ts";

Deno.test("text() is a success result with exactly one text block", () => {
  assert.deepEqual(text("Hello, Ada!"), {
    content: [{ type: "text", text: "Hello, Ada!" }],
  });
  assert.deepEqual(text(""), { content: [{ type: "text", text: "" }] });
  assert.equal("isError" in text("x"), false);
});

Deno.test("json() carries the value as pretty text and as structuredContent", async (t) => {
  await t.step("a plain object", () => {
    const value = { count: 3, tags: ["a", "b"], nested: { ok: true } };
    assert.deepEqual(json(value), {
      content: [{ type: "text", text: JSON.stringify(value, null, 2) }],
      structuredContent: { count: 3, tags: ["a", "b"], nested: { ok: true } },
    });
  });

  await t.step("the text parses back to the structured value", () => {
    const result = json({ name: "Ada", score: 1.5, none: null });
    const block = result.content[0];
    assert.equal(block.type, "text");
    assert.deepEqual(
      JSON.parse((block as { text: string }).text),
      result.structuredContent,
    );
    assert.equal("isError" in result, false);
  });

  await t.step("an empty object is allowed", () => {
    assert.deepEqual(json({}), {
      content: [{ type: "text", text: "{}" }],
      structuredContent: {},
    });
  });
});

Deno.test("json() refuses a value that is not a plain object with a TypeError naming what came", async (t) => {
  const cases: [string, unknown, string][] = [
    ["an array", [1, 2], "array"],
    ["null", null, "null"],
    ["a string", "hi", "string"],
    ["a number", 42, "number"],
    ["a boolean", true, "boolean"],
    ["undefined", undefined, "undefined"],
  ];
  for (const [label, value, type] of cases) {
    await t.step(label, () => {
      assert.throws(
        () => json(value as Record<string, unknown>),
        (err: unknown) => {
          assert.ok(err instanceof TypeError);
          assert.equal(
            err.message,
            `Cannot build a JSON result: expected a plain object, got ${type}`,
          );
          return true;
        },
      );
    });
  }
});

Deno.test("error() is a domain error result with isError: true", () => {
  assert.deepEqual(error("not found: notes/todo.md"), {
    content: [{ type: "text", text: "not found: notes/todo.md" }],
    isError: true,
  });
});

Deno.test("image() and audio() encode bytes as base64 with the MIME type", async (t) => {
  await t.step("small image bytes", () => {
    assert.deepEqual(image(new Uint8Array([137, 80, 78, 71]), "image/png"), {
      content: [{ type: "image", data: "iVBORw==", mimeType: "image/png" }],
    });
  });

  await t.step("small audio bytes", () => {
    assert.deepEqual(audio(new TextEncoder().encode("RIFF"), "audio/wav"), {
      content: [{ type: "audio", data: "UklGRg==", mimeType: "audio/wav" }],
    });
  });

  await t.step("empty bytes give empty data", () => {
    assert.deepEqual(image(new Uint8Array(), "image/gif"), {
      content: [{ type: "image", data: "", mimeType: "image/gif" }],
    });
  });

  await t.step("a base64 string passes through unchanged", () => {
    assert.deepEqual(audio("UklGRg==", "audio/wav"), {
      content: [{ type: "audio", data: "UklGRg==", mimeType: "audio/wav" }],
    });
    assert.deepEqual(image("iVBORw==", "image/png"), {
      content: [{ type: "image", data: "iVBORw==", mimeType: "image/png" }],
    });
  });

  await t.step("every byte value survives the round trip", () => {
    const bytes = Uint8Array.from({ length: 256 }, (_, i) => i);
    const data = (image(bytes, "image/x-test").content[0] as { data: string })
      .data;
    assert.equal(data, Buffer.from(bytes).toString("base64"));
  });
});

Deno.test("image() and audio() encode payloads larger than 32 KiB without overflowing", async (t) => {
  // Not a multiple of 3 or of the encoder's chunk size, so chunk seams show.
  const bytes = new Uint8Array(100_003);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 131 + 7) % 256;
  const expected = Buffer.from(bytes).toString("base64");

  await t.step("image", () => {
    const block = image(bytes, "image/png").content[0] as {
      type: string;
      data: string;
    };
    assert.equal(block.type, "image");
    assert.equal(block.data.length, expected.length);
    assert.equal(block.data, expected);
  });

  await t.step("audio", () => {
    const block = audio(bytes, "audio/ogg").content[0] as {
      type: string;
      data: string;
    };
    assert.equal(block.type, "audio");
    assert.equal(block.data, expected);
  });

  await t.step("a 1 MiB payload decodes back to the same bytes", () => {
    const big = new Uint8Array(1024 * 1024);
    for (let i = 0; i < big.length; i++) big[i] = (i * 7) & 0xff;
    const data = (image(big, "image/png").content[0] as { data: string }).data;
    assert.deepEqual(new Uint8Array(Buffer.from(data, "base64")), big);
  });
});

Deno.test("resourceLink() links a resource with only the fields given", async (t) => {
  await t.step("uri and name only", () => {
    assert.deepEqual(resourceLink("file:///reports/q3.pdf", "q3.pdf"), {
      content: [{
        type: "resource_link",
        uri: "file:///reports/q3.pdf",
        name: "q3.pdf",
      }],
    });
  });

  await t.step("with title, description and MIME type", () => {
    assert.deepEqual(
      resourceLink("file:///reports/q3.pdf", "q3.pdf", {
        title: "Q3 report",
        description: "Quarterly figures",
        mimeType: "application/pdf",
      }),
      {
        content: [{
          type: "resource_link",
          uri: "file:///reports/q3.pdf",
          name: "q3.pdf",
          title: "Q3 report",
          description: "Quarterly figures",
          mimeType: "application/pdf",
        }],
      },
    );
  });
});

Deno.test("resource() embeds text contents, with the MIME type only when given", async (t) => {
  await t.step("without a MIME type", () => {
    assert.deepEqual(resource("file:///notes/a.md", "# Notes"), {
      content: [{
        type: "resource",
        resource: { uri: "file:///notes/a.md", text: "# Notes" },
      }],
    });
    const block = resource("file:///a", "x").content[0] as {
      resource: Record<string, unknown>;
    };
    assert.equal("mimeType" in block.resource, false);
  });

  await t.step("with a MIME type", () => {
    assert.deepEqual(
      resource("file:///notes/a.md", "# Notes", "text/markdown"),
      {
        content: [{
          type: "resource",
          resource: {
            uri: "file:///notes/a.md",
            mimeType: "text/markdown",
            text: "# Notes",
          },
        }],
      },
    );
  });
});

Deno.test("ToolError is an Error with its own name, message and cause", () => {
  const cause = new Deno.errors.NotFound("no such file");
  const err = new ToolError("not found: notes/todo.md", { cause });
  assert.ok(err instanceof Error);
  assert.ok(err instanceof ToolError);
  assert.equal(err.name, "ToolError");
  assert.equal(err.message, "not found: notes/todo.md");
  assert.equal(err.cause, cause);
  assert.match(String(err), /^ToolError: not found: notes\/todo\.md$/);
  assert.equal(new ToolError("x").cause, undefined);
});
