import assert from "node:assert/strict";
import { decodeRequestStateKey, REQUEST_STATE_KEY_VARIABLE } from "./main.ts";

const MAIN = new URL("./main.ts", import.meta.url).pathname;

Deno.test("decodeRequestStateKey() reads Base64 and leaves an unset key to the server", () => {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  const encoded = btoa(String.fromCharCode(...bytes));
  assert.deepEqual(decodeRequestStateKey(encoded), bytes);
  assert.deepEqual(decodeRequestStateKey(` ${encoded}\n`), bytes);
  assert.equal(decodeRequestStateKey(undefined), undefined);
  assert.equal(decodeRequestStateKey(""), undefined);
  assert.throws(() => decodeRequestStateKey("not base64!"), {
    name: "TypeError",
    message:
      /EVERYTHING_REQUEST_STATE_KEY: expected Base64 of at least 32 bytes/,
  });
});

Deno.test("main.ts exits with status 2 and says why when the shared key is too short", async () => {
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, "--http", "127.0.0.1:0"],
    env: { [REQUEST_STATE_KEY_VARIABLE]: btoa("too short") },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  assert.equal(code, 2);
  assert.match(
    new TextDecoder().decode(stderr),
    /requestStateKey must be at least 32 bytes, got 9/,
  );
});
