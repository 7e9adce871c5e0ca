import assert from "node:assert/strict";
import { Policy } from "../../policy/mod.ts";
import { callerPolicySource } from "./_caller_source.ts";
import { claimsOf } from "./_claims.ts";
import {
  CHECK_EVERY_MS,
  fixedPolicy,
  parsePolicyText,
  watchPolicy,
} from "./_policy_source.ts";
import type { GatePolicy } from "./policy_file.ts";

const DEFAULTS = { unprobed: "ask" as const, tools: new Map() };
const alice = claimsOf({
  subject: "alice",
  scopes: [],
  claims: { groups: ["dev"] },
});
const bob = claimsOf({ subject: "bob", scopes: [], claims: {} });

const POLICY = `allow: ["read:**"]
servers:
  files: { command: [node, fs.js], deny: ["write:etc/**"] }
principals:
  - match: { sub: [alice] }
    allow: ["write:**"]
`;

/** Resolves once fresh()'s bound has passed since now. */
function pastTheBound(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, CHECK_EVERY_MS + 1));
}

Deno.test("callerPolicySource() decides a caller's calls by the file's newest version", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/gate.yaml`;
  await Deno.writeTextFile(path, POLICY);
  const source = await watchPolicy(path, {
    ...DEFAULTS,
    log: () => {},
    debounceMs: 60_000,
  });
  try {
    const forAlice = callerPolicySource(source, alice, { defaults: DEFAULTS });
    const forBob = callerPolicySource(source, bob, { defaults: DEFAULTS });
    const onFiles = callerPolicySource(source, alice, {
      server: "files",
      defaults: DEFAULTS,
    });
    const decide = (s: typeof forAlice, pattern: string) =>
      s.current().policy.evaluate([pattern]).decision;
    assert.equal(decide(forAlice, "write:a"), "allow");
    assert.equal(decide(forBob, "write:a"), "ask");
    assert.equal(decide(onFiles, "write:a"), "allow");
    assert.equal(decide(onFiles, "write:etc/x"), "deny");
    // One view per version and principal set, shared by every session.
    const again = callerPolicySource(source, alice, { defaults: DEFAULTS });
    assert.equal(again.current(), forAlice.current());
    assert.equal(forAlice.current().mapping, forAlice.current().mapping);
    assert.equal(forBob.current().file, source.current().file);
    // Under one version, a call's view is the last one's: no rebuilding.
    assert.equal(forBob.current(), forBob.current());
    assert.equal(onFiles.current(), onFiles.current());

    const reloaded: GatePolicy[] = [];
    forAlice.onReload?.((file) => reloaded.push(file));
    await Deno.writeTextFile(
      path,
      POLICY.replace('allow: ["write:**"]', 'deny: ["write:**"]'),
    );
    await pastTheBound();
    const fresh = await forAlice.fresh();
    assert.equal(fresh.policy.evaluate(["write:a"]).decision, "deny");
    assert.equal(decide(onFiles, "write:a"), "deny");
    assert.equal(decide(forBob, "write:a"), "ask");
    assert.equal(reloaded.length, 1);
    assert.deepEqual(reloaded[0].rules.deny, ["write:**"]);
    await forAlice.close();
    // Closing a caller's view leaves the file followed.
    assert.equal(decide(forBob, "read:x"), "allow");
  } finally {
    await source.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("callerPolicySource() answers a fixed policy as it is", async () => {
  const source = fixedPolicy({
    policy: new Policy({ allow: ["read:**"] }),
    unprobed: "deny",
    tools: new Map(),
  });
  const view = callerPolicySource(source, alice, { defaults: DEFAULTS });
  assert.equal(view.current(), source.current());
  assert.equal(await view.fresh(), source.current());
  assert.equal(view.onReload, undefined);
});

Deno.test("parsePolicyText() places a principal's wrong rule at its line:column", () => {
  try {
    parsePolicyText(
      POLICY.replace('allow: ["write:**"]', 'allow: ["write:**", "WRITE:x"]'),
      "yaml",
    );
    assert.fail("accepted");
  } catch (error) {
    const { line, column, message } = error as Error & {
      line: number;
      column: number;
    };
    assert.equal(
      `${line}:${column}`,
      `6:${'    allow: ["write:**", "'.length + 1}`,
    );
    assert.match(message, /^principals\[0\]\.allow\[1\]: unknown verb/);
  }
});
