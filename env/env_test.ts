import assert from "node:assert/strict";
import { inspect } from "node:util";
import { env, EnvError, type EnvVar, readEnv, Secret } from "./env.ts";

/** Reads `spec` and returns the EnvError it must throw. */
function problemsOf(
  spec: Record<string, EnvVar<unknown>>,
  source: Record<string, string>,
): EnvError {
  try {
    readEnv(spec, { source });
  } catch (err) {
    if (err instanceof EnvError) return err;
    throw err;
  }
  assert.fail("expected readEnv() to throw an EnvError");
}

Deno.test("readEnv() returns typed values and applies defaults for every kind", async (t) => {
  const spec = {
    root: env.string("HELLO_ROOT", { default: "." }),
    port: env.port("PORT", { default: 8080 }),
    timeout: env.duration("TIMEOUT", { default: "5s" }),
    verbose: env.bool("VERBOSE", { default: false }),
    mode: env.enum("MODE", ["dev", "prod"], { default: "dev" }),
    hosts: env.list("HOSTS", { default: [] }),
    token: env.secret("API_TOKEN", { default: "dev-token" }),
    url: env.url("UPSTREAM", { default: "http://127.0.0.1:9000" }),
    workers: env.int("WORKERS", { default: 4, min: 1, max: 64 }),
    ratio: env.number("RATIO", { default: 0.5 }),
  };

  await t.step("defaults when nothing is set", () => {
    const config = readEnv(spec, { source: {} });
    assert.equal(config.root, ".");
    assert.equal(config.port, 8080);
    assert.equal(config.timeout, 5000);
    assert.equal(config.verbose, false);
    assert.equal(config.mode, "dev");
    assert.deepEqual(config.hosts, []);
    assert.equal(config.token.reveal(), "dev-token");
    assert.equal(config.url.href, "http://127.0.0.1:9000/");
    assert.equal(config.workers, 4);
    assert.equal(config.ratio, 0.5);
  });

  await t.step("values from the source", () => {
    const config = readEnv(spec, {
      source: {
        HELLO_ROOT: "/srv/data",
        PORT: "9090",
        TIMEOUT: "1h30m",
        VERBOSE: "YES",
        MODE: "prod",
        HOSTS: " a.example, ,b.example ,",
        API_TOKEN: "s3cret",
        UPSTREAM: "https://api.example/v1",
        WORKERS: "64",
        RATIO: "1e-1",
      },
    });
    assert.equal(config.root, "/srv/data");
    assert.equal(config.port, 9090);
    assert.equal(config.timeout, 5_400_000);
    assert.equal(config.verbose, true);
    assert.equal(config.mode, "prod");
    assert.deepEqual(config.hosts, ["a.example", "b.example"]);
    assert.ok(config.token instanceof Secret);
    assert.equal(config.token.reveal(), "s3cret");
    assert.ok(config.url instanceof URL);
    assert.equal(config.url.pathname, "/v1");
    assert.equal(config.workers, 64);
    assert.equal(config.ratio, 0.1);
  });

  await t.step("an empty value counts as unset, so the default applies", () => {
    const config = readEnv(spec, { source: { PORT: "", HOSTS: "", MODE: "" } });
    assert.equal(config.port, 8080);
    assert.deepEqual(config.hosts, []);
    assert.equal(config.mode, "dev");
  });

  await t.step("the config is frozen and keeps declaration order", () => {
    const config = readEnv(spec, { source: {} });
    assert.ok(Object.isFrozen(config));
    assert.deepEqual(Object.keys(config), Object.keys(spec));
  });
});

Deno.test("readEnv() infers the config type from the declarations", () => {
  const config = readEnv({
    mode: env.enum("MODE", ["dev", "prod"], { default: "dev" }),
    log: env.optional(env.string("LOG_FILE")),
    port: env.port("PORT", { default: 1 }),
  }, { source: {} });
  // These assignments fail `deno check` if inference regresses.
  const mode: "dev" | "prod" = config.mode;
  const log: string | undefined = config.log;
  const port: number = config.port;
  assert.deepEqual([mode, log, port], ["dev", undefined, 1]);
});

