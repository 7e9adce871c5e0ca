import assert from "node:assert/strict";
import type { EnvVar } from "./env_var.ts";
import { env } from "./kinds.ts";
import { readEnv } from "./read_env.ts";
import { problemsOf } from "./_test_helpers.ts";

Deno.test("env.optional() gives undefined when unset and still validates when set", async (t) => {
  const spec = { workers: env.optional(env.int("WORKERS", { min: 1 })) };
  await t.step("unset", () => {
    assert.equal(readEnv(spec, { source: {} }).workers, undefined);
  });
  await t.step("set", () => {
    assert.equal(readEnv(spec, { source: { WORKERS: "3" } }).workers, 3);
  });
  await t.step("invalid", () => {
    assert.equal(
      problemsOf(spec, { WORKERS: "0" }).problems[0].message,
      'WORKERS: expected an integer >= 1, got "0"',
    );
  });
  await t.step("a non-declaration is refused", () => {
    assert.throws(() => env.optional({} as EnvVar<string>), TypeError);
  });
});
