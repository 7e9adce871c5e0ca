import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import {
  loadFdPipes,
  pipeReadable,
  pipeWritable,
  socketSink,
  socketSource,
  takePipeSink,
  takePipeSource,
} from "./_fd_pipe.ts";

const DENO = Deno.execPath();
const POSIX = Deno.build.os !== "windows";
const STDIO = new URL("./mod.ts", import.meta.url).href;
const PIPE = new URL("./_fd_pipe.ts", import.meta.url).href;

// An echo over StdioTransport's default stdin and stdout: each message comes
// back as the result of a request with its id.
const ECHO_SERVER = `
import { StdioTransport } from "${STDIO}";
const transport = new StdioTransport();
transport.onmessage = (m) => transport.send({ jsonrpc: "2.0", id: m.id, result: { n: m.params.n } });
transport.onend = async () => { await transport.close(); };
await transport.start();
`;

function requests(count: number, pad = 0): string {
  const filler = "x".repeat(pad);
  let text = "";
  for (let n = 0; n < count; n++) {
    text += JSON.stringify({
      jsonrpc: "2.0",
      id: n,
      method: "echo",
      params: { n, filler },
    }) + "\n";
  }
  return text;
}

function answeredInOrder(stdout: string, count: number): void {
  const lines = stdout.split("\n").filter((line) => line !== "");
  assert.equal(lines.length, count);
  lines.forEach((line, n) => {
    assert.deepEqual(JSON.parse(line), {
      jsonrpc: "2.0",
      id: n,
      result: { n },
    });
  });
}

