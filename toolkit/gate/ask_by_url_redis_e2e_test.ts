// Two gate instances served over HTTP with `redis:` set to one real
// redis-server share their approvals: a call held on one instance is
// released by an approval given on the other's page, a form the first
// served may be posted to the second, and the retry of a refused call runs
// on an approval given elsewhere.

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { haveRedis, startRedis } from "../redis/_test_redis.ts";
import { startGate } from "./gate.ts";
import { FAKE_COMMAND, type Message } from "./testdata/gate_process.ts";

const ignore = !haveRedis();

const POLICY = `
allow: ["x-fake:**"]
ask: ["write:**"]
unprobed: allow
approvers: { sub: [bob] }
`;

/** The test's sign-in: a header naming the viewer (both instances read it alike). */
function identifyViewer(request: Request) {
  const sub = request.headers.get("x-test-viewer");
  return Promise.resolve(sub === null ? undefined : { sub });
}

/** A gate instance; Redis named by `redis`, or by the policy file without it. */
async function instance(redis: string | undefined, dir: string) {
  const gate = await startGate(FAKE_COMMAND, {
    policy: `${dir}/gate.yaml`,
    listen: "127.0.0.1:0",
    ...(redis === undefined ? {} : { redis }),
    identifyViewer,
    log: () => {},
  });
  return {
    url: gate.url!,
    async [Symbol.asyncDispose]() {
      await gate.close();
    },
  };
}

/** A session that declares `capabilities`; URL elicitations are accepted. */
async function session(url: URL, capabilities: Message) {
  const client = new Client({ name: "redis-test", version: "1.0.0" }, {
    capabilities,
  });
  const asked = Promise.withResolvers<Message>();
  if (capabilities.elicitation !== undefined) {
    client.setRequestHandler(ElicitRequestSchema, (request: Message) => {
      asked.resolve(request.params);
      return { action: "accept" } as never;
    });
  }
  await client.connect(new StreamableHTTPClientTransport(url));
  return {
    client,
    asked: asked.promise,
    async [Symbol.asyncDispose]() {
      await client.close().catch(() => {});
    },
  };
}

/** The form token `page` (on `origin`) gives bob. */
async function formToken(page: URL): Promise<string> {
  const html = await (await fetch(page, {
    headers: { "x-test-viewer": "bob" },
  })).text();
  const token = html.match(/name="csrf" value="([^"]+)"/)?.[1];
  assert.ok(token, html);
  return token;
}

/** Bob approves on `page`, with the token `csrf`. */
async function approve(page: URL, csrf: string): Promise<number> {
  const response = await fetch(page, {
    method: "POST",
    redirect: "manual",
    headers: {
      "x-test-viewer": "bob",
      origin: page.origin,
      "content-type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({ csrf, decision: "approve" }),
  });
  await response.body?.cancel();
  return response.status;
}

/** `page`'s path on the instance at `url`. */
function on(url: URL, page: string): URL {
  return new URL(new URL(page).pathname, url);
}

Deno.test({
  name: "an approval on one instance's page releases a call held by another",
  ignore,
  fn: async () => {
    await using redis = await startRedis();
    const dir = await Deno.makeTempDir();
    try {
      await Deno.writeTextFile(`${dir}/gate.yaml`, POLICY);
      await using a = await instance(redis.url, dir);
      await using b = await instance(redis.url, dir);
      await using host = await session(a.url, { elicitation: { url: {} } });
      const calling = host.client.callTool({
        name: "probed",
        arguments: { patterns: ["write:notes/r.md"] },
      });
      const asked = await Promise.race([
        host.asked,
        calling.then((r: unknown) =>
          assert.fail(`answered unasked: ${JSON.stringify(r)}`)
        ),
      ]);
      // The form served by A is posted to B: the instances share its key.
      const csrf = await formToken(on(a.url, asked.url));
      assert.equal(await approve(on(b.url, asked.url), csrf), 303);
      const result = await calling as Message;
      assert.equal(result.isError, undefined, JSON.stringify(result));
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "a refused call approved on another instance's page runs once on retry",
  ignore,
  fn: async () => {
    await using redis = await startRedis();
    const dir = await Deno.makeTempDir();
    try {
      // Redis named by the policy file's redis:, not by the option.
      await Deno.writeTextFile(
        `${dir}/gate.yaml`,
        `${POLICY}redis: "${redis.url}"\n`,
      );
      await using a = await instance(undefined, dir);
      await using b = await instance(undefined, dir);
      await using host = await session(a.url, {});
      const call = {
        name: "probed",
        arguments: { patterns: ["write:notes/s.md"] },
      };
      const refused = () =>
        host.client.callTool(call).then(
          () => assert.fail("the call ran"),
          (error: Message) => {
            assert.equal(error.code, -32042, error.message);
            return error.data.elicitations[0].url as string;
          },
        );
      const page = await refused();
      const onB = on(b.url, page);
      assert.equal(await approve(onB, await formToken(onB)), 303);
      const result = await host.client.callTool(call) as Message;
      assert.equal(result.isError, undefined, JSON.stringify(result));
      assert.notEqual(await refused(), page);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
