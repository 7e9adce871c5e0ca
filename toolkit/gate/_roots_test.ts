import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { fileUri, ServerRoots } from "./_roots.ts";

const HOST_INIT = {
  protocolVersion: "2025-06-18",
  capabilities: { roots: { listChanged: true }, elicitation: {} },
  clientInfo: { name: "host", version: "1" },
};

Deno.test("server roots with roots in the policy are the policy's", async (t) => {
  let roots: readonly string[] = ["/work", "/data/b"];
  const server = new ServerRoots(() => roots);

  await t.step("the server is told its client has roots, host or not", () => {
    const params = server.params("initialize", {
      ...HOST_INIT,
      capabilities: {},
    });
    assert.deepEqual(params?.capabilities, { roots: { listChanged: true } });
    const withHost = new ServerRoots(() => roots).params(
      "initialize",
      HOST_INIT,
    );
    assert.deepEqual(withHost?.capabilities, {
      roots: { listChanged: true },
      elicitation: {},
    });
  });

  await t.step(
    "roots/list is answered with the policy's roots, in order",
    () => {
      assert.deepEqual(server.answer("roots/list"), {
        result: { roots: [{ uri: "file:///work" }, { uri: "file:///data/b" }] },
      });
      assert.equal(server.answer("sampling/createMessage"), undefined);
    },
  );

  await t.step("roots a 2026-07-28 host answers with are the policy's", () => {
    const elicited = { action: "accept", content: {} };
    const params = {
      name: "t",
      inputResponses: {
        roots: { roots: [{ uri: "file:///other" }] },
        elicitation: elicited,
      },
    };
    assert.deepEqual(server.params("tools/call", params), {
      name: "t",
      inputResponses: {
        roots: { roots: [{ uri: "file:///work" }, { uri: "file:///data/b" }] },
        elicitation: elicited,
      },
    });
    const plain = { name: "t", arguments: {} };
    assert.equal(server.params("tools/call", plain), plain);
  });

  await t.step("the host's change of roots is not passed on", () => {
    assert.equal(server.hostChanged(), false);
    assert.equal(server.refresh(), undefined);
  });

  await t.step("a reload that changes them tells the server, once", () => {
    roots = ["/elsewhere"];
    assert.deepEqual(server.refresh(), {
      jsonrpc: "2.0",
      method: "notifications/roots/list_changed",
    });
    assert.equal(server.refresh(), undefined);
    assert.deepEqual(server.answer("roots/list"), {
      result: { roots: [{ uri: "file:///elsewhere" }] },
    });
  });

  await t.step("without roots since, the server asks the host's again", () => {
    roots = [];
    assert.deepEqual(server.refresh(), {
      jsonrpc: "2.0",
      method: "notifications/roots/list_changed",
    });
    // This host declared none: there are none to give.
    assert.equal(
      (server.answer("roots/list") as { error: { code: number } }).error.code,
      -32601,
    );
    assert.equal(server.hostChanged(), true);
  });
});

Deno.test("server roots without roots in the policy are the host's", () => {
  const server = new ServerRoots(() => []);
  // The same params: the server sees what the host declared.
  assert.equal(server.params("initialize", HOST_INIT), HOST_INIT);
  assert.equal(server.answer("roots/list"), undefined);
  assert.equal(server.hostChanged(), true);
  assert.equal(server.refresh(), undefined);
  const answered = { inputResponses: { roots: { roots: [] } } };
  assert.equal(server.params("tools/call", answered), answered);

  const noRoots = { ...HOST_INIT, capabilities: {} };
  const alone = new ServerRoots(() => []);
  assert.equal(alone.params("initialize", noRoots), noRoots);
  // Whatever the host makes of a request it did not declare, it answers.
  assert.equal(alone.answer("roots/list"), undefined);
  assert.equal(alone.refresh(), undefined);
});

Deno.test("fileUri encodes each segment and reads back as the path", () => {
  for (
    const path of ["/tmp/a b/é", "/tmp/cafe\u0301", "/tmp/#?%/x", "/"]
  ) {
    const uri = fileUri(path);
    assert.match(uri, /^file:\/\/\/[^ #?]*$/);
    assert.equal(fileURLToPath(uri), path);
  }
});