async function runShell(
  script: string,
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const { code, stdout, stderr } = await new Deno.Command("sh", {
    args: ["-c", script],
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder();
  return { code, stdout: text.decode(stdout), stderr: text.decode(stderr) };
}

// Copies stdin to stdout with stdinSource() and stdoutSink(), then says on
// stderr which path each ended on; with LOAD set it loads the sockets first,
// as the gate does.
const COPY = `
import { loadFdPipes, stdinSource, stdoutSink } from "${PIPE}";
if (Deno.env.get("LOAD")) await loadFdPipes();
const source = stdinSource();
const sink = stdoutSink();
for (let chunk = await source.read(); chunk !== null; chunk = await source.read()) {
  await sink.write(chunk);
}
console.error(source.path, sink.path);
`;

Deno.test({
  name:
    "loadFdPipes() tells pipes and sockets from files, terminals and bad fds",
  ignore: !POSIX,
  async fn() {
    const pipes = await loadFdPipes();
    assert.ok(pipes !== undefined);
    const file = await Deno.makeTempFile();
    const fd = openSync(file, "r");
    try {
      assert.equal(pipes.isPipe(fd), false);
    } finally {
      closeSync(fd);
      await Deno.remove(file);
    }
    assert.equal(pipes.isPipe(987_654), false);
    const child = spawn(DENO, [
      "eval",
      `import { loadFdPipes } from "${PIPE}"; const p = await loadFdPipes(); console.log(p.isPipe(0), p.isPipe(2))`,
    ], { stdio: ["pipe", "pipe", "ignore"] });
    child.stdin!.end();
    const out = await new Response(pipeReadable(socketSource(child.stdout!)))
      .text();
    // stdin is a pipe; stderr is /dev/null.
    assert.equal(out.trim(), "true false");
  },
});

Deno.test({
  name:
    "stdinSource() and stdoutSink() move a pipe onto a socket once the program loaded them, and keep every byte in order",
  ignore: !POSIX,
  async fn(t) {
    const dir = await Deno.makeTempDir();
    try {
      const copy = `${dir}/copy.ts`;
      await Deno.writeTextFile(copy, COPY);
      const input = `${dir}/input.bin`;
      const data = new Uint8Array(12 * 1024 * 1024);
      for (let i = 0; i < data.length; i++) {
        data[i] = (i * 31 + (i >> 16)) & 0xff;
      }
      await Deno.writeFile(input, data);
      const env = {
        DENO,
        COPY: copy,
        INPUT: input,
        OUTPUT: `${dir}/out.bin`,
        LOAD: "1",
      };
      const same = async () => {
        const out = await Deno.readFile(env.OUTPUT);
        assert.equal(out.length, data.length);
        assert.ok(out.every((byte, i) => byte === data[i]), "bytes differ");
      };
      await t.step("both pipes", async () => {
        const run = await runShell(
          `cat "$INPUT" | "$DENO" run -A "$COPY" | cat > "$OUTPUT"`,
          env,
        );
        assert.equal(run.code, 0, run.stderr);
        assert.equal(run.stderr.trim(), "socket socket");
        await same();
      });
      await t.step("stdin a file, stdout a pipe", async () => {
        const run = await runShell(
          `"$DENO" run -A "$COPY" < "$INPUT" | cat > "$OUTPUT"`,
          env,
        );
        assert.equal(run.code, 0, run.stderr);
        assert.equal(run.stderr.trim(), "deno socket");
        await same();
      });
      await t.step("stdin a pipe, stdout a file", async () => {
        const run = await runShell(
          `cat "$INPUT" | "$DENO" run -A "$COPY" > "$OUTPUT"`,
          env,
        );
        assert.equal(run.code, 0, run.stderr);
        assert.equal(run.stderr.trim(), "socket deno");
        await same();
      });
      await t.step(
        "both pipes, sockets not loaded: the Deno path",
        async () => {
          // A stdio server does not load node:net: about 10 MiB of peak RSS
          // and a slower exit at stdin EOF (docs/benchmarks.md).
          const run = await runShell(
            `cat "$INPUT" | "$DENO" run -A "$COPY" | cat > "$OUTPUT"`,
            { ...env, LOAD: "" },
          );
          assert.equal(run.code, 0, run.stderr);
          assert.equal(run.stderr.trim(), "deno deno");
          await same();
        },
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "StdioTransport answers every message in order with stdin a pipe, a file or /dev/null",
  ignore: !POSIX,
  async fn(t) {
    const dir = await Deno.makeTempDir();
    try {
      const server = `${dir}/echo_server.ts`;
      await Deno.writeTextFile(server, ECHO_SERVER);
      const input = `${dir}/requests.jsonl`;
      // 20 000 messages of ~1 KiB: far more than a pipe holds, so the
      // writer and the reader wait on each other both ways.
      const count = 20_000;
      await Deno.writeTextFile(input, requests(count, 1000));
      const env = { DENO, SERVER: server, INPUT: input };
      await t.step("a pipe", async () => {
        const run = await runShell(
          `cat "$INPUT" | "$DENO" run -A "$SERVER" | cat`,
          env,
        );
        assert.equal(run.code, 0, run.stderr);
        answeredInOrder(run.stdout, count);
      });
      await t.step("a file", async () => {
        const run = await runShell(
          `"$DENO" run -A "$SERVER" < "$INPUT" | cat`,
          env,
        );
        assert.equal(run.code, 0, run.stderr);
        answeredInOrder(run.stdout, count);
      });
      await t.step("/dev/null ends at once", async () => {
        const run = await runShell(
          `"$DENO" run -A "$SERVER" < /dev/null`,
          env,
        );
        assert.equal(run.code, 0, run.stderr);
        assert.equal(run.stdout, "");
      });
      await t.step("a pipe, with stdout a file", async () => {
        const output = `${dir}/answers.jsonl`;
        const run = await runShell(
          `cat "$INPUT" | "$DENO" run -A "$SERVER" > "$OUTPUT"`,
          { ...env, OUTPUT: output },
        );
        assert.equal(run.code, 0, run.stderr);
        answeredInOrder(await Deno.readTextFile(output), count);
      });
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "socketSource() ends with null and holds the writer back until it is read",
  ignore: !POSIX,
  async fn() {
    const size = 16 * 1024 * 1024;
    // The writer exits once all of its bytes are in the pipe.
    const child = spawn(DENO, [
      "eval",
      `const data = new Uint8Array(${size}); for (let i = 0; i < data.length; i++) data[i] = i % 251;
       const w = Deno.stdout.writable.getWriter(); await w.write(data); await w.close();`,
    ], { stdio: ["ignore", "pipe", "inherit"] });
    let exited = false;
    const exit = new Promise<void>((resolve) =>
      child.once("exit", () => {
        exited = true;
        resolve();
      })
    );
    const source = socketSource(child.stdout!);
    const first = await source.read();
    assert.ok(first !== null && first.length > 0);
    // Time itself: a writer held back shows only as an exit that does not
    // come, so it gets long enough that it would have finished otherwise.
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(exited, false, "the writer finished while nothing was read");
    let received = first.length;
    let ordered = first.every((byte, i) => byte === i % 251);
    for (
      let chunk = await source.read();
      chunk !== null;
      chunk = await source.read()
    ) {
      const at = received;
      ordered &&= chunk.every((byte, i) => byte === (at + i) % 251);
      received += chunk.length;
    }
    assert.equal(received, size);
    assert.ok(ordered, "bytes arrived out of order");
    assert.equal(await source.read(), null);
    await exit;
  },
});

Deno.test({
  name:
    "socketSink() resolves a large write once it is passed on, and rejects once the reader has gone",
  ignore: !POSIX,
  async fn() {
    const child = spawn(DENO, [
      "eval",
      `let n = 0; for await (const c of Deno.stdin.readable) n += c.length; console.log(n);`,
    ], { stdio: ["pipe", "pipe", "inherit"] });
    const out = new Response(pipeReadable(socketSource(child.stdout!))).text();
    const sink = socketSink(child.stdin!);
    const size = 8 * 1024 * 1024;
    await sink.write(new Uint8Array(size));
    await sink.write(new Uint8Array(size));
    child.stdin!.end();
    assert.equal(Number((await out).trim()), 2 * size);
    await new Promise((resolve) => child.once("exit", resolve));
    await assert.rejects(async () => {
      for (let i = 0; i < 100; i++) await sink.write(new Uint8Array(65536));
    });
  },
});

Deno.test("takePipeSource() and takePipeSink() take only streams made over pipes, once", async () => {
  const source = {
    read: () => Promise.resolve(null),
    cancel: () => Promise.resolve(),
  };
  const readable = pipeReadable(source);
  assert.equal(takePipeSource(readable), source);
  assert.equal(readable.locked, true);
  assert.equal(takePipeSource(readable), undefined);
  assert.equal(takePipeSource(new ReadableStream()), undefined);
  const written: number[] = [];
  const sink = {
    write: (bytes: Uint8Array) => {
      written.push(...bytes);
      return Promise.resolve();
    },
    release() {},
  };
  const writable = pipeWritable(sink);
  assert.equal(takePipeSink(writable), sink);
  assert.equal(takePipeSink(writable), undefined);
  assert.equal(takePipeSink(new WritableStream()), undefined);
  // As web streams they carry the same bytes.
  const more = [new Uint8Array([4]), new Uint8Array([5])];
  const other = pipeReadable({
    read: () => Promise.resolve(more.shift() ?? null),
    cancel: () => Promise.resolve(),
  });
  await other.pipeTo(pipeWritable(sink));
  assert.deepEqual(written, [4, 5]);
});

Deno.test({
  name:
    "loadFdPipes() tells stdout shared with stderr (2>&1) apart, so stdoutSink() keeps that pipe blocking",
  ignore: !POSIX,
  async fn() {
    const script =
      `import { loadFdPipes } from "${PIPE}"; const p = await loadFdPipes(); console.log(p.sharedWithStderr(1))`;
    const run = async (redirect: string) => {
      const { stdout } = await new Deno.Command("sh", {
        args: ["-c", `"$DENO" eval "$SCRIPT" ${redirect}`],
        env: { DENO, SCRIPT: script },
        stdout: "piped",
        stderr: "piped",
      }).output();
      return new TextDecoder().decode(stdout).trim();
    };
    assert.equal(await run("2>&1"), "true");
    assert.equal(await run(""), "false");
  },
});
