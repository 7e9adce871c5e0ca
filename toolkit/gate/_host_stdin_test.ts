// The gate's default host side, as a real process: stdin a pipe (read as a
// socket), a file or /dev/null (read through Deno.stdin), stdout a pipe or a
// file.

import assert from "node:assert/strict";
import { HELLO_COMMAND } from "./testdata/gate_process.ts";

const MAIN = new URL("./main.ts", import.meta.url).pathname;

const REQUESTS = [
  {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "gate-stdin-test", version: "1" },
    },
  },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  ...Array.from({ length: 50 }, (_, i) => ({
    jsonrpc: "2.0",
    id: i + 2,
    method: "tools/call",
    params: { name: "hello", arguments: { name: `Ada ${i}` } },
  })),
];

function quote(part: string): string {
  return `'${part.replaceAll("'", `'\\''`)}'`;
}

async function run(
  shell: string,
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const { code, stdout, stderr } = await new Deno.Command("sh", {
    args: ["-c", shell],
    env: { NO_COLOR: "1", ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder();
  return { code, stdout: text.decode(stdout), stderr: text.decode(stderr) };
}

function checkAnswers(stdout: string): void {
  const answers = stdout.split("\n").filter((line) => line !== "").map((
    line,
  ) => JSON.parse(line));
  assert.deepEqual(
    answers.map((answer) => answer.id),
    Array.from({ length: 51 }, (_, i) => i + 1),
  );
  for (const [i, answer] of answers.slice(1).entries()) {
    assert.equal(answer.result?.isError, undefined, JSON.stringify(answer));
    assert.match(JSON.stringify(answer.result.content), new RegExp(`Ada ${i}`));
  }
}

Deno.test({
  name:
    "the gate answers a host whose stdin is a pipe, a file or /dev/null, and exits 0 at its end",
  ignore: Deno.build.os === "windows",
  async fn(t) {
    const dir = await Deno.makeTempDir();
    try {
      const policy = `${dir}/policy.json`;
      await Deno.writeTextFile(policy, JSON.stringify({ unprobed: "allow" }));
      const input = `${dir}/requests.jsonl`;
      await Deno.writeTextFile(
        input,
        REQUESTS.map((r) => JSON.stringify(r)).join("\n") + "\n",
      );
      const gate = [
        Deno.execPath(),
        "run",
        "-A",
        MAIN,
        "--policy",
        policy,
        "--",
      ]
        .concat(HELLO_COMMAND).map(quote).join(" ");
      const env = { INPUT: input, OUTPUT: `${dir}/answers.jsonl` };
      await t.step("stdin and stdout pipes", async () => {
        const result = await run(`cat "$INPUT" | ${gate} | cat`, env);
        assert.equal(result.code, 0, result.stderr);
        checkAnswers(result.stdout);
      });
      await t.step("stdin a file", async () => {
        const result = await run(`${gate} < "$INPUT" | cat`, env);
        assert.equal(result.code, 0, result.stderr);
        checkAnswers(result.stdout);
      });
      await t.step("stdout a file", async () => {
        const result = await run(`cat "$INPUT" | ${gate} > "$OUTPUT"`, env);
        assert.equal(result.code, 0, result.stderr);
        checkAnswers(await Deno.readTextFile(env.OUTPUT));
      });
      await t.step("stdin /dev/null", async () => {
        const result = await run(`${gate} < /dev/null`, env);
        assert.equal(result.code, 0, result.stderr);
        assert.equal(result.stdout, "");
      });
      await t.step("stdin closed", async () => {
        const result = await run(`${gate} <&-`, env);
        assert.equal(result.code, 0, result.stderr);
        assert.equal(result.stdout, "");
      });
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
