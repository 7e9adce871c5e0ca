// The edge server, built by serve.ts from the same source, on each runtime:
// discovery, a tool call, a resource read, an error result, bearer auth
// refusing a bad token, and the 2026-07-28 header checks, over real HTTP.

import assert from "node:assert/strict";
import { startEdge, targets } from "./_edge_process.ts";
import { spawnUntil } from "./_spawn.ts";

const VERSION = "2026-07-28";
const TOKEN = "edge-test-token";

/** A 2026-07-28 POST with the headers SEP-2243 asks for, overridable. */
function post(
  url: string,
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string | undefined> = {},
): Promise<Response> {
  const name = params.name ?? params.uri;
  const all: Record<string, string | undefined> = {
    authorization: `Bearer ${TOKEN}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": VERSION,
    "mcp-method": method,
    ...(typeof name === "string" ? { "mcp-name": name } : {}),
    ...headers,
  };
  return fetch(url, {
    method: "POST",
    headers: Object.fromEntries(
      Object.entries(all).filter(([, v]) => v !== undefined),
    ) as Record<string, string>,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method,
      params: {
        _meta: {
          "io.modelcontextprotocol/protocolVersion": VERSION,
          "io.modelcontextprotocol/clientCapabilities": {},
        },
        ...params,
      },
    }),
  });
}

// deno-lint-ignore no-explicit-any
async function result(response: Response): Promise<any> {
  assert.equal(response.status, 200, await response.clone().text());
  const body = await response.json();
  assert.equal(body.error, undefined, JSON.stringify(body.error));
  return body.result;
}

for (const target of targets()) {
  Deno.test({
    name: `the edge server answers on ${target.label}${target.missing ?? ""}`,
    ignore: target.missing !== undefined,
    fn: async (t) => {
      const edge = await startEdge(target, { MCP_TOKEN: TOKEN });
      try {
        await t.step("server/discover", async () => {
          const discovered = await result(
            await post(edge.url, "server/discover"),
          );
          assert.deepEqual(discovered.supportedVersions, [VERSION]);
          assert.ok(discovered.capabilities.tools);
          assert.ok(discovered.capabilities.resources);
        });
        await t.step("a tool call", async () => {
          const called = await result(
            await post(edge.url, "tools/call", {
              name: "test_simple_text",
              arguments: {},
            }),
          );
          assert.deepEqual(called.content, [{
            type: "text",
            text: "This is a simple text response for testing.",
          }]);
        });
        await t.step("a resource read", async () => {
          const read = await result(
            await post(edge.url, "resources/read", {
              uri: "test://static-text",
            }),
          );
          assert.equal(
            read.contents[0].text,
            "This is the content of the static text resource.",
          );
        });
        await t.step("an error result", async () => {
          const failed = await result(
            await post(edge.url, "tools/call", {
              name: "test_error_handling",
              arguments: {},
            }),
          );
          assert.equal(failed.isError, true);
          assert.match(
            failed.content[0].text,
            /intentionally returns an error/,
          );
        });
        await t.step("bearer auth refuses a missing or bad token", async () => {
          for (
            const authorization of [
              undefined,
              "Bearer not-the-token",
              `Basic ${btoa(TOKEN)}`,
            ]
          ) {
            const response = await post(edge.url, "server/discover", {}, {
              authorization,
            });
            assert.equal(response.status, 401, String(authorization));
            assert.match(
              response.headers.get("www-authenticate") ?? "",
              /^Bearer/,
            );
            await response.body?.cancel();
          }
        });
        await t.step("the 2026-07-28 header checks", async () => {
          const call = { name: "test_simple_text", arguments: {} };
          const cases: [string, Response][] = [
            [
              "a mismatched Mcp-Method",
              await post(edge.url, "tools/call", call, {
                "mcp-method": "tools/list",
              }),
            ],
            [
              "a missing Mcp-Method",
              await post(edge.url, "tools/call", call, {
                "mcp-method": undefined,
              }),
            ],
            [
              "a mismatched Mcp-Name",
              await post(edge.url, "tools/call", call, {
                "mcp-name": "test_error_handling",
              }),
            ],
            [
              "a missing Mcp-Name",
              await post(edge.url, "tools/call", call, {
                "mcp-name": undefined,
              }),
            ],
            [
              "a header version other than _meta's",
              await post(edge.url, "tools/list", {}, {
                "mcp-protocol-version": "2026-01-01",
              }),
            ],
          ];
          for (const [header, response] of cases) {
            assert.equal(response.status, 400, header);
            const body = await response.json();
            assert.equal(body.error.code, -32020, header);
            assert.match(body.error.message, /^Header mismatch: /, header);
          }
        });
      } finally {
        await edge.stop();
      }
    },
  });
}

Deno.test("deno serve runs server.ts from source, with the token from the environment", async () => {
  const { started, value: origin } = await spawnUntil(
    Deno.execPath(),
    [
      "serve",
      "--allow-env",
      "--allow-net",
      "--host",
      "127.0.0.1",
      "--port",
      "0",
      new URL("server.ts", import.meta.url).pathname,
    ],
    (line) => /Listening on (http:\/\/127\.0\.0\.1:\d+)\//.exec(line)?.[1],
    { env: { MCP_TOKEN: TOKEN } },
  );
  try {
    const url = `${origin}/mcp`;
    const refused = await post(url, "server/discover", {}, {
      authorization: undefined,
    });
    assert.equal(refused.status, 401);
    await refused.body?.cancel();
    const discovered = await result(await post(url, "server/discover"));
    assert.deepEqual(discovered.supportedVersions, [VERSION]);
  } finally {
    await started.stop();
  }
});
