// A Deno permission failure inside a tool is an isError result naming the
// flag to add, never a -32603 whose text is a wrapper's.

import assert from "node:assert/strict";
import { createServer } from "./server.ts";
import { text } from "../result/result.ts";
import { registerPatternTool } from "../probe.ts";
import { connect } from "../testing/testing.ts";
import { spawnStdio } from "../testing/stdio_client.ts";
import { permissionDenied } from "./_permission_denied.ts";

function notCapable(kind: string, value: string): Deno.errors.NotCapable {
  return new Deno.errors.NotCapable(
    `Requires ${kind} access to "${value}", run again with the --allow-${kind} flag`,
  );
}

Deno.test("permissionDenied() derives the flag from Deno's message", () => {
  assert.equal(
    permissionDenied(notCapable("write", "notes/a.txt")),
    'Permission denied: run the server with --allow-write=notes (Deno refused write access to "notes/a.txt")',
  );
  assert.equal(
    permissionDenied(notCapable("write", "a.txt")),
    'Permission denied: run the server with --allow-write=. (Deno refused write access to "a.txt")',
  );
  assert.equal(
    permissionDenied(notCapable("read", "/srv/notes")),
    'Permission denied: run the server with --allow-read=/srv/notes (Deno refused read access to "/srv/notes")',
  );
  assert.equal(
    permissionDenied(notCapable("env", "NOTES_DIR")),
    'Permission denied: run the server with --allow-env=NOTES_DIR (Deno refused env access to "NOTES_DIR")',
  );
  // Under a wrapper, through its cause.
  const wrapped = new Error("Cannot resolve file root: /srv/notes", {
    cause: notCapable("read", "/srv/notes"),
  });
  assert.match(permissionDenied(wrapped)!, /--allow-read=\/srv\/notes/);
  // The operating system's refusal is no flag's: not this.
  assert.equal(
    permissionDenied(
      new Deno.errors.PermissionDenied("Permission denied (os error 13)"),
    ),
    undefined,
  );
  assert.equal(permissionDenied(new Error("boom")), undefined);
});

Deno.test("a permission failure in a handler or a patterns function is isError naming the flag", async () => {
  const server = createServer({ name: "s", version: "1" });
  server.tool({
    name: "write",
    description: "d",
    handler: () => {
      throw notCapable("write", "notes/a.txt");
    },
  });
  registerPatternTool(server, {
    name: "save",
    description: "d",
    patterns: () => {
      throw new Error("Cannot resolve file root: /srv/notes", {
        cause: notCapable("read", "/srv/notes"),
      });
    },
    handler: () => text("never"),
  });
  await using client = await connect(server);
  assert.deepEqual(await client.call("write"), {
    content: [{
      type: "text",
      text:
        'Permission denied: run the server with --allow-write=notes (Deno refused write access to "notes/a.txt")',
    }],
    isError: true,
  });
  const expected =
    'Permission denied: run the server with --allow-read=/srv/notes (Deno refused read access to "/srv/notes")';
  assert.deepEqual(await client.call("save"), {
    content: [{ type: "text", text: expected }],
    isError: true,
  });
  await assert.rejects(client.probe("save"), {
    message: `Probe answered a domain error: ${expected}`,
  });
});

Deno.test("a server run without --allow-read/--allow-write answers the flags to add", async () => {
  const notes = await Deno.makeTempDir();
  try {
    await using server = spawnStdio(Deno.execPath(), [
      "run",
      "--quiet",
      "--no-prompt",
      new URL("./testdata/notes_server.ts", import.meta.url).pathname,
      notes,
    ], { env: { NO_COLOR: "1" } });
    await server.initialize();
    const saved = await server.call("save_note", { path: "a.md", text: "x" });
    assert.deepEqual(saved, {
      content: [{
        type: "text",
        text:
          `Permission denied: run the server with --allow-read=${notes} (Deno refused read access to ${
            JSON.stringify(notes)
          })`,
      }],
      isError: true,
    });
    const plain = await server.call("write_plain");
    assert.deepEqual(plain.content, [{
      type: "text",
      text:
        `Permission denied: run the server with --allow-write=${notes} (Deno refused write access to ${
          JSON.stringify(`${notes}/plain.txt`)
        })`,
    }]);
    assert.equal((await server.close()).code, 0);
    assert.match(server.stderr, /Tool save_note: Permission denied/);
  } finally {
    await Deno.remove(notes, { recursive: true });
  }
});
