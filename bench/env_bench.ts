// cd bench && deno bench -A env_bench.ts
//
// Cost of reading a typical server config at start-up, against hand-written
// parsing of the same variables, with values from a record and from Deno.env.
import { env, readEnv } from "@forge/toolkit/env";

const SOURCE: Record<string, string> = {
  HELLO_ROOT: "/srv/data",
  PORT: "9090",
  TIMEOUT: "1h30m",
  VERBOSE: "yes",
  MODE: "prod",
  HOSTS: "a.example, b.example, c.example",
  API_TOKEN: "0123456789abcdef0123456789abcdef",
  UPSTREAM: "https://api.example/v1",
  WORKERS: "16",
};

const SPEC = {
  root: env.string("HELLO_ROOT", { default: "." }),
  port: env.port("PORT", { default: 8080 }),
  timeout: env.duration("TIMEOUT", { default: "5s" }),
  verbose: env.bool("VERBOSE", { default: false }),
  mode: env.enum("MODE", ["dev", "prod"], { default: "dev" }),
  hosts: env.list("HOSTS", { default: [] }),
  token: env.secret("API_TOKEN"),
  url: env.url("UPSTREAM", { default: "http://127.0.0.1:9000" }),
  workers: env.int("WORKERS", { default: 4, min: 1, max: 64 }),
};

// The baseline: what a server author writes by hand, with no validation
// beyond what the types force and no error collection.
function handWritten(get: (name: string) => string | undefined) {
  const timeout = get("TIMEOUT") ?? "5s";
  const match = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(timeout)!;
  return {
    root: get("HELLO_ROOT") || ".",
    port: Number(get("PORT") ?? 8080),
    timeout: (Number(match[1] ?? 0) * 3600 + Number(match[2] ?? 0) * 60 +
      Number(match[3] ?? 0)) * 1000,
    verbose: /^(true|1|yes|on)$/i.test(get("VERBOSE") ?? ""),
    mode: get("MODE") ?? "dev",
    hosts: (get("HOSTS") ?? "").split(",").map((h) => h.trim()).filter(Boolean),
    token: get("API_TOKEN"),
    url: new URL(get("UPSTREAM") ?? "http://127.0.0.1:9000"),
    workers: Number(get("WORKERS") ?? 4),
  };
}

const fromRecord = (name: string) => SOURCE[name];

Deno.bench("hand-written parsing, record source", {
  group: "record",
  baseline: true,
}, () => {
  handWritten(fromRecord);
});

Deno.bench("readEnv(), record source", { group: "record" }, () => {
  readEnv(SPEC, { source: SOURCE });
});

for (const [name, value] of Object.entries(SOURCE)) Deno.env.set(name, value);
const fromDeno = (name: string) => Deno.env.get(name);

Deno.bench("hand-written parsing, Deno.env", {
  group: "deno-env",
  baseline: true,
}, () => {
  handWritten(fromDeno);
});

Deno.bench("readEnv(), Deno.env", { group: "deno-env" }, () => {
  readEnv(SPEC);
});

Deno.bench("declare the 9-variable spec", { group: "declare" }, () => {
  env.string("HELLO_ROOT", { default: "." });
  env.port("PORT", { default: 8080 });
  env.duration("TIMEOUT", { default: "5s" });
  env.bool("VERBOSE", { default: false });
  env.enum("MODE", ["dev", "prod"], { default: "dev" });
  env.list("HOSTS", { default: [] });
  env.secret("API_TOKEN");
  env.url("UPSTREAM", { default: "http://127.0.0.1:9000" });
  env.int("WORKERS", { default: 4, min: 1, max: 64 });
});
