import assert from "node:assert/strict";
import {
  AGAINST_BASE,
  BASE_TARGETS,
  BENCH_FLOWS,
  BENCH_POLICY,
  C_RELAY,
  CASES,
  compareGate,
  compileNativeRelay,
  type GateSamples,
  measureGateRound,
  parseGateOptions,
  relayFloor,
  renderGate,
  writeBenchPolicy,
} from "./gate.ts";

function round(ms: Partial<Record<string, number[]>>): GateSamples {
  return Object.fromEntries(
    CASES.map((key) => [key, ms[key] ?? [0.1]]),
  ) as GateSamples;
}

Deno.test("parseGateOptions() gives the full run by default and a smaller one with --quick", () => {
  const full = parseGateOptions([]);
  assert.deepEqual(full, {
    rounds: 5,
    calls: 2000,
    warmup: 500,
    json: undefined,
    base: undefined,
  });
  const quick = parseGateOptions(["--quick"]);
  assert.ok(quick.rounds < full.rounds && quick.calls < full.calls);
  assert.deepEqual(
    parseGateOptions([
      "--rounds=3",
      "--calls=10",
      "--warmup=0",
      "--json=x",
      "--base=../b",
      "--block=4",
      "--no-flows",
    ]),
    {
      rounds: 3,
      calls: 10,
      warmup: 0,
      json: "x",
      base: "../b",
      block: 4,
      flows: false,
    },
  );
});

Deno.test("parseGateOptions() says what was wrong and what was expected", () => {
  assert.throws(
    () => parseGateOptions(["--fast"]),
    (e) =>
      e instanceof TypeError &&
      /^Unknown option: --fast: expected one of --quick/.test(e.message),
  );
  assert.throws(
    () => parseGateOptions(["--rounds=0"]),
    (e) =>
      e instanceof RangeError &&
      e.message ===
        'Invalid --rounds: expected an integer from 1 to 100, got "0"',
  );
  assert.throws(() => parseGateOptions(["--calls=x"]), RangeError);
  assert.throws(() => parseGateOptions(["--json"]), TypeError);
  assert.throws(() => parseGateOptions(["--base"]), TypeError);
  assert.throws(() => parseGateOptions(["--block=0"]), RangeError);
});

Deno.test("compareGate() divides pooled p50s and checks each target", () => {
  const rounds = [
    round({
      "direct-echo": [0.1, 0.1, 0.1],
      "relay-echo": [0.1, 0.1, 0.1],
      "native-echo": [0.1, 0.1, 0.1],
      "gate-echo": [0.12, 0.12, 0.5],
      "mapped-echo": [0.13, 0.13, 0.13],
      "direct-note": [0.1, 0.1, 0.1],
      "native-note": [0.1, 0.1, 0.1],
      "gate-note": [0.3, 0.3, 0.3],
    }),
    round({
      "direct-echo": [0.2, 0.2, 0.2],
      "relay-echo": [0.2, 0.2, 0.2],
      "native-echo": [0.2, 0.2, 0.2],
      "gate-echo": [0.2, 0.2, 0.2],
      "mapped-echo": [0.2, 0.2, 0.2],
      "direct-note": [0.1, 0.1, 0.1],
      "native-note": [0.1, 0.1, 0.1],
      "gate-note": [0.2, 0.2, 0.2],
    }),
  ];
  // The targets are ratios to the same call through the Deno relay, and to
  // the probed call's floor.
  const [unprobed, mapped, probed] = compareGate(rounds);
  // Pooled: relay echo p50 0.1 (of 0.1×3, 0.2×3), gated 0.2.
  assert.equal(unprobed.directP50Us, 100);
  assert.equal(unprobed.gatedP50Us, 200);
  assert.equal(unprobed.ratio, 2);
  assert.equal(unprobed.max, 1.2);
  assert.equal(unprobed.met, false);
  assert.deepEqual(unprobed.roundRatios.map((r) => r.toFixed(2)), [
    "1.20",
    "1.00",
  ]);
  assert.equal(mapped.max, 1.3);
  assert.equal(mapped.gatedP50Us, 130);
  // 130 over 100: at the target is within it.
  assert.equal(mapped.met, true);
  // The floor: two direct notes (100 µs each) plus a hop of nothing.
  assert.equal(Math.round(probed.directP50Us), 200);
  assert.equal(probed.gatedP50Us, 200);
  assert.equal(probed.max, 1.2);
  assert.equal(probed.met, true);
  assert.ok(Number.isNaN(probed.directP99Us));
  // Per round: 0.3 over 0.2, then 0.2 over 2 × 0.1 + (0.2 − 0.2).
  assert.deepEqual(probed.roundRatios.map((r) => r.toFixed(2)), [
    "1.50",
    "1.00",
  ]);
  const table = renderGate([unprobed, mapped, probed]);
  assert.match(
    table,
    /\| 100 µs \| 200 µs \| \*\*2\.00×\*\* .*\| ≤ 1\.2× \| MISSED \|/,
  );
  assert.match(table, /\| — \/ 300 µs \| ≤ 1\.2× \| met \|$/);
  assert.match(table, /^\| call \| base p50 \|/);
  // The C relay's figures, without targets.
  const [cUnprobed] = compareGate(rounds, C_RELAY);
  assert.equal(cUnprobed.ratio, 2);
  assert.equal(cUnprobed.met, true);
  assert.doesNotMatch(renderGate([cUnprobed], "C relay"), /target|MISSED/);
  const floor = relayFloor(rounds);
  assert.equal(floor.ratio, 1);
  // Two direct round trips of 100 µs plus a hop that costs nothing here.
  assert.equal(Math.round(floor.probedFloorUs), 200);
  assert.equal(floor.probedRatio, 2);
  assert.throws(() => compareGate([]), RangeError);
});

