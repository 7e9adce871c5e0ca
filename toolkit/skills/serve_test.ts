// server.skill() on the wire: what a 2025-11-25 session (through the test
// client) and a 2026-07-28 stateless request see of the skills extension.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { createServer } from "../../mod.ts";
import type { ToolServer } from "../server/server.ts";
import { connect, RpcError } from "../testing/mod.ts";
import type { JsonRpcMessage, McpTransport } from "../jsonrpc/types.ts";
import { defineSkill, type Skill, SKILLS_EXTENSION } from "./mod.ts";

const PDF_MD =
  '---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nmetadata:\n  version: "2"\n---\n\nRead references/FORMS.md.\n';
const FORMS_MD = "# Forms\n";
const REFUNDS_MD = "---\nname: refunds\ndescription: Refunds per policy\n---\n";
const LOGO = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff]);

function pdfSkill(): Skill {
  return defineSkill({
    files: {
      "SKILL.md": PDF_MD,
      "references/FORMS.md": FORMS_MD,
      "templates/regional/eu.md": "EU",
      "logo.png": LOGO,
    },
    cache: { ttlMs: 60_000, cacheScope: "public" },
  });
}

function refundsSkill(): Skill {
  return defineSkill({
    prefix: "acme/billing",
    files: {
      "SKILL.md": REFUNDS_MD,
    },
  });
}

function skillServer(pageSize?: number): ToolServer {
  const server = createServer({ name: "docs", version: "1" }, { pageSize });
  server.skill(pdfSkill());
  server.skill(refundsSkill());
  return server;
}

function digestOf(bytes: Uint8Array): string {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}

async function rpcError(
  promise: Promise<unknown>,
  code: number,
  message: RegExp,
): Promise<RpcError> {
  const error = await promise.then(
    () => assert.fail("expected a JSON-RPC error"),
    (e) => e,
  );
  assert.ok(error instanceof RpcError, String(error));
  assert.equal(error.code, code);
  assert.match(error.message, message);
  return error;
}

interface Entry {
  uri: string;
  frontmatter: Record<string, unknown>;
  resources: { uri: string; digest: string; size: number }[];
}

Deno.test("server.skill() declares the extension and the resources capability", async () => {
  await using plain = await connect(createServer({ name: "s", version: "1" }));
  const before = plain.initializeResult.capabilities as Record<string, unknown>;
  assert.equal(before.extensions, undefined);
  assert.equal(before.resources, undefined);
  await using client = await connect(skillServer());
  const capabilities = client.initializeResult.capabilities as Record<
    string,
    Record<string, unknown>
  >;
  assert.deepEqual(capabilities.extensions[SKILLS_EXTENSION], {
    directoryRead: true,
  });
  assert.ok(capabilities.resources !== undefined);
});

Deno.test("skills/list answers every skill's entry with its files' digests and sizes", async () => {
  await using client = await connect(skillServer());
  const result = await client.request("skills/list");
  const skills = result.skills as Entry[];
  assert.deepEqual(skills.map((s) => s.uri), [
    "skill://pdf-processing/SKILL.md",
    "skill://acme/billing/refunds/SKILL.md",
  ]);
  assert.deepEqual(skills[0].frontmatter, {
    name: "pdf-processing",
    description: "Extract, fill, and assemble PDF documents",
    metadata: { version: "2" },
  });
  assert.equal(result.nextCursor, undefined);
  // The least fresh skill decides: refunds has no hints (0 ms, private).
  assert.equal(result.ttlMs, 0);
  assert.equal(result.cacheScope, "private");
  // Every listed file reads back as the bytes its digest and size describe.
  for (const skill of skills) {
    assert.ok(skill.resources.some((r) => r.uri === skill.uri));
    for (const file of skill.resources) {
      const { contents } = await client.request("resources/read", {
        uri: file.uri,
      }) as { contents: { uri: string; text?: string; blob?: string }[] };
      assert.equal(contents[0].uri, file.uri);
      const bytes = contents[0].text !== undefined
        ? new TextEncoder().encode(contents[0].text)
        : Uint8Array.from(atob(contents[0].blob!), (c) => c.charCodeAt(0));
      assert.equal(bytes.byteLength, file.size, file.uri);
      assert.equal(digestOf(bytes), file.digest, file.uri);
    }
  }
});

