import assert from "node:assert/strict";
import { spawnServer } from "./_server_process.ts";

const DENO = Deno.execPath();

function evalCommand(code: string): string[] {
  return [DENO, "eval", "--quiet", code];
}

// A copy of stdin to stdout, in Deno so that the test runs wherever it does.
const CAT = evalCommand(
  "await Deno.stdin.readable.pipeTo(Deno.stdout.writable)",
);

async function readAll(
  readable: ReadableStream<Uint8Array>,
): Promise<Uint8Array> {
  return new Uint8Array(await new Response(readable).arrayBuffer());
}

Deno.test("spawnServer() throws NotFound for a program that does not exist", async () => {
  await assert.rejects(
    spawnServer(["forge-no-such-program-x"], undefined),
    Deno.errors.NotFound,
  );
});

Deno.test("spawnServer() adds env to the gate's environment", async () => {
  const server = await spawnServer(
    evalCommand(
      'console.log(JSON.stringify([Deno.env.get("FORGE_TEST_X"), Deno.env.get("PATH") !== undefined]))',
    ),
    { FORGE_TEST_X: "added" },
  );
  const out = new TextDecoder().decode(await readAll(server.stdout));
  assert.deepEqual(JSON.parse(out), ["added", true]);
  assert.equal((await server.status).code, 0);
});

Deno.test("spawnServer() passes a large write through in order and closes stdin after it", async () => {
  const server = await spawnServer(CAT, undefined);
  // Far more than a pipe holds: the writes wait for the server to read.
  const data = new Uint8Array(8 * 1024 * 1024);
  for (let i = 0; i < data.length; i++) data[i] = (i * 7 + (i >> 12)) & 0xff;
  const received = readAll(server.stdout);
  const writer = server.stdin.getWriter();
  for (let at = 0; at < data.length; at += 1 << 20) {
    await writer.write(data.subarray(at, at + (1 << 20)));
  }
  await server.closeStdin();
  const out = await received;
  assert.equal(out.length, data.length);
  assert.ok(out.every((byte, i) => byte === data[i]), "bytes differ");
  const status = await server.status;
  assert.deepEqual(status, { success: true, code: 0, signal: null });
});

Deno.test("spawnServer() reports exits as Deno.ChildProcess does", async (t) => {
  await t.step("a status code", async () => {
    const server = await spawnServer(evalCommand("Deno.exit(3)"), undefined);
    await server.stdout.cancel();
    assert.deepEqual(await server.status, {
      success: false,
      code: 3,
      signal: null,
    });
  });
  await t.step("a signal, and a kill after the exit does nothing", async () => {
    const server = await spawnServer(CAT, undefined);
    server.kill("SIGTERM");
    assert.deepEqual(await server.status, {
      success: false,
      code: 143,
      signal: "SIGTERM",
    });
    server.kill("SIGKILL");
    assert.equal((await readAll(server.stdout)).length, 0);
    await server.closeStdin();
  });
});

Deno.test("spawnServer()'s stdin write rejects once the server has gone", async () => {
  const server = await spawnServer(evalCommand("Deno.exit(0)"), undefined);
  await readAll(server.stdout);
  await server.status;
  const writer = server.stdin.getWriter();
  await assert.rejects(async () => {
    // The first writes may land in the pipe's buffer before EPIPE shows.
    for (let i = 0; i < 100; i++) await writer.write(new Uint8Array(65536));
  });
  await server.closeStdin();
});
