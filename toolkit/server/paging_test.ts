import assert from "node:assert/strict";
import { createServer, text } from "../../mod.ts";
import { connect, RpcError, type TestClient } from "../testing/testing.ts";

function named(list: unknown): string[] {
  return (list as { name: string }[]).map((item) => item.name);
}

/** Every page of `method`, as names per page; the last has no nextCursor. */
async function pages(
  client: TestClient,
  method: string,
  key: string,
): Promise<string[][]> {
  const seen: string[][] = [];
  let cursor: string | undefined;
  do {
    const page = await client.request(
      method,
      cursor === undefined ? {} : { cursor },
    );
    seen.push(named(page[key]));
    cursor = page.nextCursor as string | undefined;
    if (cursor !== undefined) assert.equal(typeof cursor, "string");
  } while (cursor !== undefined);
  return seen;
}

function addTools(
  server: ReturnType<typeof createServer>,
  names: string[],
) {
  return names.map((name) =>
    server.tool({ name, description: name, handler: () => text(name) })
  );
}

Deno.test("createServer() refuses a pageSize that is not a whole number >= 1", () => {
  for (const pageSize of [0, -1, 1.5, Number.NaN, Infinity]) {
    assert.throws(
      () => createServer({ name: "s", version: "1" }, { pageSize }),
      {
        name: "RangeError",
        message:
          `Cannot create server: pageSize must be a whole number >= 1, got ${pageSize}`,
      },
    );
  }
  assert.throws(
    () =>
      createServer({ name: "s", version: "1" }, {
        pageSize: "10" as unknown as number,
      }),
    {
      name: "TypeError",
      message: "Cannot create server: pageSize must be a number, got string",
    },
  );
});

Deno.test("with a pageSize every list is paged by opaque cursors", async (t) => {
  const server = createServer({ name: "s", version: "1" }, { pageSize: 2 });
  addTools(server, ["a", "b", "c", "d", "e"]);
  for (const name of ["r1", "r2"]) {
    server.resource({
      uri: `fixed://${name}`,
      name,
      read: (uri) => ({ uri: uri.href, text: name }),
    });
  }
  server.resourceTemplate({
    uriTemplate: "notes://{id}",
    name: "note",
    list: () =>
      ["n1", "n2", "n3"].map((id) => ({ uri: `notes://${id}`, name: id })),
    read: (uri) => ({ uri: uri.href, text: "" }),
  });
  for (const name of ["t2", "t3"]) {
    server.resourceTemplate({
      uriTemplate: `${name}://{id}`,
      name,
      read: (uri) => ({ uri: uri.href, text: "" }),
    });
  }
  for (const name of ["p1", "p2", "p3", "p4"]) {
    server.prompt({ name, handler: () => ({ messages: [] }) });
  }
  await using client = await connect(server);

  await t.step("tools/list", async () => {
    assert.deepEqual(await pages(client, "tools/list", "tools"), [
      ["a", "b"],
      ["c", "d"],
      ["e"],
    ]);
    // The test client follows nextCursor, as a host does.
    assert.deepEqual(named(await client.listTools()), [
      "a",
      "b",
      "c",
      "d",
      "e",
    ]);
  });

  await t.step(
    "resources/list: fixed resources, then what templates list",
    async () => {
      assert.deepEqual(await pages(client, "resources/list", "resources"), [
        ["r1", "r2"],
        ["n1", "n2"],
        ["n3"],
      ]);
    },
  );

  await t.step("resources/templates/list", async () => {
    assert.deepEqual(
      await pages(client, "resources/templates/list", "resourceTemplates"),
      [["note", "t2"], ["t3"]],
    );
  });

  await t.step("prompts/list: a full last page has no nextCursor", async () => {
    assert.deepEqual(await pages(client, "prompts/list", "prompts"), [
      ["p1", "p2"],
      ["p3", "p4"],
    ]);
  });
});

Deno.test("a cursor keeps its place when the list changes between pages", async () => {
  const server = createServer({ name: "s", version: "1" }, { pageSize: 2 });
  const [, , c] = addTools(server, ["a", "b", "c", "d"]);
  await using client = await connect(server);
  const first = await client.request("tools/list");
  assert.deepEqual(named(first.tools), ["a", "b"]);
  c.remove(); // the next item goes: the page starts after it, skipping nothing
  addTools(server, ["e"]); // a new one comes at the end
  const second = await client.request("tools/list", {
    cursor: first.nextCursor,
  });
  assert.deepEqual(named(second.tools), ["d", "e"]);
  assert.equal(second.nextCursor, undefined);
});

Deno.test("an invalid cursor is -32602 with a sentence, and the server keeps serving", async (t) => {
  const server = createServer({ name: "s", version: "1" }, { pageSize: 1 });
  addTools(server, ["a", "b"]);
  server.prompt({ name: "p1", handler: () => ({ messages: [] }) });
  server.prompt({ name: "p2", handler: () => ({ messages: [] }) });
  await using client = await connect(server);
  const refused = async (method: string, cursor: unknown) => {
    const error = await client.request(method, { cursor }).then(
      () => assert.fail(`${method} accepted cursor ${JSON.stringify(cursor)}`),
      (e: unknown) => e,
    );
    assert.ok(error instanceof RpcError);
    assert.equal(error.code, -32602);
    return error.message;
  };

  await t.step("a string this server never issued", async () => {
    for (const cursor of ["garbage", "", btoa('{"m":"tools/list"}')]) {
      assert.equal(
        await refused("tools/list", cursor),
        `Invalid cursor for tools/list: expected the nextCursor of an earlier tools/list answer, got ${
          JSON.stringify(cursor)
        }`,
      );
    }
  });

  await t.step("another list's cursor", async () => {
    const { nextCursor } = await client.request("tools/list");
    assert.match(
      await refused("prompts/list", nextCursor),
      /^Invalid cursor for prompts\/list: expected the nextCursor of an earlier prompts\/list answer/,
    );
  });

  await t.step("a cursor that is not a string", async () => {
    assert.equal(
      await refused("tools/list", 7),
      "Invalid params for tools/list: cursor: expected string, got number",
    );
  });

  await t.step("the server still answers", async () => {
    assert.deepEqual(named(await client.listTools()), ["a", "b"]);
  });
});

Deno.test("without a pageSize every list is one page, and a bad cursor is still refused", async () => {
  const server = createServer({ name: "s", version: "1" });
  addTools(server, Array.from({ length: 250 }, (_, i) => `t${i}`));
  await using client = await connect(server);
  const page = await client.request("tools/list");
  assert.equal((page.tools as unknown[]).length, 250);
  assert.equal(page.nextCursor, undefined);
  await assert.rejects(
    client.request("tools/list", { cursor: "nope" }),
    (e) => e instanceof RpcError && e.code === -32602,
  );
});
