import assert from "node:assert/strict";
import { ArgumentError } from "./argument_error.ts";
import {
  optionalBoolean,
  optionalEnum,
  optionalInt,
  optionalNumber,
  optionalString,
  optionalStringArray,
  requireBoolean,
  requireEnum,
  requireInt,
  requireNumber,
  requireString,
  requireStringArray,
} from "./readers.ts";
import { createServer } from "../server/server.ts";
import { connect } from "../testing/testing.ts";

/** Runs `fn`, asserts it throws an ArgumentError, and returns it. */
function argumentErrorOf(fn: () => unknown): ArgumentError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ArgumentError, `expected ArgumentError: ${err}`);
    return err;
  }
  assert.fail("expected an ArgumentError, but nothing was thrown");
}

/** The message an accessor's ArgumentError carries for one problem. */
function oneLine(path: string, message: string): string {
  return `Invalid arguments:\n${path}: ${message}`;
}

Deno.test("requireString() and optionalString() read strings and refuse anything else", async (t) => {
  await t.step("present", () => {
    assert.equal(requireString({ path: "a.txt" }, "path"), "a.txt");
    assert.equal(requireString({ path: "" }, "path"), "");
  });

  await t.step("missing", () => {
    const err = argumentErrorOf(() => requireString({}, "path"));
    assert.equal(err.message, oneLine("path", "required"));
    assert.deepEqual(err.problems, [{ path: "path", message: "required" }]);
  });

  await t.step("wrong type", () => {
    assert.equal(
      argumentErrorOf(() => requireString({ path: 1 }, "path")).message,
      oneLine("path", "expected string, got number"),
    );
    assert.equal(
      argumentErrorOf(() => requireString({ path: null }, "path")).message,
      oneLine("path", "expected string, got null"),
    );
    assert.equal(
      argumentErrorOf(() => requireString({ path: ["a"] }, "path")).message,
      oneLine("path", "expected string, got array"),
    );
  });

  await t.step("optional: absent, fallback, present and wrong", () => {
    assert.equal(optionalString({}, "mode"), undefined);
    assert.equal(optionalString({}, "mode", "fast"), "fast");
    assert.equal(optionalString({ mode: "slow" }, "mode", "fast"), "slow");
    assert.equal(optionalString({ mode: "" }, "mode", "fast"), "");
    assert.equal(
      argumentErrorOf(() => optionalString({ mode: 1 }, "mode", "fast"))
        .message,
      oneLine("mode", "expected string, got number"),
    );
  });
});

Deno.test("requireNumber() and optionalNumber() read finite numbers within bounds", async (t) => {
  await t.step("in range", () => {
    assert.equal(
      requireNumber({ ratio: 0.5 }, "ratio", { min: 0, max: 1 }),
      0.5,
    );
    assert.equal(requireNumber({ ratio: 0 }, "ratio", { min: 0, max: 1 }), 0);
    assert.equal(requireNumber({ ratio: 1 }, "ratio", { min: 0, max: 1 }), 1);
    assert.equal(requireNumber({ ratio: -7.25 }, "ratio"), -7.25);
  });

  await t.step("out of range", () => {
    assert.equal(
      argumentErrorOf(() => requireNumber({ ratio: -0.1 }, "ratio", { min: 0 }))
        .message,
      oneLine("ratio", "expected a number >= 0, got -0.1"),
    );
    assert.equal(
      argumentErrorOf(() => requireNumber({ ratio: 2 }, "ratio", { max: 1 }))
        .message,
      oneLine("ratio", "expected a number <= 1, got 2"),
    );
  });

  await t.step("wrong type, missing, not finite", () => {
    assert.equal(
      argumentErrorOf(() => requireNumber({ ratio: "0.5" }, "ratio")).message,
      oneLine("ratio", "expected number, got string"),
    );
    assert.equal(
      argumentErrorOf(() => requireNumber({}, "ratio")).message,
      oneLine("ratio", "required"),
    );
    assert.equal(
      argumentErrorOf(() => requireNumber({ ratio: Infinity }, "ratio"))
        .message,
      oneLine("ratio", "expected a finite number, got Infinity"),
    );
    assert.equal(
      argumentErrorOf(() => requireNumber({ ratio: NaN }, "ratio")).message,
      oneLine("ratio", "expected a finite number, got NaN"),
    );
  });

  await t.step("optional", () => {
    assert.equal(optionalNumber({}, "ratio", { min: 0 }), undefined);
    assert.equal(optionalNumber({ ratio: 3 }, "ratio"), 3);
    assert.equal(
      argumentErrorOf(() => optionalNumber({ ratio: 3 }, "ratio", { max: 1 }))
        .message,
      oneLine("ratio", "expected a number <= 1, got 3"),
    );
  });
});

