import assert from "node:assert/strict";

const MAIN = new URL("./main.ts", import.meta.url).pathname;

async function init(
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "--allow-write", MAIN, ...args],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code, stdout: decode(stdout), stderr: decode(stderr) };
}

for (const flag of ["--help", "-h"]) {
  Deno.test(`init ${flag} prints the usage to stdout and exits 0`, async () => {
    const { code, stdout, stderr } = await init(flag);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /^Usage: deno run .*template\/init\/main\.ts/);
    assert.match(stdout, /--published/);
    assert.equal(stderr, "");
  });
}

Deno.test("init without a directory prints the usage to stderr and exits 2", async () => {
  const { code, stdout, stderr } = await init();
  assert.equal(code, 2);
  assert.equal(stdout, "");
  assert.match(stderr, /^Usage: /);
});

Deno.test("init refuses an unknown option with exit 2", async () => {
  const { code, stderr } = await init("--force", "somewhere");
  assert.equal(code, 2);
  assert.match(stderr, /Unknown option: --force/);
});