Deno.test("compareGate() puts another checkout's gates beside this tree's", () => {
  const rounds = [{
    ...round({ "gate-echo": [0.1], "relay-echo": [0.1] }),
    "base-gate-echo": [0.11],
    "base-mapped-echo": [0.2],
    "base-gate-note": [0.4],
  }];
  const [echo, mapped, note] = compareGate(rounds, AGAINST_BASE);
  assert.equal(echo.directP50Us, 110);
  assert.equal(echo.gatedP50Us, 100);
  assert.equal(mapped.ratio, 0.5);
  assert.equal(note.ratio, 0.25);
  const [baseUnprobed] = compareGate(rounds, BASE_TARGETS);
  assert.equal(baseUnprobed.gatedP50Us, 110);
  assert.equal(baseUnprobed.max, 1.2);
  // Without the other checkout's samples there is nothing to compare.
  assert.throws(() => compareGate([round({})], AGAINST_BASE), RangeError);
});

Deno.test("measureGateRound() times every case against real processes and proves the gate decides", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const native = await compileNativeRelay(dir);
    const samples = await measureGateRound(
      await writeBenchPolicy(dir, native),
      {
        calls: 5,
        warmup: 1,
      },
    );
    for (const key of CASES) {
      assert.equal(samples[key].length, 5, key);
      assert.ok(samples[key].every((ms) => ms > 0), key);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("measureGateRound() with a block times every case in turns, all open at once", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const samples = await measureGateRound(await writeBenchPolicy(dir), {
      calls: 5,
      warmup: 1,
      block: 2,
    });
    for (const key of CASES) {
      assert.equal(samples[key].length, 5, key);
      assert.ok(samples[key].every((ms) => ms > 0), key);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("writeBenchPolicy() writes the policies with their flows, or without for an older gate", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const withFlows = await writeBenchPolicy(dir);
    for (const path of [withFlows.policy, withFlows.mappedPolicy]) {
      assert.deepEqual(
        JSON.parse(await Deno.readTextFile(path)).flows,
        BENCH_FLOWS,
      );
    }
    const without = await writeBenchPolicy(dir, undefined, { flows: false });
    const { flows: _, ...rest } = BENCH_POLICY;
    assert.deepEqual(
      JSON.parse(await Deno.readTextFile(without.policy)),
      JSON.parse(JSON.stringify(rest)),
    );
    assert.equal(
      "flows" in JSON.parse(await Deno.readTextFile(without.mappedPolicy)),
      false,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("measureGateRound() refuses to time a gate that does not deny what the bench policy denies", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/allow_all.json`;
    const { deny: _deny, ...allowAll } = BENCH_POLICY;
    await Deno.writeTextFile(path, JSON.stringify(allowAll));
    const setup = { ...(await writeBenchPolicy(dir)), policy: path };
    await assert.rejects(
      measureGateRound(setup, { calls: 1, warmup: 0 }),
      /the gate did not refuse a denied call/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