Deno.test("requireInt() and optionalInt() read integers within bounds", async (t) => {
  await t.step("in range", () => {
    assert.equal(requireInt({ limit: 10 }, "limit", { min: 1, max: 100 }), 10);
    assert.equal(requireInt({ limit: -3 }, "limit"), -3);
  });

  await t.step("a float names the value", () => {
    assert.equal(
      argumentErrorOf(() => requireInt({ limit: 1.5 }, "limit")).message,
      oneLine("limit", "expected integer, got 1.5"),
    );
  });

  await t.step("a string names the type", () => {
    assert.equal(
      argumentErrorOf(() => requireInt({ limit: "10" }, "limit")).message,
      oneLine("limit", "expected integer, got string"),
    );
  });

  await t.step("beyond the safe integers", () => {
    assert.equal(
      argumentErrorOf(() => requireInt({ limit: 2 ** 53 }, "limit")).message,
      oneLine("limit", `expected integer, got ${2 ** 53}`),
    );
  });

  await t.step("bounds", () => {
    assert.equal(
      argumentErrorOf(() => requireInt({ limit: 0 }, "limit", { min: 1 }))
        .message,
      oneLine("limit", "expected a number >= 1, got 0"),
    );
    assert.equal(
      argumentErrorOf(() => requireInt({ limit: 101 }, "limit", { max: 100 }))
        .message,
      oneLine("limit", "expected a number <= 100, got 101"),
    );
  });

  await t.step("optional: absent, present, bounds still apply", () => {
    assert.equal(optionalInt({}, "limit", { max: 100 }), undefined);
    assert.equal(optionalInt({ limit: 5 }, "limit", { max: 100 }), 5);
    assert.equal(
      argumentErrorOf(() => optionalInt({ limit: 500 }, "limit", { max: 100 }))
        .message,
      oneLine("limit", "expected a number <= 100, got 500"),
    );
    assert.equal(
      argumentErrorOf(() => optionalInt({ limit: 0.5 }, "limit")).message,
      oneLine("limit", "expected integer, got 0.5"),
    );
  });
});

Deno.test("requireBoolean() and optionalBoolean() read booleans, not truthy values", async (t) => {
  await t.step("present", () => {
    assert.equal(requireBoolean({ force: true }, "force"), true);
    assert.equal(requireBoolean({ force: false }, "force"), false);
  });

  await t.step("wrong type and missing", () => {
    assert.equal(
      argumentErrorOf(() => requireBoolean({ force: "true" }, "force")).message,
      oneLine("force", "expected boolean, got string"),
    );
    assert.equal(
      argumentErrorOf(() => requireBoolean({ force: 1 }, "force")).message,
      oneLine("force", "expected boolean, got number"),
    );
    assert.equal(
      argumentErrorOf(() => requireBoolean({}, "force")).message,
      oneLine("force", "required"),
    );
  });

  await t.step("optional: an explicit false beats a true fallback", () => {
    assert.equal(optionalBoolean({}, "force"), undefined);
    assert.equal(optionalBoolean({}, "force", true), true);
    assert.equal(optionalBoolean({ force: false }, "force", true), false);
    assert.equal(
      argumentErrorOf(() => optionalBoolean({ force: "no" }, "force", false))
        .message,
      oneLine("force", "expected boolean, got string"),
    );
  });
});

Deno.test("requireStringArray() names every bad index", async (t) => {
  await t.step("valid", () => {
    assert.deepEqual(requireStringArray({ tags: ["a", "b"] }, "tags"), [
      "a",
      "b",
    ]);
    assert.deepEqual(requireStringArray({ tags: [] }, "tags"), []);
  });

  await t.step("one bad item", () => {
    const err = argumentErrorOf(() =>
      requireStringArray({ tags: ["a", 2, "c"] }, "tags")
    );
    assert.equal(
      err.message,
      oneLine("tags[1]", "expected string, got number"),
    );
  });

  await t.step("several bad items, one line each", () => {
    const err = argumentErrorOf(() =>
      requireStringArray({ tags: [null, "b", {}] }, "tags")
    );
    assert.deepEqual(err.problems, [
      { path: "tags[0]", message: "expected string, got null" },
      { path: "tags[2]", message: "expected string, got object" },
    ]);
    assert.equal(
      err.message,
      "Invalid arguments:\ntags[0]: expected string, got null\ntags[2]: expected string, got object",
    );
  });

  await t.step("not an array, or missing", () => {
    assert.equal(
      argumentErrorOf(() => requireStringArray({ tags: "a,b" }, "tags"))
        .message,
      oneLine("tags", "expected array, got string"),
    );
    assert.equal(
      argumentErrorOf(() => requireStringArray({}, "tags")).message,
      oneLine("tags", "required"),
    );
  });
});