Deno.test("skills/list pages by pageSize without splitting an entry", async () => {
  await using client = await connect(skillServer(1));
  const first = await client.request("skills/list");
  assert.equal((first.skills as Entry[]).length, 1);
  assert.equal(typeof first.nextCursor, "string");
  const second = await client.request("skills/list", {
    cursor: first.nextCursor,
  });
  assert.deepEqual((second.skills as Entry[]).map((s) => s.uri), [
    "skill://acme/billing/refunds/SKILL.md",
  ]);
  assert.equal((second.skills as Entry[])[0].resources.length, 1);
  assert.equal(second.nextCursor, undefined);
  await rpcError(
    client.request("skills/list", { cursor: "bogus" }),
    -32602,
    /Invalid cursor for skills\/list/,
  );
  await rpcError(
    client.request("skills/list", { cursor: 3 }),
    -32602,
    /cursor: expected string, got number/,
  );
});

Deno.test("skills/get answers one skill's entry and its cache hints, -32602 for an unknown URI", async () => {
  await using client = await connect(skillServer());
  const result = await client.request("skills/get", {
    uri: "skill://pdf-processing/SKILL.md",
  });
  assert.deepEqual(result.skill, pdfSkill().entry());
  assert.equal(result.ttlMs, 60_000);
  assert.equal(result.cacheScope, "public");
  assert.equal(result.nextCursor, undefined);
  const unknown = await rpcError(
    client.request("skills/get", { uri: "skill://nope/SKILL.md" }),
    -32602,
    /^No skill is served at skill:\/\/nope\/SKILL\.md/,
  );
  assert.deepEqual(unknown.data, { uri: "skill://nope/SKILL.md" });
  // A file of a skill is not a skill.
  await rpcError(
    client.request("skills/get", {
      uri: "skill://pdf-processing/references/FORMS.md",
    }),
    -32602,
    /No skill is served/,
  );
  await rpcError(
    client.request("skills/get", {}),
    -32602,
    /Invalid params for skills\/get: uri: expected string, got nothing/,
  );
});

Deno.test("resources/list shows each SKILL.md named and described by its frontmatter", async () => {
  await using client = await connect(skillServer());
  const { resources } = await client.request("resources/list") as {
    resources: Record<string, unknown>[];
  };
  assert.deepEqual(resources, [
    {
      uri: "skill://pdf-processing/SKILL.md",
      name: "pdf-processing",
      description: "Extract, fill, and assemble PDF documents",
      mimeType: "text/markdown",
      size: new TextEncoder().encode(PDF_MD).byteLength,
    },
    {
      uri: "skill://acme/billing/refunds/SKILL.md",
      name: "refunds",
      description: "Refunds per policy",
      mimeType: "text/markdown",
      size: REFUNDS_MD.length,
    },
  ]);
  const read = await client.request("resources/read", {
    uri: "skill://pdf-processing/logo.png",
  });
  assert.deepEqual(read.contents, [{
    uri: "skill://pdf-processing/logo.png",
    mimeType: "image/png",
    blob: btoa(String.fromCharCode(...LOGO)),
  }]);
  await rpcError(
    client.request("resources/read", { uri: "skill://pdf-processing/x.md" }),
    -32002,
    /Resource not found: skill:\/\/pdf-processing\/x\.md/,
  );
});

Deno.test("resources/directory/read lists a directory's direct children, subdirectories as inode/directory", async (t) => {
  await using client = await connect(skillServer());
  const read = async (uri: string) =>
    (await client.request("resources/directory/read", { uri })).resources;
  await t.step("a skill's root", async () => {
    assert.deepEqual(await read("skill://pdf-processing"), [
      {
        uri: "skill://pdf-processing/SKILL.md",
        name: "SKILL.md",
        mimeType: "text/markdown",
        size: new TextEncoder().encode(PDF_MD).byteLength,
      },
      {
        uri: "skill://pdf-processing/logo.png",
        name: "logo.png",
        mimeType: "image/png",
        size: LOGO.byteLength,
      },
      {
        uri: "skill://pdf-processing/references",
        name: "references",
        mimeType: "inode/directory",
      },
      {
        uri: "skill://pdf-processing/templates",
        name: "templates",
        mimeType: "inode/directory",
      },
    ]);
  });
  await t.step("a nested directory and the prefix's levels", async () => {
    assert.deepEqual(await read("skill://pdf-processing/templates"), [{
      uri: "skill://pdf-processing/templates/regional",
      name: "regional",
      mimeType: "inode/directory",
    }]);
    assert.deepEqual(await read("skill://acme"), [{
      uri: "skill://acme/billing",
      name: "billing",
      mimeType: "inode/directory",
    }]);
  });
  await t.step(
    "-32602 for a file, a trailing slash and an unknown URI",
    async () => {
      for (
        const uri of [
          "skill://pdf-processing/SKILL.md",
          "skill://pdf-processing/",
          "skill://other",
          "not a uri",
        ]
      ) {
        const error = await rpcError(
          client.request("resources/directory/read", { uri }),
          -32602,
          /is not a directory resource of this server/,
        );
        assert.deepEqual(error.data, { uri });
      }
    },
  );
});

