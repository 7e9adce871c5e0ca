import assert from "node:assert/strict";
import { setAuthInfo } from "../http/_auth_info.ts";
import { bodyLayer, markBody } from "../http/_body.ts";
import type { AuthInfo } from "../jsonrpc/types.ts";
import { scopeCheck } from "./_scope_check.ts";
import { parseGatePolicy } from "./policy/policy_file.ts";

const FILE = parseGatePolicy({
  scopes: { "write_*": ["files:write"] },
  principals: [{ match: { groups: ["ops"] }, scopes: { deploy: ["deploy"] } }],
  servers: {
    fs: { command: ["fs"], scopes: { read: ["fs:read"] } },
    web: { command: ["web"] },
  },
});
const ONE = parseGatePolicy({
  scopes: { "write_*": ["files:write"] },
  principals: [{ match: { groups: ["ops"] }, scopes: { deploy: ["deploy"] } }],
});

function post(body: string, auth?: AuthInfo): Request {
  const request = new Request("http://127.0.0.1:8080/mcp", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });
  if (auth !== undefined) setAuthInfo(request, auth);
  return request;
}

function call(name: string, id: number | string = 7): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name, arguments: {} },
  });
}

function token(scopes: string[], groups: string[] = []): AuthInfo {
  return {
    subject: "alice",
    scopes,
    claims: { sub: "alice", groups, scope: scopes.join(" ") },
  } as AuthInfo;
}

/** Runs the layer; resolves with its response and the body the next layer read. */
async function run(
  file: ReturnType<typeof parseGatePolicy>,
  request: Request,
  options: { resource?: string } = {},
) {
  const layer = scopeCheck({
    file: () => file,
    path: "/mcp",
    always: ["mcp"],
    ...options,
  });
  let passed: string | undefined;
  const response = await layer(request, async (handed) => {
    passed = await handed.text();
    return new Response("passed");
  });
  return { response, passed };
}

Deno.test("scopeCheck() refuses a call whose scope the token lacks with 403", async () => {
  const { response, passed } = await run(
    ONE,
    post(call("write_file"), token(["mcp"])),
  );
  assert.equal(passed, undefined);
  assert.equal(response.status, 403);
  assert.equal(
    response.headers.get("www-authenticate"),
    'Bearer error="insufficient_scope", scope="mcp files:write", resource_metadata="http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp", error_description="the token lacks the scope files:write"',
  );
  const body = await response.json();
  assert.equal(body.id, 7);
  assert.match(body.error.message, /write_file needs the scope files:write/);
});

Deno.test("scopeCheck() passes a call the token has the scopes of, body intact", async () => {
  const text = call("write_file");
  const { response, passed } = await run(
    ONE,
    post(text, token(["mcp", "files:write"])),
  );
  assert.equal(await response.text(), "passed");
  assert.equal(passed, text);
});

Deno.test("scopeCheck() reads a principal's scopes by the caller's view", async (t) => {
  await t.step("a matching caller needs them", async () => {
    const { response } = await run(
      ONE,
      post(call("deploy"), token(["mcp"], ["ops"])),
    );
    assert.equal(response.status, 403);
    assert.match(
      response.headers.get("www-authenticate")!,
      /scope="mcp deploy"/,
    );
  });
  await t.step("another caller does not", async () => {
    const { response } = await run(ONE, post(call("deploy"), token(["mcp"])));
    assert.equal(await response.text(), "passed");
  });
});

Deno.test("scopeCheck() under servers: asks a server's scopes by its prefixed name", async (t) => {
  await t.step("fs_read needs fs's scope", async () => {
    const { response } = await run(FILE, post(call("fs_read"), token([])));
    assert.equal(response.status, 403);
    assert.match(response.headers.get("www-authenticate")!, /fs:read/);
  });
  await t.step("web_read does not", async () => {
    const { response } = await run(FILE, post(call("web_read"), token([])));
    assert.equal(await response.text(), "passed");
  });
  await t.step("the top level's scopes apply to each server", async () => {
    const { response } = await run(FILE, post(call("web_write_x"), token([])));
    assert.equal(response.status, 403);
    assert.match(response.headers.get("www-authenticate")!, /files:write/);
  });
});

Deno.test("scopeCheck() finds a call in a batch, and names the public resource", async () => {
  const batch = `[{"jsonrpc":"2.0","method":"notifications/initialized"},${
    call("write_file", "b")
  }]`;
  const { response } = await run(ONE, post(batch, token([])), {
    resource: "https://gate.example.com/mcp",
  });
  assert.equal(response.status, 403);
  assert.equal((await response.json()).id, "b");
  assert.match(
    response.headers.get("www-authenticate")!,
    /resource_metadata="https:\/\/gate\.example\.com\/\.well-known\/oauth-protected-resource\/mcp"/,
  );
});

Deno.test("scopeCheck() leaves what is not a call to the endpoint", async (t) => {
  for (
    const [name, body] of [
      ["a parse error", "{not json"],
      ["another method", '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'],
      [
        "a call without a name",
        '{"jsonrpc":"2.0","id":1,"method":"tools/call"}',
      ],
    ]
  ) {
    await t.step(name, async () => {
      const { response, passed } = await run(ONE, post(body, token([])));
      assert.equal(await response.text(), "passed");
      assert.equal(passed, body);
    });
  }
  await t.step("a body that is not JSON by its type is not read", async () => {
    const request = new Request("http://127.0.0.1:8080/mcp", {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: call("write_file"),
    });
    const { response } = await run(ONE, request);
    assert.equal(await response.text(), "passed");
  });
});

Deno.test("scopeCheck() reads the body under the body limit", async () => {
  const limit = bodyLayer({ maxBodyBytes: 16 }, markBody);
  const check = scopeCheck({ file: () => ONE, path: "/mcp", always: [] });
  const response = await limit(
    post(call("write_file"), token([])),
    (request) => check(request, () => Promise.resolve(new Response("passed"))),
  );
  assert.equal(response.status, 413);
});

Deno.test("scopeCheck() leaves a policy without scopes' requests unread", async (t) => {
  const layer = scopeCheck({
    file: () =>
      parseGatePolicy({
        allow: ["read:**"],
        principals: [{ match: { groups: ["ops"] }, allow: ["write:**"] }],
        servers: { fs: { command: ["fs"] } },
      }),
    path: "/mcp",
    always: [],
  });
  await t.step("the same request goes on, its body not read", async () => {
    const request = post(call("write_file"), token([]));
    let passed: Request | undefined;
    await layer(request, (forwarded) => {
      passed = forwarded;
      return Promise.resolve(new Response("ok"));
    });
    assert.equal(passed, request);
    assert.equal(request.bodyUsed, false);
  });
  await t.step("a principal's scopes alone make it read", async () => {
    const onlyPrincipal = parseGatePolicy({
      principals: [{ match: { groups: ["ops"] }, scopes: { deploy: ["d"] } }],
    });
    const withScopes = scopeCheck({
      file: () => onlyPrincipal,
      path: "/mcp",
      always: [],
    });
    const request = post(call("read"), token([]));
    let passed: Request | undefined;
    await withScopes(request, (forwarded) => {
      passed = forwarded;
      return Promise.resolve(new Response("ok"));
    });
    assert.notEqual(passed, request);
  });
});
