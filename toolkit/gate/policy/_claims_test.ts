import assert from "node:assert/strict";
import { claimsOf, matchesClaims, parseMatch } from "./_claims.ts";
import { MappingError } from "./_tool_mapping.ts";

function refused(value: unknown): MappingError {
  try {
    parseMatch(value, ["principals", 0, "match"]);
  } catch (error) {
    assert.ok(error instanceof MappingError, String(error));
    return error;
  }
  assert.fail("parseMatch() accepted the value");
}

Deno.test("claimsOf() reads sub, groups and the split scope of a verified token", async (t) => {
  await t.step("a user's token", () => {
    const claims = claimsOf({
      subject: "alice",
      scopes: ["files:read", "files:write"],
      claims: {
        sub: "alice",
        groups: ["admins", 7, "dev"],
        scope: "files:read files:write",
      },
    });
    assert.equal(claims?.sub, "alice");
    assert.deepEqual(claims?.groups, ["admins", "dev"]);
    assert.deepEqual(claims?.scope, ["files:read", "files:write"]);
    assert.equal(claims?.claims.scope, "files:read files:write");
  });
  await t.step("a lone group string is one group", () => {
    assert.deepEqual(
      claimsOf({ scopes: [], claims: { groups: "ops team" } })?.groups,
      ["ops team"],
    );
  });
  await t.step("a client's own token has no sub", () => {
    const claims = claimsOf({ clientId: "ci", scopes: [], claims: {} });
    assert.equal(claims?.sub, undefined);
    assert.deepEqual(claims?.groups, []);
  });
  await t.step("no token, no claims", () => {
    assert.equal(claimsOf(undefined), undefined);
  });
});

Deno.test("a match is met when every key it gives has one of its values", async (t) => {
  const alice = claimsOf({
    subject: "alice",
    scopes: ["files:read"],
    claims: {
      groups: ["dev"],
      department: "finance",
      roles: ["auditor", "reader"],
      level: 3,
      admin: false,
    },
  });
  const match = (value: unknown) => parseMatch(value, ["m"]);
  await t.step("any listed value of one key", () => {
    assert.ok(matchesClaims(match({ sub: ["bob", "alice"] }), alice));
    assert.ok(matchesClaims(match({ groups: ["ops", "dev"] }), alice));
    assert.ok(matchesClaims(match({ scope: ["files:read"] }), alice));
    assert.ok(!matchesClaims(match({ sub: ["bob"] }), alice));
    assert.ok(!matchesClaims(match({ scope: ["files:write"] }), alice));
  });
  await t.step("every key given", () => {
    assert.ok(matchesClaims(match({ sub: ["alice"], groups: ["dev"] }), alice));
    assert.ok(
      !matchesClaims(match({ sub: ["alice"], groups: ["admins"] }), alice),
    );
  });
  await t.step("other claims by name: a string, a list, a number", () => {
    assert.ok(
      matchesClaims(match({ claim: { department: ["finance"] } }), alice),
    );
    assert.ok(matchesClaims(match({ claim: { roles: ["auditor"] } }), alice));
    assert.ok(matchesClaims(match({ claim: { level: ["3"] } }), alice));
    assert.ok(matchesClaims(match({ claim: { admin: ["false"] } }), alice));
    assert.ok(!matchesClaims(match({ claim: { admin: ["true"] } }), alice));
    assert.ok(!matchesClaims(match({ claim: { missing: ["x"] } }), alice));
    assert.ok(
      !matchesClaims(
        match({ claim: { department: ["finance"], roles: ["admin"] } }),
        alice,
      ),
    );
  });
  await t.step("a claim named like an Object method is not inherited", () => {
    assert.ok(!matchesClaims(match({ claim: { toString: ["x"] } }), alice));
  });
  await t.step("a caller without a token meets no match", () => {
    assert.ok(!matchesClaims(match({ groups: ["dev"] }), undefined));
  });
  await t.step("a token without sub does not meet a sub match", () => {
    const client = claimsOf({ clientId: "ci", scopes: [], claims: {} });
    assert.ok(!matchesClaims(match({ sub: ["ci"] }), client));
  });
});

Deno.test("parseMatch() names the wrong field of a match", async (t) => {
  await t.step("not an object", () => {
    const error = refused(["admins"]);
    assert.deepEqual(error.path, ["principals", 0, "match"]);
    assert.match(error.message, /got an array/);
  });
  await t.step("an empty match would take in every caller", () => {
    const error = refused({});
    assert.deepEqual(error.path, ["principals", 0, "match"]);
    assert.match(error.message, /every caller/);
  });
  await t.step("an unknown key", () => {
    assert.deepEqual(refused({ group: ["x"] }).path, [
      "principals",
      0,
      "match",
      "group",
    ]);
  });
  await t.step("a string where a list goes, with the fix", () => {
    const error = refused({ groups: "admins" });
    assert.deepEqual(error.path, ["principals", 0, "match", "groups"]);
    assert.match(error.message, /write groups: \["admins"\]/);
  });
  await t.step("an empty list, an empty name, a number", () => {
    assert.match(refused({ sub: [] }).message, /empty list/);
    assert.deepEqual(refused({ sub: ["a", ""] }).path, [
      "principals",
      0,
      "match",
      "sub",
      1,
    ]);
    assert.deepEqual(refused({ claim: { level: [3] } }).path, [
      "principals",
      0,
      "match",
      "claim",
      "level",
      0,
    ]);
  });
  await t.step("an empty claim object", () => {
    assert.deepEqual(refused({ claim: {} }).path, [
      "principals",
      0,
      "match",
      "claim",
    ]);
  });
});