Deno.test("resources/directory/read pages by pageSize", async () => {
  await using client = await connect(skillServer(3));
  const first = await client.request("resources/directory/read", {
    uri: "skill://pdf-processing",
  });
  assert.equal((first.resources as unknown[]).length, 3);
  const second = await client.request("resources/directory/read", {
    uri: "skill://pdf-processing",
    cursor: first.nextCursor,
  });
  assert.deepEqual(
    (second.resources as { uri: string }[]).map((r) => r.uri),
    ["skill://pdf-processing/templates"],
  );
  assert.equal(second.nextCursor, undefined);
});

Deno.test("the skills methods are not found on a server without skills", async () => {
  await using client = await connect(createServer({ name: "s", version: "1" }));
  for (
    const method of ["skills/list", "skills/get", "resources/directory/read"]
  ) {
    await rpcError(
      client.request(method, { uri: "skill://a/SKILL.md" }),
      -32601,
      new RegExp(`Method not found: ${method}`),
    );
  }
});

Deno.test("server.skill() refuses what it cannot serve beside the skills it has", async (t) => {
  const server = createServer({ name: "s", version: "1" });
  server.skill(pdfSkill());
  await t.step("not a Skill", () => {
    assert.throws(
      () =>
        server.skill(
          { files: { "SKILL.md": PDF_MD } } as unknown as Skill,
        ),
      new TypeError(
        "Cannot serve skill: expected a skill made by defineSkill(), loadSkill() or loadSkills() from @forge/toolkit/skills, got object",
      ),
    );
  });
  await t.step("the same URI twice", () => {
    assert.throws(
      () => server.skill(pdfSkill()),
      new TypeError(
        'Cannot serve skill "pdf-processing": duplicate URI: skill://pdf-processing/SKILL.md',
      ),
    );
  });
  await t.step("the same name at another path", () => {
    assert.throws(
      () =>
        server.skill(defineSkill({
          prefix: "other",
          files: { "SKILL.md": PDF_MD },
        })),
      /^TypeError: Cannot serve skill "pdf-processing": the name is already served at skill:\/\/pdf-processing\/SKILL\.md/,
    );
  });
  await t.step(
    "a nested skill whose files differ from its enclosing skill's",
    () => {
      const nested = (body: string) =>
        defineSkill({
          prefix: "pdf-processing",
          files: {
            "SKILL.md":
              `---\nname: references\ndescription: Nested\n---\n${body}`,
            "FORMS.md": FORMS_MD,
          },
        });
      // FORMS.md is the enclosing skill's references/FORMS.md, byte for byte.
      server.skill(nested(""));
      const other = createServer({ name: "s", version: "1" });
      other.skill(pdfSkill());
      other.skill(nested(""));
      assert.throws(
        () =>
          other.skill(defineSkill({
            prefix: "pdf-processing/templates",
            files: {
              "SKILL.md": "---\nname: regional\ndescription: x\n---\n",
              "eu.md": "not EU",
            },
          })),
        /^TypeError: Cannot serve skill "regional": skill:\/\/pdf-processing\/templates\/regional\/eu\.md is already served by skill "pdf-processing" with other content$/,
      );
    },
  );
});

