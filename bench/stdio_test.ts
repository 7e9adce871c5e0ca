import assert from "node:assert/strict";
import { parseOptions } from "./stdio.ts";

Deno.test("parseOptions() gives the full run by default and a smaller one with --quick", () => {
  const full = parseOptions([]);
  assert.equal(full.rounds, 5);
  assert.equal(full.profile, true);
  assert.ok(full.plan.sequential >= 2000, "the issue asks for ≥ 2000 calls");
  assert.equal(full.plan.inFlight, 64);
  assert.equal(full.plan.bigBytes, 1 << 20);
  const quick = parseOptions(["--quick"]);
  assert.equal(quick.rounds, 2);
  assert.equal(quick.profile, false);
  assert.ok(quick.plan.sequential >= 2000);
  assert.ok(quick.plan.pipelined < full.plan.pipelined);
});

Deno.test("parseOptions() reads rounds, servers, JSON path and profile flags", () => {
  const options = parseOptions([
    "--quick",
    "--rounds=3",
    "--only=toolkit,raw-deno",
    "--json=/tmp/out.json",
    "--profile",
  ]);
  assert.equal(options.rounds, 3);
  assert.deepEqual(options.only, ["toolkit", "raw-deno"]);
  assert.equal(options.json, "/tmp/out.json");
  assert.equal(options.profile, true);
  assert.equal(parseOptions(["--no-profile"]).profile, false);
});

Deno.test("parseOptions() says what was wrong and what was expected", async (t) => {
  await t.step("an unknown option", () => {
    assert.throws(
      () => parseOptions(["--fast"]),
      (e) =>
        e instanceof TypeError &&
        /Unknown option: --fast: expected one of --quick/.test(e.message),
    );
  });
  await t.step("rounds that are not a positive integer", () => {
    for (
      const bad of ["--rounds=0", "--rounds=2.5", "--rounds=x", "--rounds"]
    ) {
      assert.throws(() => parseOptions([bad]), RangeError, bad);
    }
  });
  await t.step("an unknown server id", () => {
    assert.throws(
      () => parseOptions(["--only=toolkit,nope"]),
      /unknown server "nope": expected ids from raw-deno, toolkit/,
    );
  });
  await t.step("--json without a path", () => {
    assert.throws(() => parseOptions(["--json"]), /expected --json=PATH/);
  });
});

Deno.test("parseOptions() takes checkouts to compare and refuses a directory without the echo server", async (t) => {
  await t.step("this repository is a checkout", () => {
    const root = new URL("..", import.meta.url).pathname;
    assert.deepEqual(parseOptions([`--compare=${root}`]).compare, [root]);
  });
  await t.step("a directory that is not one", () => {
    assert.throws(
      () => parseOptions(["--compare=/nonexistent-checkout"]),
      /not a checkout with a toolkit echo server: \/nonexistent-checkout \(expected \/nonexistent-checkout\/bench\/servers\/toolkit_echo\.ts\)/,
    );
  });
  await t.step("nothing after =", () => {
    assert.throws(() => parseOptions(["--compare="]), /expected --compare=DIR/);
  });
});
