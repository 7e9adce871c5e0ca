// Benchmarks for validate/: the JSON fast path against bare JSON.parse on
// 1 MiB of valid JSON, and throughput per format.
//
//   cd bench
//   deno bench validate_bench.ts
//   deno run validate_bench.ts     # interleaved medians, MB/s table
//
// `deno bench` runs contenders one after another and reports means; the
// `deno run` mode alternates them call by call, so a busy machine slows
// all of them alike, and prints medians.
//
// Each iteration reads a different copy of the text (same content, a
// distinct string), so no per-string cache in the engine can flatter a
// contender.

import { parse, validate } from "@forge/toolkit/validate";

const MIB = 1 << 20;
const COPIES = 16;

function copies(text: string): string[] {
  // Slicing a fresh concatenation yields a distinct, flat string.
  return Array.from({ length: COPIES }, (_, i) => {
    const copy = (String(i) + text).slice(String(i).length);
    copy.charCodeAt(copy.length >> 1);
    return copy;
  });
}

function repeatTo(
  size: number,
  make: (i: number) => string,
  join = "",
): string {
  const parts: string[] = [];
  let length = 0;
  for (let i = 0; length < size; i++) {
    const part = make(i);
    parts.push(part);
    length += part.length + join.length;
  }
  return parts.join(join);
}

function record(i: number): string {
  return JSON.stringify(
    {
      id: i,
      name: `package-${i}`,
      version: `${i % 7}.${i % 13}.${i % 5}`,
      description:
        'A small library — with URLs like https://example.com/x?y=1 and "quotes"',
      keywords: ["mcp", "deno", "tool", `k${i}`],
      stats: {
        downloads: i * 1234,
        ratio: i / 7,
        active: i % 2 === 0,
        license: null,
      },
      author: { name: "Jane Doe", email: `jane${i}@example.com` },
    },
    null,
    2,
  );
}

const JSON_TEXT = "[\n" + repeatTo(MIB - 4, record, ",\n") + "\n]";
// The same shape in plain ASCII without escapes: a one-byte string, which
// JSON.parse reads faster, so the fixed costs weigh more.
const ASCII_JSON_TEXT = JSON_TEXT.replaceAll("—", "-").replaceAll('\\"', "'");
const JSONC_TEXT = "// generated\n[\n" +
  repeatTo(MIB, (i) => `  // item ${i}\n${record(i)},`, "\n") + "\n]";
const YAML_TEXT = repeatTo(MIB, (i) =>
  `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web-${i}
  labels: {app: web, tier: "frontend"}
spec:
  replicas: ${i % 5}
  template:
    spec:
      containers:
        - name: web
          image: ghcr.io/example/web:1.${i}
          ports:
            - containerPort: 8080
          env:
            - {name: GREETING, value: "こんにちは"}
`, "---\n");
const TOML_TEXT = repeatTo(MIB, (i) =>
  `[[package]]
name = "crate-${i}"
version = "1.${i % 40}.0"
source = "registry+https://github.com/rust-lang/crates.io-index"
checksum = "0c4b4d0bd25bd0b74681c0ad21497610ce1b7c91b1022cd21c80c6fbdb9476b0"
dependencies = [
 "autocfg",
 "libc ${i % 3}",
]
`, "\n");
const XML_TEXT =
  '<?xml version="1.0" encoding="UTF-8"?>\n<project xmlns="http://maven.apache.org/POM/4.0.0">\n  <dependencies>\n' +
  repeatTo(MIB, (i) =>
    `    <dependency>
      <groupId>org.example.group${i}</groupId>
      <artifactId>artifact-${i}</artifactId>
      <version>1.${i}.0</version>
      <scope>${i % 2 ? "test" : "compile"}</scope>
      <!-- note &amp; more -->
    </dependency>
`) +
  "  </dependencies>\n</project>\n";

const ARGUMENTS = {
  regex:
    "^(?<year>\\d{4})-(?<month>0[1-9]|1[0-2])-(?<day>\\d{2})T\\d{2}:\\d{2}(?::\\d{2})?Z$",
  glob: "packages/*/src/**/{components,hooks}/[a-z]*.{ts,tsx}",
  url:
    "https://api.example.com:8443/v1/users/42/repos?sort=updated&per_page=100#top",
  pattern: "write:projects/app/src/components/Button.tsx",
} as const;

