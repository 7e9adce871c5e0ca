// Per-call cost of the permission-pattern probe on both sides: a tool
// canonicalising its targets (lexical, on the real file system, URL, argv)
// and a host deciding a call against a 100-rule policy. Baselines: Node's
// path.posix.normalize and a bare `new URL()`, which do less (no root check,
// no escaping) but bound what the canonical form costs on top.
//
//   cd bench
//   deno bench -A patterns_bench.ts    Deno's bench runner (averages)
//   deno run -A patterns_bench.ts      medians, all cases interleaved
//                                      round by round, side by side
import { posix } from "node:path";
import {
  canonicalPath,
  execAccess,
  fileAccess,
  netAccess,
} from "@forge/toolkit/patterns";
import { matchPattern, Policy } from "@forge/toolkit/policy";

const root = await Deno.realPath(await Deno.makeTempDir());
await Deno.mkdir(`${root}/src/deep`, { recursive: true });
await Deno.writeTextFile(`${root}/src/deep/file.ts`, "");
const files = fileAccess(root);
await files.read("."); // resolve the root once, as a running server has

// 100 rules spread over the verbs, as a host's settings might hold them.
const RULES = {
  allow: [
    ...Array.from({ length: 30 }, (_, i) => `write:pkg${i}/src/**`),
    ...Array.from({ length: 10 }, (_, i) => `read:docs${i}/**/*.md`),
    ...Array.from({ length: 10 }, (_, i) => `net:https://**.svc${i}.example`),
    ...Array.from({ length: 10 }, (_, i) => `exec:tool${i} **`),
  ],
  ask: [
    ...Array.from({ length: 15 }, (_, i) => `write:pkg${i}/src/gen/**`),
    ...Array.from({ length: 5 }, (_, i) => `exec:git {push,reset} * ${i}`),
  ],
  deny: [
    ...Array.from({ length: 15 }, (_, i) => `write:pkg${i}/src/secrets/**`),
    ...Array.from({ length: 5 }, (_, i) => `net:http://10.0.${i}.*`),
  ],
};
const policy = new Policy(RULES);
const CALL = ["write:pkg29/src/app/main.ts", "read:docs9/guide/intro.md"];
const UNMATCHED = ["write:elsewhere/a/b/c/d.ts"];
const LONG = `write:${"a".repeat(2000)}`;

const ROUNDS = 101;
const BATCH_MS = 2;

interface Case {
  name: string;
  group: string;
  baseline?: boolean;
  fn: () => unknown;
}

const CASES: Case[] = [
  {
    name: "path: posix.normalize (baseline)",
    group: "path",
    fn: () => posix.normalize(posix.join("/w", "./src/../lib//deep/file.ts")),
  },
  {
    name: "path: canonicalPath",
    group: "path",
    baseline: true,
    fn: () => canonicalPath("/w", "./src/../lib//deep/file.ts"),
  },
  {
    name: "path: fileAccess.read, existing file",
    group: "fs",
    baseline: true,
    fn: () => files.read("src/deep/file.ts"),
  },
  {
    name: "path: fileAccess.write, new file",
    group: "fs",
    fn: () => files.write("src/deep/new.ts"),
  },
  {
    name: "url: new URL (baseline)",
    group: "url",
    fn: () => new URL("https://EXAMPLE.com.:443/a?b=1"),
  },
  {
    name: "url: netAccess",
    group: "url",
    baseline: true,
    fn: () => netAccess("https://EXAMPLE.com.:443/a?b=1"),
  },
  {
    name: "argv: execAccess",
    group: "argv",
    fn: () =>
      execAccess(["git", "commit", "-m", "fix: a message with spaces [x]"]),
  },
  {
    name: "policy: construct from 100 rules",
    group: "policy",
    fn: () => new Policy(RULES),
  },
  {
    name: "policy: evaluate 2 patterns, late matches",
    group: "policy",
    baseline: true,
    fn: () => policy.evaluate(CALL),
  },
  {
    name: "policy: evaluate 1 unmatched pattern",
    group: "policy",
    fn: () => policy.evaluate(UNMATCHED),
  },
  {
    name: "policy: matchPattern, compile + match",
    group: "policy",
    fn: () =>
      matchPattern("write:pkg*/src/**/*.ts", "write:pkg29/src/app/main.ts"),
  },
  {
    name: "policy: *a*a*a*a*b against 2000 characters",
    group: "adversarial",
    fn: () => matchPattern("write:*a*a*a*a*b", LONG),
  },
];

if (import.meta.main) {
  try {
    await medians();
  } finally {
    await Deno.remove(root, { recursive: true });
  }
} else {
  globalThis.addEventListener("unload", () => {
    Deno.removeSync(root, { recursive: true });
  });
  for (const { name, group, baseline, fn } of CASES) {
    Deno.bench(name, { group, baseline }, async () => {
      await fn();
    });
  }
}

/** Interleaves all cases round by round and prints each one's median. */
async function medians(): Promise<void> {
  const batches = new Map<Case, number>();
  for (const c of CASES) {
    // Warm up first: a cold first call would otherwise set a batch of one,
    // too short for the timer to measure.
    const warm = performance.now() + 50;
    while (performance.now() < warm) await c.fn();
    // Then size a batch to take about BATCH_MS.
    let n = 1;
    for (;;) {
      const start = performance.now();
      for (let i = 0; i < n; i++) await c.fn();
      if (performance.now() - start >= BATCH_MS) break;
      n *= 2;
    }
    batches.set(c, n);
  }
  const samples = new Map<Case, number[]>(CASES.map((c) => [c, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < CASES.length; k++) {
      // Rotate the order so no case always runs after the same neighbour.
      const c = CASES[(k + round) % CASES.length];
      const n = batches.get(c)!;
      const start = performance.now();
      for (let i = 0; i < n; i++) await c.fn();
      samples.get(c)!.push(((performance.now() - start) * 1e6) / n);
    }
  }
  console.log(`medians of ${ROUNDS} interleaved rounds, ns per call (batch)`);
  for (const c of CASES) {
    const sorted = samples.get(c)!.sort((a, b) => a - b);
    const median = sorted[(sorted.length - 1) / 2];
    console.log(
      `${c.name.padEnd(46)} ${median.toFixed(0).padStart(9)}  (${
        batches.get(c)
      })`,
    );
  }
}
