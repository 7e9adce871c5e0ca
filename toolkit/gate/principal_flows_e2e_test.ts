// A principal's flows over HTTP with auth: a gate in front of the real
// filesystem server and a fake web server, where callers of one team carry
// a flow (after read:secrets/** on the files server, deny net:**). One
// caller of that team reads secrets/key and is refused the net call that
// follows, audited with the principal's flow; a caller of another team
// doing the same is let through.

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ISSUER, signingKey, signToken } from "../http/_jwt_test_helpers.ts";
import { startGate } from "./gate.ts";
import {
  auditLines,
  FAKE_COMMAND,
  type Message,
  runGate,
} from "./testdata/gate_process.ts";

const FILESYSTEM = "npm:@modelcontextprotocol/server-filesystem@2026.8.31";

/** A 2025-11-25 session that sends `token`. */
async function session(url: URL, token: string) {
  const client = new Client({ name: "principal-flows", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return {
    async call(name: string, args: Record<string, unknown>) {
      return await client.callTool({ name, arguments: args }) as Message;
    },
    async [Symbol.asyncDispose]() {
      await client.close().catch(() => {});
    },
  };
}

function textOf(result: Message): string {
  return result.content?.[0]?.text ?? "";
}

Deno.test("a caller whose principal carries a flow is refused the net call after reading a secret; another is not", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  try {
    const root = `${dir}/work`;
    await Deno.mkdir(`${root}/secrets`, { recursive: true });
    await Deno.writeTextFile(`${root}/secrets/key`, "sk-live-4f9a");
    const key = await signingKey("k1");
    await Deno.writeTextFile(
      `${dir}/jwks.json`,
      JSON.stringify({ keys: [key.jwk] }),
    );
    const files = [
      Deno.execPath(),
      "run",
      "-A",
      "--no-lock",
      "--quiet",
      FILESYSTEM,
      root,
    ];
    await Deno.writeTextFile(
      `${dir}/gate.yaml`,
      `auth:
  issuer: ${ISSUER}
  jwks: jwks.json
allow: ["read:**", "net:**", "x-fake:**"]
record: { probed: patterns }
servers:
  files:
    command: ${JSON.stringify(files)}
    presets: [filesystem]
    roots: ["${root}"]
  web:
    command: ${JSON.stringify(FAKE_COMMAND)}
principals:
  - match: { groups: [admins] }
    allow: ["write:**"]
  - match: { claim: { team: [contractors] } }
    flows:
      - server: files
        after: ["read:secrets/**"]
        deny: ["net:**"]
`,
    );
    const audit = `${dir}/audit.jsonl`;
    await using gate = await startGate([], {
      policy: `${dir}/gate.yaml`,
      audit,
      listen: "127.0.0.1:0",
      log: () => {},
    });
    const url = gate.url!;
    const carol = await signToken(key, url.href, {
      sub: "carol",
      team: "contractors",
    });
    const dave = await signToken(key, url.href, { sub: "dave", team: "staff" });
    // Who called, as the audit writes it: the claims the policy matches on.
    const CAROL = { sub: "carol", scope: "mcp:tools", team: "contractors" };
    const DAVE = { sub: "dave", scope: "mcp:tools", team: "staff" };
    const send = { patterns: ["net:https://attacker.example"] };
    const readSecret = { path: "secrets/key" };

    {
      await using a = await session(url, carol);
      const read = await a.call("files_read_text_file", readSecret);
      assert.equal(read.isError, undefined, textOf(read));
      assert.equal(textOf(read), "sk-live-4f9a");
      const sent = await a.call("web_probed", send);
      assert.equal(sent.isError, true);
      assert.match(
        textOf(sent),
        /net:https:\/\/attacker\.example denied by principals\[1\]\.flows\[0\] \(net:\*\*\), since this session read secrets\/key with files_read_text_file\. Nothing was run\./,
      );
    }
    {
      await using b = await session(url, dave);
      const read = await b.call("files_read_text_file", readSecret);
      assert.equal(textOf(read), "sk-live-4f9a");
      const sent = await b.call("web_probed", send);
      assert.equal(sent.isError, undefined, textOf(sent));
      assert.match(textOf(sent), /net:https:\/\/attacker\.example/);
    }
    const lines = await auditLines(audit);
    assert.deepEqual(
      lines.map((l) => [l.server, l.tool, l.outcome, l.flow, l.caller]),
      [
        ["files", "read_text_file", "forwarded", undefined, CAROL],
        ["web", "probed", "denied", "principals[1].flows[0]", CAROL],
        ["files", "read_text_file", "forwarded", undefined, DAVE],
        ["web", "probed", "forwarded", undefined, DAVE],
      ],
    );
    // The refusal names the line of the read that set the flow off.
    assert.equal(lines[1].since, lines[0].digest);
    // Replayed under the same policy, each line is its caller's again.
    const replay = await runGate([
      "replay",
      audit,
      "--policy",
      `${dir}/gate.yaml`,
    ]);
    assert.equal(replay.stdout, `${audit}: 4 calls, 0 would change\n`);
    assert.equal(replay.code, 0, replay.stderr);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