/** A transport that speaks 2026-07-28: no initialize, `_meta` on each request. */
class StatelessWire implements McpTransport {
  onmessage?: (message: JsonRpcMessage) => void;
  onclose?: () => void;
  #answers = new Map<number, (m: Record<string, unknown>) => void>();
  #id = 0;
  start(): Promise<void> {
    return Promise.resolve();
  }
  send(message: JsonRpcMessage): Promise<void> {
    const m = message as Record<string, unknown>;
    if (typeof m.id === "number" && !("method" in m)) {
      this.#answers.get(m.id)?.(m);
    }
    return Promise.resolve();
  }
  close(): Promise<void> {
    this.onclose?.();
    return Promise.resolve();
  }
  request(
    method: string,
    params: Record<string, unknown> = {},
  ): Promise<Record<string, unknown>> {
    const id = ++this.#id;
    const answered = new Promise<Record<string, unknown>>((resolve) =>
      this.#answers.set(id, resolve)
    );
    this.onmessage?.({
      jsonrpc: "2.0",
      id,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    } as JsonRpcMessage);
    return answered;
  }
}

Deno.test("a 2026-07-28 request gets resultType, cache hints and -32602 for an unknown skill file", async () => {
  const server = skillServer();
  const wire = new StatelessWire();
  await server.connect(wire);
  const discover = await wire.request("server/discover");
  const capabilities = (discover.result as Record<string, unknown>)
    .capabilities as Record<string, Record<string, unknown>>;
  assert.deepEqual(capabilities.extensions[SKILLS_EXTENSION], {
    directoryRead: true,
  });
  const list = (await wire.request("skills/list")).result as Record<
    string,
    unknown
  >;
  assert.equal(list.resultType, "complete");
  assert.equal(list.ttlMs, 0);
  assert.equal(list.cacheScope, "private");
  const get = (await wire.request("skills/get", {
    uri: "skill://pdf-processing/SKILL.md",
  })).result as Record<string, unknown>;
  assert.equal(get.resultType, "complete");
  assert.equal(get.ttlMs, 60_000);
  assert.equal(get.cacheScope, "public");
  const dir = (await wire.request("resources/directory/read", {
    uri: "skill://pdf-processing/references",
  })).result as Record<string, unknown>;
  assert.equal(dir.resultType, "complete");
  assert.deepEqual(dir.resources, [{
    uri: "skill://pdf-processing/references/FORMS.md",
    name: "FORMS.md",
    mimeType: "text/markdown",
    size: 8,
  }]);
  const missing = await wire.request("resources/read", {
    uri: "skill://pdf-processing/missing.md",
  });
  assert.deepEqual(missing.error, {
    code: -32602,
    message: "Resource not found: skill://pdf-processing/missing.md",
    data: { uri: "skill://pdf-processing/missing.md" },
  });
  const unknown = await wire.request("skills/get", {
    uri: "skill://nope/SKILL.md",
  });
  assert.equal((unknown.error as Record<string, unknown>).code, -32602);
  await server.close();
});

Deno.test("resources/directory/read carries ttlMs and cacheScope: its skills' hints, as skills/list", async () => {
  const server = skillServer(2);
  const wire = new StatelessWire();
  await server.connect(wire);
  const read = async (params: Record<string, unknown>) =>
    (await wire.request("resources/directory/read", params)).result as Record<
      string,
      unknown
    >;
  // pdf-processing's own hints, on every page of its root.
  const first = await read({ uri: "skill://pdf-processing" });
  assert.equal(typeof first.nextCursor, "string");
  assert.deepEqual(
    [first.resultType, first.ttlMs, first.cacheScope],
    ["complete", 60_000, "public"],
  );
  const second = await read({
    uri: "skill://pdf-processing",
    cursor: first.nextCursor,
  });
  assert.deepEqual([second.ttlMs, second.cacheScope], [60_000, "public"]);
  const nested = await read({ uri: "skill://pdf-processing/templates" });
  assert.deepEqual([nested.ttlMs, nested.cacheScope], [60_000, "public"]);
  // refunds has no hints: nothing is cached.
  const prefix = await read({ uri: "skill://acme" });
  assert.deepEqual([prefix.ttlMs, prefix.cacheScope], [0, "private"]);
  await server.close();
});

Deno.test("resources/directory/read in a 2025-11-25 session carries the same hints as skills/get", async () => {
  await using client = await connect(skillServer());
  const dir = await client.request("resources/directory/read", {
    uri: "skill://pdf-processing/references",
  });
  assert.deepEqual([dir.ttlMs, dir.cacheScope], [60_000, "public"]);
});
