import assert from "node:assert/strict";

Deno.test("the demo drives a whole session through the SDK client, prints each step and exits 0", async () => {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-write",
      "--allow-run",
      "--allow-env",
      new URL("./demo.ts", import.meta.url).pathname,
    ],
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(output.stdout);
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  const expected = [
    /1\. Spawn the server/,
    /2\. initialize\n.*\n {3}← server hello-tool 0\.1\.0/,
    /3\. tools\/list\n {3}← hello +read-only\n {3}← write_file +side effects, answers probes/,
    /4\. tools\/call hello\n.*\n {3}← "Hello, Ada!"/,
    /← _meta: \{"forge\.patterns":\["write:notes\/today\.md"\],"forge\.always":\[\]\}/,
    /notes\/today\.md exists: false — the probe ran nothing/,
    /← "Wrote 8 bytes to notes\/today\.md"/,
    /← isError: true, path: "\.\.\/escape\.txt" leaves the root/,
    /← isError: true, data\.json:1:7: /,
    /← isError: true, path: no such file: missing\.txt/,
    /← JSON-RPC error -32602: Unknown tool: "no_such_tool"/,
    /← "Bonjour, Ada!" after \d+ ms, no restart/,
    /stderr: hello-tool: config change ignored, keeping greeting "Bonjour"/,
    /10\. Shut down/,
    /Done in \d+\.\d s\./,
  ];
  for (const pattern of expected) assert.match(stdout, pattern);
});