Deno.test("readEnv() reports every missing or invalid variable in one EnvError", async (t) => {
  const spec = {
    port: env.port("PORT"),
    token: env.secret("API_TOKEN"),
    workers: env.int("WORKERS", { min: 1, max: 64 }),
    mode: env.enum("MODE", ["dev", "prod"]),
    root: env.string("HELLO_ROOT", { default: "." }),
    name: env.string("NAME"),
  };

  await t.step("all problems, in declaration order, one per line", () => {
    const err = problemsOf(spec, {
      PORT: "70000",
      WORKERS: "100",
      MODE: "Prod",
      NAME: "",
    });
    assert.equal(
      err.message,
      [
        "Invalid environment: 5 problems",
        '  PORT: expected a port number from 1 to 65535, got "70000"',
        "  API_TOKEN: required but not set: expected a secret string",
        '  WORKERS: expected an integer from 1 to 64, got "100"',
        '  MODE: expected one of "dev", "prod", got "Prod"',
        "  NAME: required but empty: expected a non-empty string",
      ].join("\n"),
    );
    assert.equal(err.name, "EnvError");
    assert.deepEqual(
      err.problems.map((p) => [p.name, p.reason, p.expected]),
      [
        ["PORT", "invalid", "a port number from 1 to 65535"],
        ["API_TOKEN", "missing", "a secret string"],
        ["WORKERS", "invalid", "an integer from 1 to 64"],
        ["MODE", "invalid", 'one of "dev", "prod"'],
        ["NAME", "missing", "a non-empty string"],
      ],
    );
  });

  await t.step("a single problem says so in the singular", () => {
    const err = problemsOf(spec, {
      PORT: "80",
      API_TOKEN: "x",
      WORKERS: "2",
      MODE: "dev",
    });
    assert.equal(
      err.message,
      "Invalid environment: 1 problem\n  NAME: required but not set: expected a non-empty string",
    );
  });

  await t.step("long values are shortened in the message", () => {
    const err = problemsOf({ port: env.port("PORT") }, {
      PORT: "9".repeat(500),
    });
    assert.match(err.message, /got "9{60}…" \(500 characters\)$/);
  });

  await t.step("control characters are escaped, not printed", () => {
    const err = problemsOf({ port: env.port("PORT") }, { PORT: "80\n\x1b[2J" });
    assert.ok(err.message.endsWith('got "80\\n\\u001b[2J"'));
  });
});

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

Deno.test("env.int() and env.number() accept only numbers within range", async (t) => {
  const workers = env.int("WORKERS", { min: 1, max: 64 });
  const ratio = env.number("RATIO", { min: 0, max: 1 });
  const read = (v: EnvVar<number>, raw: string) => v.read(raw);

  await t.step("integers, trimmed, signs and leading zeros allowed", () => {
    assert.deepEqual(read(workers, " 08 "), { ok: true, value: 8 });
    assert.deepEqual(read(workers, "+3"), { ok: true, value: 3 });
    assert.deepEqual(read(env.int("N"), "-0"), { ok: true, value: 0 });
    assert.ok(
      Object.is((read(env.int("N"), "-0") as { value: number }).value, 0),
    );
  });

  await t.step("non-integers and out-of-range values are refused", () => {
    for (const raw of ["1.5", "1e3", "0x10", "ten", "0", "65", "-1", "1_000"]) {
      assert.deepEqual(read(workers, raw), { ok: false, missing: false }, raw);
    }
    assert.deepEqual(read(env.int("N"), "9007199254740993"), {
      ok: false,
      missing: false,
    });
  });

  await t.step("numbers in decimal and exponent forms", () => {
    assert.deepEqual(read(ratio, "0.25"), { ok: true, value: 0.25 });
    assert.deepEqual(read(ratio, ".5"), { ok: true, value: 0.5 });
    assert.deepEqual(read(ratio, "5e-1"), { ok: true, value: 0.5 });
    for (const raw of ["1.5", "-0.1", "NaN", "Infinity", "0x1", "1,5", "."]) {
      assert.deepEqual(read(ratio, raw), { ok: false, missing: false }, raw);
    }
    assert.deepEqual(read(env.number("N"), "1e400"), {
      ok: false,
      missing: false,
    });
  });

  await t.step("the expected form names the range", () => {
    assert.equal(env.int("N").expected, "an integer");
    assert.equal(env.int("N", { min: 1 }).expected, "an integer >= 1");
    assert.equal(env.int("N", { max: 9 }).expected, "an integer <= 9");
    assert.equal(ratio.expected, "a number from 0 to 1");
  });

  await t.step("bad options and defaults fail at declaration", () => {
    assert.throws(() => env.int("N", { min: 5, max: 1 }), RangeError);
    assert.throws(
      () => env.int("WORKERS", { default: 0, min: 1 }),
      (err: unknown) =>
        err instanceof RangeError &&
        err.message ===
          "Invalid default for WORKERS: expected an integer >= 1, got 0",
    );
    assert.throws(() => env.int("N", { default: 1.5 }), RangeError);
    assert.throws(
      () => env.int("N", { default: "4" as unknown as number }),
      TypeError,
    );
    assert.throws(
      () => env.number("N", { min: "0" as unknown as number }),
      TypeError,
    );
  });
});

