import assert from "node:assert/strict";
import {
  type CallFrame,
  categorize,
  type CpuProfile,
  shortenUrl,
  summarizeProfile,
} from "./_profile.ts";

const ROOT = "/repo";
const NPM = "file:///cache/npm/registry.npmjs.org";

function frame(functionName: string, url = "", lineNumber = 0): CallFrame {
  return { functionName, url, lineNumber, columnNumber: 0 };
}

// root ─┬ (idle)
//       ├ (garbage collector)
//       ├ serve (bench server) ─ _onrequest (SDK) ─ parse (zod)
//       └ #call (toolkit/server.ts) ─ decodeArguments (toolkit/args.ts) ─ parse (zod)
const PROFILE: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame("(root)"), children: [2, 3, 4, 7] },
    { id: 2, callFrame: frame("(idle)") },
    { id: 3, callFrame: frame("(garbage collector)") },
    {
      id: 4,
      callFrame: frame("serve", `file://${ROOT}/bench/servers/s.ts`),
      children: [5],
    },
    {
      id: 5,
      callFrame: frame(
        "_onrequest",
        `${NPM}/@modelcontextprotocol/sdk/1.32.2/dist/esm/shared/protocol.js`,
        694,
      ),
      children: [6],
    },
    {
      id: 6,
      callFrame: frame("parse", `${NPM}/zod/4.6.7/v4/core/parse.js`, 40),
    },
    {
      id: 7,
      callFrame: frame("#call", `file://${ROOT}/toolkit/server.ts`, 99),
      children: [8],
    },
    {
      id: 8,
      callFrame: frame("decodeArguments", `file://${ROOT}/toolkit/args.ts`),
      children: [9],
    },
    {
      id: 9,
      callFrame: frame("parse", `${NPM}/zod/4.6.7/v4/core/parse.js`, 40),
    },
  ],
  // Each sample's time is the next delta: 1 ms apiece (the last none),
  // except an idle stretch of 5 + 1 ms after the first two samples.
  samples: [5, 6, 2, 2, 6, 6, 9, 7, 3, 3],
  timeDeltas: [0, 1000, 1000, 5000, 1000, 1000, 1000, 1000, 1000, 1000],
};

Deno.test("summarizeProfile() splits zod time by whether the SDK or the toolkit called it", () => {
  const summary = summarizeProfile(PROFILE, ROOT);
  const byCategory = Object.fromEntries(
    summary.categories.map((c) => [c.category, c.selfMs]),
  );
  assert.deepEqual(byCategory, {
    "zod: SDK message schemas": 3,
    "SDK (not zod)": 1,
    "zod: tool argument schema": 1,
    "toolkit": 1,
    "garbage collector": 1,
  });
  assert.equal(summary.idleMs, 6);
  assert.equal(summary.busyMs, 7);
});

Deno.test("summarizeProfile() lists functions by self time with short locations", () => {
  const top = summarizeProfile(PROFILE, ROOT, { top: 5 }).top;
  const [first] = top;
  const second = top.find((e) => e.category === "zod: tool argument schema")!;
  assert.deepEqual(first, {
    name: "parse",
    location: "zod@4.6.7/v4/core/parse.js:41",
    category: "zod: SDK message schemas",
    selfMs: 3,
    share: 3 / 7,
  });
  // The same zod function called by the toolkit is its own entry.
  assert.equal(second.selfMs, 1);
});

Deno.test("summarizeProfile() can skip everything before the first long idle stretch", async (t) => {
  await t.step("start-up samples before a 5 ms pause are left out", () => {
    const summary = summarizeProfile(PROFILE, ROOT, { afterIdleMs: 5 });
    assert.equal(summary.busyMs, 5);
    const zod = summary.categories.find((c) =>
      c.category === "zod: SDK message schemas"
    );
    assert.equal(zod?.selfMs, 2);
  });
  await t.step("a pause longer than any idle stretch is a RangeError", () => {
    assert.throws(
      () => summarizeProfile(PROFILE, ROOT, { afterIdleMs: 50 }),
      /no idle stretch of 50 ms/,
    );
  });
  await t.step("a negative pause is a RangeError", () => {
    assert.throws(
      () => summarizeProfile(PROFILE, ROOT, { afterIdleMs: -1 }),
      RangeError,
    );
  });
});

Deno.test("summarizeProfile() refuses something that is not a CPU profile", () => {
  assert.throws(
    () => summarizeProfile({ nodes: [] } as unknown as CpuProfile, ROOT),
    /expected a V8 CPU profile with nodes, samples and timeDeltas/,
  );
});

Deno.test("categorize() names runtime, ops and pseudo-frames", () => {
  assert.equal(categorize([frame("op_write_all")]), "Deno ops (I/O)");
  assert.equal(categorize([frame("(program)")]), "V8 and native code");
  assert.equal(
    categorize([frame("pull", "ext:deno_web/06_streams.js")]),
    "Deno runtime",
  );
  assert.equal(categorize([]), "other");
});

Deno.test("shortenUrl() names npm files by package and version and repo files by path", () => {
  assert.equal(
    shortenUrl(
      `${NPM}/@modelcontextprotocol/sdk/1.32.2/dist/esm/types.js`,
      ROOT,
    ),
    "@modelcontextprotocol/sdk@1.32.2/dist/esm/types.js",
  );
  assert.equal(
    shortenUrl(`file://${ROOT}/toolkit/stdio.ts`, ROOT),
    "toolkit/stdio.ts",
  );
  assert.equal(shortenUrl("ext:core/01_core.js", ROOT), "ext:core/01_core.js");
});
