// The gate as a service, with real parts: two gate instances serving HTTP
// (gate/main.ts --http) in front of one examples/everything --http
// upstream, and nginx in front of them running deploy/nginx.conf. A
// 2025-11-25 session lives in one instance's memory, so nginx must bring
// each of its requests back there; 2026-07-28 requests and initialize go
// anywhere.

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  call,
  sharedKey,
  startInstance,
} from "../../examples/everything/_scale_out_test_helpers.ts";
import { installed } from "../redis/_test_redis.ts";
import { startGateNginx, startHttpGate } from "./testdata/gate_nginx.ts";

const ignore = !installed("nginx");

const POLICY = `
unprobed: allow
tools:
  test_image_content: deny
`;
const SESSIONS = 12;
const SIMPLE_TEXT = "This is a simple text response for testing.";

interface AuditLine {
  tool: string;
  outcome: string;
}

async function audit(file: string): Promise<AuditLine[]> {
  const text = await Deno.readTextFile(file).catch(() => "");
  return text.split("\n").filter((line) => line !== "").map((line) =>
    JSON.parse(line)
  );
}

function count(lines: AuditLine[], outcome: string): number {
  return lines.filter((line) => line.outcome === outcome).length;
}

async function session(url: string) {
  const client = new Client({ name: "gate-nginx-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  // A stream broken by a killed instance is the test's doing, not news.
  client.onerror = () => {};
  await client.connect(transport);
  return { client, transport };
}

function textOf(result: Record<string, unknown>): string {
  return (result.content as { text?: string }[] | undefined)?.[0]?.text ?? "";
}

Deno.test({
  name:
    "Behind nginx, two gate instances serve many sessions, each on its own instance, and a killed one ends only its own",
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const dir = await Deno.makeTempDir({ prefix: "forge_gate_nginx_test_" });
    const policy = `${dir}/gate.yaml`;
    await Deno.writeTextFile(policy, POLICY);
    const audits = [`${dir}/a.jsonl`, `${dir}/b.jsonl`] as const;
    const upstream = await startInstance({ key: sharedKey() });
    const gates = await Promise.all(audits.map((file) =>
      startHttpGate([
        "--policy",
        policy,
        "--audit",
        file,
        "--url",
        `${upstream.origin}/mcp`,
      ])
    ));
    const nginx = await startGateNginx([gates[0].url, gates[1].url]);
    const sessions: Awaited<ReturnType<typeof session>>[] = [];
    try {
      await t.step(
        "every session's calls and denials work through nginx",
        async () => {
          for (let i = 0; i < SESSIONS; i++) {
            sessions.push(await session(nginx.url));
          }
          await Promise.all(sessions.map(async ({ client }) => {
            const allowed = await client.callTool({
              name: "test_simple_text",
              arguments: {},
            });
            assert.equal(textOf(allowed), SIMPLE_TEXT);
            const denied = await client.callTool({
              name: "test_image_content",
              arguments: {},
            });
            assert.equal(denied.isError, true, JSON.stringify(denied));
            assert.match(textOf(denied), /tools\.test_image_content/);
          }));
        },
      );

      const tags = sessions.map(({ transport }) => transport.sessionId!.at(0));
      await t.step(
        "sessions land on both instances, each on the one its id names",
        async () => {
          const onA = tags.filter((tag) => tag === "a").length;
          assert.ok(
            onA > 0 && onA < SESSIONS,
            `sessions on a: ${onA} of ${SESSIONS}`,
          );
          // Each session's two calls were decided by the instance it was
          // made on: a's audit holds exactly those of the "a." sessions.
          const [a, b] = await Promise.all(audits.map(audit));
          assert.equal(count(a, "forwarded"), onA);
          assert.equal(count(a, "denied"), onA);
          assert.equal(count(b, "forwarded"), SESSIONS - onA);
          assert.equal(count(b, "denied"), SESSIONS - onA);
        },
      );

      await t.step("2026-07-28 requests go to any instance", async () => {
        const before = await Promise.all(audits.map(audit));
        for (let i = 0; i < 4; i++) {
          const result = await call(nginx.url, "tools/call", {
            name: "test_simple_text",
            arguments: {},
          });
          assert.equal(textOf(result), SIMPLE_TEXT);
        }
        const after = await Promise.all(audits.map(audit));
        // Round robin: each instance took some of them.
        assert.ok(after[0].length > before[0].length, "none on a");
        assert.ok(after[1].length > before[1].length, "none on b");
        assert.equal(
          after[0].length + after[1].length,
          before[0].length + before[1].length + 4,
        );
      });

      await t.step("killing one instance ends only its sessions", async () => {
        await gates[0].kill();
        await Promise.all(sessions.map(async ({ client }, i) => {
          const calling = client.callTool({
            name: "test_simple_text",
            arguments: {},
          });
          if (tags[i] === "a") {
            // 404: the session is gone, and the client should start anew.
            await assert.rejects(calling, /404/);
          } else {
            assert.equal(textOf(await calling), SIMPLE_TEXT);
          }
        }));
        // A new session, and 2026-07-28 requests, reach the living one.
        const fresh = await session(nginx.url);
        sessions.push(fresh);
        assert.equal(fresh.transport.sessionId!.at(0), "b");
        assert.equal(
          textOf(
            await fresh.client.callTool({
              name: "test_simple_text",
              arguments: {},
            }),
          ),
          SIMPLE_TEXT,
        );
        for (let i = 0; i < 3; i++) {
          const result = await call(nginx.url, "tools/call", {
            name: "test_simple_text",
            arguments: {},
          });
          assert.equal(textOf(result), SIMPLE_TEXT);
        }
      });
    } finally {
      await Promise.all(
        sessions.map(({ client }) => client.close().catch(() => {})),
      );
      await nginx.stop();
      await Promise.all(gates.map((gate) => gate.stop()));
      await upstream.stop();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