Deno.test("requireEnum() accepts only the listed values", async (t) => {
  const modes = ["a", "b"] as const;

  await t.step("listed", () => {
    assert.equal(requireEnum({ mode: "b" }, "mode", modes), "b");
  });

  await t.step("unlisted string, other type, missing", () => {
    assert.equal(
      argumentErrorOf(() => requireEnum({ mode: "c" }, "mode", modes)).message,
      oneLine("mode", 'expected one of "a", "b", got "c"'),
    );
    assert.equal(
      argumentErrorOf(() => requireEnum({ mode: 1 }, "mode", modes)).message,
      oneLine("mode", 'expected one of "a", "b", got 1'),
    );
    assert.equal(
      argumentErrorOf(() => requireEnum({}, "mode", modes)).message,
      oneLine("mode", "required"),
    );
  });

  await t.step("case matters", () => {
    assert.equal(
      argumentErrorOf(() => requireEnum({ mode: "A" }, "mode", modes)).message,
      oneLine("mode", 'expected one of "a", "b", got "A"'),
    );
  });
});

Deno.test("optionalStringArray() is undefined when absent and checks every item when present", async (t) => {
  await t.step("absent, or undefined", () => {
    assert.equal(optionalStringArray({}, "tags"), undefined);
    assert.equal(optionalStringArray({ tags: undefined }, "tags"), undefined);
  });

  await t.step("present", () => {
    assert.deepEqual(optionalStringArray({ tags: ["a"] }, "tags"), ["a"]);
    assert.deepEqual(optionalStringArray({ tags: [] }, "tags"), []);
  });

  await t.step(
    "present but wrong: the same problems as requireStringArray()",
    () => {
      assert.equal(
        argumentErrorOf(() => optionalStringArray({ tags: ["a", 2] }, "tags"))
          .message,
        oneLine("tags[1]", "expected string, got number"),
      );
      assert.equal(
        argumentErrorOf(() => optionalStringArray({ tags: null }, "tags"))
          .message,
        oneLine("tags", "expected array, got null"),
      );
    },
  );
});

Deno.test("optionalEnum() is undefined when absent and accepts only the listed values when present", async (t) => {
  const modes = ["a", "b"] as const;

  await t.step("absent", () => {
    assert.equal(optionalEnum({}, "mode", modes), undefined);
    assert.equal(optionalEnum({}, "mode", modes) ?? "a", "a");
  });

  await t.step("listed", () => {
    const mode: "a" | "b" | undefined = optionalEnum(
      { mode: "b" },
      "mode",
      modes,
    );
    assert.equal(mode, "b");
  });

  await t.step("unlisted or of another type", () => {
    assert.equal(
      argumentErrorOf(() => optionalEnum({ mode: "c" }, "mode", modes))
        .message,
      oneLine("mode", 'expected one of "a", "b", got "c"'),
    );
    assert.equal(
      argumentErrorOf(() => optionalEnum({ mode: false }, "mode", modes))
        .message,
      oneLine("mode", 'expected one of "a", "b", got false'),
    );
  });
});

Deno.test("an accessor's ArgumentError reaches the model as an isError result", async () => {
  const server = createServer({ name: "args", version: "0.0.0" });
  let ran = 0;
  server.tool({
    name: "page",
    description: "Reads raw arguments with accessors",
    input: {
      type: "object",
      properties: { limit: { type: "number" }, tags: { type: "array" } },
    },
    handler: (args) => {
      const limit = requireInt(args, "limit", { min: 1, max: 50 });
      const tags = requireStringArray(args, "tags");
      ran++;
      return {
        content: [{ type: "text", text: `${limit} ${tags.join(",")}` }],
      };
    },
  });
  await using client = await connect(server);
  assert.deepEqual(await client.call("page", { limit: 51, tags: [] }), {
    content: [{
      type: "text",
      text: "Invalid arguments:\nlimit: expected a number <= 50, got 51",
    }],
    isError: true,
  });
  assert.deepEqual(await client.call("page", { limit: 5, tags: ["x", 1] }), {
    content: [{
      type: "text",
      text: "Invalid arguments:\ntags[1]: expected string, got number",
    }],
    isError: true,
  });
  assert.equal(ran, 0);
  assert.deepEqual(await client.call("page", { limit: 5, tags: ["x", "y"] }), {
    content: [{ type: "text", text: "5 x,y" }],
  });
  assert.equal(ran, 1);
});
