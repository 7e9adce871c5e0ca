import assert from "node:assert/strict";
import { sha256Hex } from "./_sha256_hex.ts";

Deno.test("sha256Hex() gives the standard SHA-256 digest in lowercase hex", async (t) => {
  await t.step("empty input", async () => {
    assert.equal(
      await sha256Hex(new Uint8Array()),
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    );
  });
  await t.step("abc", async () => {
    assert.equal(
      await sha256Hex(new TextEncoder().encode("abc")),
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
  });
});
