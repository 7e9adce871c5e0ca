import assert from "node:assert/strict";

const RELAY = new URL("./gate_relay.ts", import.meta.url).pathname;

/** Runs the relay in `mode` in front of `cat`, writes `parts` one by one, and reads all it sends back. */
async function throughRelay(
  mode: string[],
  parts: readonly string[],
): Promise<string> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", RELAY, ...mode, "cat"],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const writer = child.stdin.getWriter();
  const encoder = new TextEncoder();
  for (const part of parts) await writer.write(encoder.encode(part));
  await writer.close();
  const [output, status] = await Promise.all([
    new Response(child.stdout).text(),
    child.status,
  ]);
  assert.equal(status.code, 0);
  return output;
}

Deno.test("gate_relay.ts --parse passes each line on parsed and serialised again", async (t) => {
  await t.step(
    "a line split across writes arrives whole, re-serialised",
    async () => {
      const output = await throughRelay(["--parse"], [
        '{ "jsonrpc" : "2.0",',
        ' "id": 1, "method": "ping" }\n{"jsonrpc":"2.0","id":2,',
        '"result":{"text":"héllo"}}\n',
      ]);
      assert.equal(
        output,
        '{"jsonrpc":"2.0","id":1,"method":"ping"}\n' +
          '{"jsonrpc":"2.0","id":2,"result":{"text":"héllo"}}\n',
      );
    },
  );
  await t.step(
    "the byte relay passes the same bytes on untouched",
    async () => {
      const output = await throughRelay([], ['{ "id" : 1 }\n']);
      assert.equal(output, '{ "id" : 1 }\n');
    },
  );
});
