import assert from "node:assert/strict";
import { env } from "./kinds.ts";
import { readEnv } from "./read_env.ts";
import { problemsOf } from "./_test_helpers.ts";

Deno.test("env.bool() accepts true/false, 1/0, yes/no, on/off in any case", async (t) => {
  const flag = env.bool("VERBOSE");
  await t.step("true words", () => {
    for (const raw of ["true", "TRUE", "1", "yes", "Yes", "on", " ON "]) {
      assert.deepEqual(flag.read(raw), { ok: true, value: true }, raw);
    }
  });
  await t.step("false words", () => {
    for (const raw of ["false", "False", "0", "no", "NO", "off"]) {
      assert.deepEqual(flag.read(raw), { ok: true, value: false }, raw);
    }
  });
  await t.step("anything else is refused with the accepted words", () => {
    for (const raw of ["maybe", "2", "y", "t", "enabled"]) {
      assert.deepEqual(flag.read(raw), { ok: false, missing: false }, raw);
    }
    const err = problemsOf({ flag }, { VERBOSE: "maybe" });
    assert.match(
      err.message,
      /VERBOSE: expected a boolean \(true\/false, 1\/0, yes\/no, on\/off\), got "maybe"/,
    );
  });
  await t.step("a non-boolean default fails at declaration", () => {
    assert.throws(
      () => env.bool("V", { default: "false" as unknown as boolean }),
      TypeError,
    );
  });
});

Deno.test("env.list() splits, trims and drops empty items", async (t) => {
  await t.step("comma by default", () => {
    assert.deepEqual(env.list("L").read("a, b ,,c,"), {
      ok: true,
      value: ["a", "b", "c"],
    });
  });
  await t.step("only separators is an empty list, not missing", () => {
    assert.deepEqual(env.list("L").read(" , "), { ok: true, value: [] });
  });
  await t.step("a custom separator", () => {
    const paths = env.list("PATHS", { separator: ":" });
    assert.deepEqual(paths.read("/a:/b"), { ok: true, value: ["/a", "/b"] });
    assert.equal(paths.expected, 'a list separated by ":"');
  });
  await t.step("each read gets its own copy of the default", () => {
    const defaults = ["x"];
    const list = env.list("L", { default: defaults });
    defaults.push("changed after declaring");
    const first = readEnv({ list }, { source: {} }).list;
    first.push("mutated");
    assert.deepEqual(readEnv({ list }, { source: {} }).list, ["x"]);
  });
  await t.step("bad options fail at declaration", () => {
    assert.throws(() => env.list("L", { separator: "" }), TypeError);
    assert.throws(
      () => env.list("L", { default: [1] as unknown as string[] }),
      TypeError,
    );
  });
});

Deno.test("env.enum() accepts only the declared values", async (t) => {
  const mode = env.enum("MODE", ["dev", "prod"]);
  await t.step("exact values, trimmed", () => {
    assert.deepEqual(mode.read("prod"), { ok: true, value: "prod" });
    assert.deepEqual(mode.read(" dev "), { ok: true, value: "dev" });
  });
  await t.step("other spellings are refused", () => {
    assert.deepEqual(mode.read("Prod"), { ok: false, missing: false });
    assert.deepEqual(mode.read("test"), { ok: false, missing: false });
  });
  await t.step("bad declarations fail at once", () => {
    assert.throws(() => env.enum("MODE", []), TypeError);
    assert.throws(() => env.enum("MODE", ["a", "a"]), TypeError);
    assert.throws(() => env.enum("MODE", ["a", ""]), TypeError);
    assert.throws(
      () => env.enum("MODE", ["dev", "prod"], { default: "test" as "dev" }),
      (err: unknown) =>
        err instanceof RangeError &&
        err.message ===
          'Invalid default for MODE: expected one of "dev", "prod", got "test"',
    );
  });
});

Deno.test("env.url() reads absolute URLs as fresh URL objects", async (t) => {
  await t.step("relative or malformed text is refused", () => {
    const url = env.url("UPSTREAM");
    assert.deepEqual(url.read("/path"), { ok: false, missing: false });
    assert.deepEqual(url.read("http://exa mple.com"), {
      ok: false,
      missing: false,
    });
  });
  await t.step("protocols restrict the scheme", () => {
    const url = env.url("UPSTREAM", { protocols: ["http", "https:"] });
    assert.equal(url.expected, "an absolute URL with scheme http or https");
    assert.equal(url.read("HTTPS://a.example").ok, true);
    assert.deepEqual(url.read("ftp://a.example"), {
      ok: false,
      missing: false,
    });
    assert.throws(() => env.url("U", { protocols: [] }), TypeError);
    assert.throws(
      () => env.url("U", { default: "file:///x", protocols: ["http"] }),
      RangeError,
    );
  });
  await t.step(
    "each read gets a new URL, so mutating one changes nothing else",
    () => {
      const upstream = env.url("UPSTREAM", {
        default: new URL("http://127.0.0.1:9000"),
      });
      const first = readEnv({ upstream }, { source: {} }).upstream;
      first.port = "1";
      assert.equal(readEnv({ upstream }, { source: {} }).upstream.port, "9000");
    },
  );
  await t.step("a relative default fails at declaration", () => {
    assert.throws(() => env.url("U", { default: "/x" }), RangeError);
  });
});
