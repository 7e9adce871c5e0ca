// A real host through the gate: the MCP Inspector's CLI lists hello-tool's
// tools and calls them with the gate in between, as a user's mcpServers
// entry would run it. Slow (each Inspector run starts Node's client), hence
// a stress test.
import assert from "node:assert/strict";
import { denoDir, inspect, toolNames } from "../../examples/_inspector.ts";

const REPO = new URL("../../", import.meta.url).pathname;
const HELLO = `${REPO}examples/hello-tool/main.ts`;
const GATE = `${REPO}toolkit/gate/main.ts`;

Deno.test("the MCP Inspector CLI lists and calls hello-tool through the gate", async () => {
  const root = await Deno.makeTempDir({ prefix: "gate-inspector-" });
  const dir = await Deno.makeTempDir({ prefix: "gate-inspector-policy-" });
  try {
    const policy = `${dir}/policy.yaml`;
    await Deno.writeTextFile(
      policy,
      'allow: ["write:notes/**"]\ndeny: ["delete:**"]\nunprobed: allow\n',
    );
    const audit = `${dir}/audit.jsonl`;
    const gated = [
      Deno.execPath(),
      "run",
      "-A",
      GATE,
      "--policy",
      policy,
      "--audit",
      audit,
      "--",
      Deno.execPath(),
      "run",
      "--allow-read",
      "--allow-write",
      "--allow-env=HELLO_ROOT,HELLO_CONFIG",
      HELLO,
    ];
    // The Inspector gives the command a minimal environment; the gate
    // passes it on to the server.
    const env = [
      "-e",
      `DENO_DIR=${await denoDir()}`,
      "-e",
      `HELLO_ROOT=${root}`,
    ];
    const direct = await inspect(gated.slice(gated.indexOf("--") + 1), [
      ...env,
      "--method",
      "tools/list",
    ]);
    const listing = await inspect(gated, [...env, "--method", "tools/list"]);
    assert.deepEqual(toolNames(listing).sort(), [
      "delete_file",
      "hello",
      "write_file",
    ]);
    assert.deepEqual(listing, direct, "the gate lists the tools unchanged");

    const hello = await inspect(gated, [
      ...env,
      "--method",
      "tools/call",
      "--tool-name",
      "hello",
      "--tool-arg",
      "name=Ada",
    ]);
    assert.deepEqual(hello, {
      content: [{ type: "text", text: "Hello, Ada!" }],
    });

    const written = await inspect(gated, [
      ...env,
      "--method",
      "tools/call",
      "--tool-name",
      "write_file",
      "--tool-arg",
      "path=notes/a.txt",
      "--tool-arg",
      "content=hi",
    ]);
    assert.deepEqual(written, {
      content: [{ type: "text", text: "Wrote 2 bytes to notes/a.txt" }],
    });
    assert.equal(await Deno.readTextFile(`${root}/notes/a.txt`), "hi");

    const refused = await inspect(gated, [
      ...env,
      "--method",
      "tools/call",
      "--tool-name",
      "delete_file",
      "--tool-arg",
      "path=notes/a.txt",
    ], { exitCode: 5 }) as { isError?: boolean; content: { text: string }[] };
    assert.equal(refused.isError, true);
    assert.match(refused.content[0].text, /delete:notes\/a\.txt/);
    assert.match(refused.content[0].text, /delete:\*\*/);
    assert.equal(await Deno.readTextFile(`${root}/notes/a.txt`), "hi");

    const lines = (await Deno.readTextFile(audit)).trim().split("\n").map((
      line,
    ) => JSON.parse(line));
    assert.deepEqual(
      lines.map((line) => [line.tool, line.decision]),
      [["hello", "allow"], ["write_file", "allow"], ["delete_file", "deny"]],
    );
  } finally {
    await Deno.remove(root, { recursive: true });
    await Deno.remove(dir, { recursive: true });
  }
});
