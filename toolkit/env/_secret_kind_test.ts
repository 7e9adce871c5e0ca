import assert from "node:assert/strict";
import { inspect } from "node:util";
import { env } from "./kinds.ts";
import { readEnv } from "./read_env.ts";
import { problemsOf } from "./_test_helpers.ts";

Deno.test("readEnv() never puts a secret value in a message or a printout", async (t) => {
  const value = "hunter2-very-secret";

  await t.step("a too-short secret is described by its length only", () => {
    const err = problemsOf(
      { token: env.secret("API_TOKEN", { minLength: 32 }) },
      { API_TOKEN: value },
    );
    assert.equal(
      err.message,
      "Invalid environment: 1 problem\n  API_TOKEN: expected a secret of at least 32 characters, got a value of 19 characters",
    );
    assert.ok(!JSON.stringify(err.problems).includes("hunter2"));
    assert.ok(!Deno.inspect(err).includes("hunter2"));
  });

  await t.step("an optional secret that is invalid is still not echoed", () => {
    const err = problemsOf(
      { token: env.optional(env.secret("API_TOKEN", { minLength: 32 })) },
      { API_TOKEN: value },
    );
    assert.ok(!err.message.includes("hunter2"));
  });

  await t.step(
    "String, JSON, template literals, Deno.inspect and util.inspect print [redacted]",
    () => {
      const config = readEnv({ token: env.secret("API_TOKEN") }, {
        source: { API_TOKEN: value },
      });
      assert.equal(String(config.token), "[redacted]");
      assert.equal(`${config.token}`, "[redacted]");
      assert.equal(JSON.stringify(config), '{"token":"[redacted]"}');
      assert.equal(Deno.inspect(config), "{ token: [redacted] }");
      assert.equal(Deno.inspect(config.token), "[redacted]");
      assert.equal(inspect(config), "{ token: [redacted] }");
      assert.ok(!String(config).includes("hunter2"));
      assert.equal(config.token.reveal(), value);
    },
  );

  await t.step(
    "a secret's default with a bad length is reported without its value",
    () => {
      assert.throws(
        () => env.secret("API_TOKEN", { default: "short", minLength: 8 }),
        (err: unknown) =>
          err instanceof RangeError &&
          err.message ===
            "Invalid default for API_TOKEN: expected a secret of at least 8 characters, got a value of 5 characters",
      );
    },
  );
});