Deno.test("env.port() accepts 1-65535 only", async (t) => {
  const port = env.port("PORT");
  await t.step("valid ports", () => {
    assert.deepEqual(port.read("1"), { ok: true, value: 1 });
    assert.deepEqual(port.read(" 65535 "), { ok: true, value: 65535 });
  });
  await t.step("invalid ports", () => {
    for (const raw of ["0", "65536", "-80", "80.0", "http", "8080a"]) {
      assert.deepEqual(port.read(raw), { ok: false, missing: false }, raw);
    }
  });
  await t.step("an out-of-range default fails at declaration", () => {
    assert.throws(
      () => env.port("PORT", { default: 70000 }),
      (err: unknown) =>
        err instanceof RangeError &&
        err.message ===
          "Invalid default for PORT: expected a port number from 1 to 65535, got 70000",
    );
  });
});

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

Deno.test("env.duration() reads durations as whole milliseconds", async (t) => {
  const d = env.duration("TIMEOUT");
  const ms = (raw: string) => d.read(raw);

  await t.step("single units", () => {
    assert.deepEqual(ms("500ms"), { ok: true, value: 500 });
    assert.deepEqual(ms("5s"), { ok: true, value: 5000 });
    assert.deepEqual(ms("2m"), { ok: true, value: 120_000 });
    assert.deepEqual(ms("1h"), { ok: true, value: 3_600_000 });
    assert.deepEqual(ms("1d"), { ok: true, value: 86_400_000 });
    assert.deepEqual(ms("0"), { ok: true, value: 0 });
  });

  await t.step("combined units and fractions", () => {
    assert.deepEqual(ms("1h30m"), { ok: true, value: 5_400_000 });
    assert.deepEqual(ms("1m30s500ms"), { ok: true, value: 90_500 });
    assert.deepEqual(ms("1.5s"), { ok: true, value: 1500 });
    assert.deepEqual(ms("1.1s"), { ok: true, value: 1100 });
    assert.deepEqual(ms(".25s"), { ok: true, value: 250 });
    assert.deepEqual(ms("1.6ms"), { ok: true, value: 2 });
  });

  await t.step(
    "bare numbers, negatives, bad units and bad order are refused",
    () => {
      for (
        const raw of [
          "30",
          "-5s",
          "5 s",
          "5S",
          "5sec",
          "1h1h",
          "30m1h",
          "1s500",
          "s",
          "1.s",
          "1e3ms",
          "99999999999999999999d",
        ]
      ) {
        assert.deepEqual(ms(raw), { ok: false, missing: false }, raw);
      }
    },
  );

  await t.step("the message shows the accepted form", () => {
    const err = problemsOf({ d }, { TIMEOUT: "30" });
    assert.equal(
      err.problems[0].message,
      'TIMEOUT: expected a duration (such as 500ms, 5s, 2m, 1h30m), got "30"',
    );
  });

  await t.step("min and max, as text or milliseconds", () => {
    const bounded = env.duration("TIMEOUT", { min: 1000, max: "1h" });
    assert.equal(
      bounded.expected,
      "a duration from 1s to 1h (such as 500ms, 5s, 2m, 1h30m)",
    );
    assert.deepEqual(bounded.read("500ms"), { ok: false, missing: false });
    assert.deepEqual(bounded.read("2h"), { ok: false, missing: false });
    assert.deepEqual(bounded.read("1h"), { ok: true, value: 3_600_000 });
    assert.equal(
      env.duration("T", { min: 90_500 }).expected,
      "a duration of at least 1m30s500ms (such as 500ms, 5s, 2m, 1h30m)",
    );
  });

  await t.step(
    "defaults as text or milliseconds, checked at declaration",
    () => {
      assert.deepEqual(env.duration("T", { default: 250 }).read(undefined), {
        ok: true,
        value: 250,
      });
      assert.deepEqual(env.duration("T", { default: "2m" }).read(undefined), {
        ok: true,
        value: 120_000,
      });
      assert.throws(
        () => env.duration("T", { default: "5 seconds" }),
        RangeError,
      );
      assert.throws(() => env.duration("T", { default: -1 }), RangeError);
      assert.throws(
        () => env.duration("T", { default: "2h", max: "1h" }),
        RangeError,
      );
      assert.throws(
        () => env.duration("T", { min: "1h", max: "1m" }),
        RangeError,
      );
      assert.throws(() => env.duration("T", { max: "soon" }), TypeError);
    },
  );
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

Deno.test("readEnv() reads from a record, a function or Deno.env", async (t) => {
  await t.step("a function source", () => {
    const asked: string[] = [];
    const config = readEnv({ port: env.port("PORT") }, {
      source: (name) => {
        asked.push(name);
        return "81";
      },
    });
    assert.equal(config.port, 81);
    assert.deepEqual(asked, ["PORT"]);
  });

  await t.step("a name shared by two keys is read once", () => {
    let reads = 0;
    const config = readEnv(
      { a: env.port("PORT"), b: env.string("PORT") },
      { source: () => (reads++, "82") },
    );
    assert.deepEqual({ ...config }, { a: 82, b: "82" });
    assert.equal(reads, 1);
  });

  await t.step("a record source ignores inherited properties", () => {
    const err = problemsOf({ c: env.string("constructor") }, {});
    assert.equal(err.problems[0].reason, "missing");
  });

  await t.step("Deno.env by default", () => {
    const name = `FORGE_ENV_TEST_${crypto.randomUUID().replaceAll("-", "_")}`;
    Deno.env.set(name, "yes");
    try {
      assert.equal(readEnv({ on: env.bool(name) }).on, true);
    } finally {
      Deno.env.delete(name);
    }
  });

  await t.step("a spec key named __proto__ stays a normal key", () => {
    const spec = JSON.parse('{"__proto__": 0}');
    spec["__proto__"] = env.string("P");
    const config = readEnv(spec as Record<string, EnvVar<string>>, {
      source: { P: "x" },
    });
    assert.equal(Object.getPrototypeOf(config), Object.prototype);
    assert.equal(
      Object.getOwnPropertyDescriptor(config, "__proto__")?.value,
      "x",
    );
  });
});

Deno.test("readEnv() rejects malformed specs, sources and names with a TypeError", async (t) => {
  await t.step("a spec that is not an object", () => {
    assert.throws(
      () => readEnv(null as unknown as Record<string, EnvVar<unknown>>),
      /spec must be an object of env declarations, got null/,
    );
  });
  await t.step("a spec value that is not a declaration", () => {
    assert.throws(
      () =>
        readEnv({ port: 8080 as unknown as EnvVar<number> }, { source: {} }),
      (err: unknown) =>
        err instanceof TypeError &&
        err.message ===
          'Cannot read environment: spec key "port" is not a variable declaration: expected env.string(), env.port() or another env kind, got 8080',
    );
  });
  await t.step("a source that gives a non-string", () => {
    assert.throws(
      () =>
        readEnv({ port: env.port("PORT") }, {
          source: { PORT: 80 as unknown as string },
        }),
      /source gave 80 for PORT: expected a string or undefined/,
    );
  });
  await t.step("a source that is neither record nor function", () => {
    assert.throws(
      () =>
        readEnv({}, { source: "PORT=80" as unknown as Record<string, string> }),
      /source must be a record or a function, got "PORT=80"/,
    );
  });
  await t.step("names that the environment cannot hold", () => {
    for (const name of ["", "A=B", "A\0B"]) {
      assert.throws(() => env.string(name), TypeError, JSON.stringify(name));
    }
  });
  await t.step("options that are not an object", () => {
    assert.throws(
      () => env.port("PORT", 8080 as unknown as { default: number }),
      TypeError,
    );
  });
});

Deno.test("readEnv() accepts a custom kind written as a plain EnvVar", () => {
  const hex: EnvVar<number> = {
    name: "COLOR",
    expected: "a 6-digit hex color",
    secret: false,
    read(raw) {
      if (raw === undefined) return { ok: false, missing: true };
      return /^#[0-9a-f]{6}$/i.test(raw)
        ? { ok: true, value: parseInt(raw.slice(1), 16) }
        : { ok: false, missing: false };
    },
  };
  assert.equal(
    readEnv({ hex }, { source: { COLOR: "#00ff00" } }).hex,
    0x00ff00,
  );
  assert.equal(
    problemsOf({ hex }, { COLOR: "green" }).problems[0].message,
    'COLOR: expected a 6-digit hex color, got "green"',
  );
});

Deno.test("readEnv() names the --allow-env flag to add when permission is missing", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "forge_env_test_" });
  const script = `${dir}/main.ts`;
  await Deno.writeTextFile(
    script,
    `import { env, EnvError, readEnv } from ${
      JSON.stringify(new URL("./env.ts", import.meta.url).href)
    };
try {
  const config = readEnv({
    root: env.string("HELLO_ROOT", { default: "." }),
    config: env.string("HELLO_CONFIG", { default: "hello.json" }),
    again: env.string("HELLO_ROOT", { default: "." }),
  });
  console.log(JSON.stringify(config));
} catch (err) {
  if (!(err instanceof EnvError)) throw err;
  console.error(err.message);
  console.error(JSON.stringify(err.problems.map((p) => p.name)));
  Deno.exit(2);
}
`,
  );
  async function run(...flags: string[]) {
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--no-config", "--no-prompt", ...flags, script],
      cwd: dir,
      env: { NO_COLOR: "1", HELLO_ROOT: "/srv" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const decoder = new TextDecoder();
    return {
      code: output.code,
      stdout: decoder.decode(output.stdout),
      stderr: decoder.decode(output.stderr),
    };
  }
  try {
    await t.step(
      "no --allow-env at all: every declared name, once each",
      async () => {
        const { code, stderr } = await run();
        assert.equal(code, 2, stderr);
        assert.equal(
          stderr,
          "Cannot read environment: permission denied: run with --allow-env=HELLO_ROOT,HELLO_CONFIG\n" +
            '["HELLO_ROOT","HELLO_CONFIG"]\n',
        );
      },
    );
    await t.step(
      "a partial --allow-env: the flag still lists every name",
      async () => {
        const { code, stderr } = await run("--allow-env=HELLO_ROOT");
        assert.equal(code, 2, stderr);
        assert.equal(
          stderr,
          "Cannot read environment: permission denied: run with --allow-env=HELLO_ROOT,HELLO_CONFIG\n" +
            '["HELLO_CONFIG"]\n',
        );
      },
    );
    await t.step("the suggested flag is enough", async () => {
      const { code, stdout, stderr } = await run(
        "--allow-env=HELLO_ROOT,HELLO_CONFIG",
      );
      assert.equal(code, 0, stderr);
      assert.equal(
        stdout,
        '{"root":"/srv","config":"hello.json","again":"/srv"}\n',
      );
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
