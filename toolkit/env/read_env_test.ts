import assert from "node:assert/strict";
import type { EnvVar } from "./env_var.ts";
import { env } from "./kinds.ts";
import { readEnv } from "./read_env.ts";
import { Secret } from "./secret.ts";
import { problemsOf } from "./_test_helpers.ts";

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
      JSON.stringify(new URL("./mod.ts", import.meta.url).href)
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