// Catch a broken fixture before timing it.
for (
  const [format, text] of [
    ["json", JSON_TEXT],
    ["jsonc", JSONC_TEXT],
    ["yaml", YAML_TEXT],
    ["toml", TOML_TEXT],
    ["xml", XML_TEXT],
    ...Object.entries(ARGUMENTS),
  ] as const
) {
  const result = validate(text, format as "json");
  if (!result.ok) {
    throw new Error(
      `${format} fixture is invalid: ${result.diagnostics[0].message}`,
    );
  }
}

const jsonCopies = copies(JSON_TEXT);
let turn = 0;
const next = (pool: string[]) => pool[turn++ % pool.length];

Deno.bench("JSON.parse (1 MiB)", { group: "json-1mib", baseline: true }, () => {
  JSON.parse(next(jsonCopies));
});
Deno.bench("validate json (1 MiB)", { group: "json-1mib" }, () => {
  validate(next(jsonCopies), "json");
});
Deno.bench("parse json (1 MiB)", { group: "json-1mib" }, () => {
  parse(next(jsonCopies), "json");
});

const asciiCopies = copies(ASCII_JSON_TEXT);
Deno.bench("JSON.parse (1 MiB ASCII)", {
  group: "json-1mib-ascii",
  baseline: true,
}, () => {
  JSON.parse(next(asciiCopies));
});
Deno.bench("validate json (1 MiB ASCII)", { group: "json-1mib-ascii" }, () => {
  validate(next(asciiCopies), "json");
});

const documents = {
  json: JSON_TEXT,
  jsonc: JSONC_TEXT,
  yaml: YAML_TEXT,
  toml: TOML_TEXT,
  xml: XML_TEXT,
} as const;
for (const [format, text] of Object.entries(documents)) {
  const pool = copies(text);
  const size = (text.length / MIB).toFixed(2);
  Deno.bench(
    `validate ${format} (${size} MiB)`,
    { group: "throughput" },
    () => {
      validate(next(pool), format as "json");
    },
  );
  // An error on the last line: the worst case for locating it.
  const broken = copies(text + "\n\u0001");
  Deno.bench(`validate ${format} (${size} MiB, error at the end)`, {
    group: "failure",
  }, () => {
    validate(next(broken), format as "json");
  });
}

for (const [format, text] of Object.entries(ARGUMENTS)) {
  Deno.bench(`validate ${format} (${text.length} chars)`, {
    group: "arguments",
  }, () => {
    validate(text, format as "regex");
  });
}

// Interleaved medians: every round times each contender once, in turn.
function medians(
  contenders: Record<string, () => void>,
  rounds: number,
): Record<string, number> {
  const times: Record<string, number[]> = {};
  for (const name of Object.keys(contenders)) times[name] = [];
  for (let round = -5; round < rounds; round++) {
    for (const [name, run] of Object.entries(contenders)) {
      const start = performance.now();
      run();
      const elapsed = performance.now() - start;
      if (round >= 0) times[name].push(elapsed);
    }
  }
  const result: Record<string, number> = {};
  for (const [name, list] of Object.entries(times)) {
    list.sort((a, b) => a - b);
    result[name] = list[list.length >> 1];
  }
  return result;
}

if (import.meta.main) {
  const jsonCases = [
    ["with non-Latin-1 text and escapes", jsonCopies],
    ["ASCII, no escapes", asciiCopies],
  ] as const;
  for (const [label, pool] of jsonCases) {
    const json = medians({
      "JSON.parse": () => JSON.parse(next(pool)),
      "validate(json)": () => validate(next(pool), "json"),
      "parse(json)": () => parse(next(pool), "json"),
    }, 300);
    console.log(
      `1 MiB of valid JSON, ${label}: medians of 300 interleaved rounds`,
    );
    for (const [name, ms] of Object.entries(json)) {
      const ratio = (ms / json["JSON.parse"]).toFixed(2);
      console.log(`  ${name.padEnd(16)} ${ms.toFixed(3)} ms  ${ratio}x`);
    }
  }
  const pools = Object.fromEntries(
    Object.entries(documents).map(([format, text]) => [format, copies(text)]),
  );
  const throughput = medians(
    Object.fromEntries(
      Object.keys(documents).map((format) => [
        format,
        () => validate(next(pools[format]), format as "json"),
      ]),
    ),
    30,
  );
  console.log("validate() throughput, medians of 30 interleaved rounds:");
  for (const [format, ms] of Object.entries(throughput)) {
    const size = documents[format as keyof typeof documents].length;
    console.log(
      `  ${format.padEnd(6)} ${ms.toFixed(2).padStart(8)} ms  ${
        (size / MIB / (ms / 1000)).toFixed(1).padStart(7)
      } MiB/s`,
    );
  }
}
