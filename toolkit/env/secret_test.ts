import assert from "node:assert/strict";
import { Secret } from "./secret.ts";

Deno.test("Secret.equals() compares in full, whatever the length", async (t) => {
  const secret = new Secret("s3cret");
  await t.step("equal text", () => assert.equal(secret.equals("s3cret"), true));
  await t.step(
    "another Secret",
    () => assert.equal(secret.equals(new Secret("s3cret")), true),
  );
  await t.step(
    "same length, different text",
    () => assert.equal(secret.equals("s3creT"), false),
  );
  await t.step("a prefix", () => assert.equal(secret.equals("s3cre"), false));
  await t.step(
    "a longer text",
    () => assert.equal(secret.equals("s3cret!"), false),
  );
  await t.step(
    "a repetition",
    () => assert.equal(secret.equals("s3crets3cret"), false),
  );
  await t.step("empty against non-empty", () => {
    assert.equal(new Secret("").equals("x"), false);
    assert.equal(secret.equals(""), false);
    assert.equal(new Secret("").equals(""), true);
  });
  await t.step("a non-string value is refused at construction", () => {
    assert.throws(() => new Secret(42 as unknown as string), TypeError);
  });
});
