import assert from "node:assert/strict";
import type { AuthInfo } from "../jsonrpc/types.ts";
import { sharedCaller } from "./_caller_key.ts";

function auth(claims: Record<string, unknown>): AuthInfo {
  return {
    subject: claims.sub as string | undefined,
    scopes: typeof claims.scope === "string" ? claims.scope.split(" ") : [],
    claims,
  } as AuthInfo;
}

Deno.test("sharedCaller() keys a refreshed token as its holder", () => {
  const first = sharedCaller(
    auth({ sub: "alice", groups: ["dev"], exp: 1, iat: 0, jti: "a" }),
  );
  const refreshed = sharedCaller(
    auth({ jti: "b", iat: 10, exp: 11, groups: ["dev"], sub: "alice" }),
  );
  assert.equal(first.key, refreshed.key);
  // The claims decided by are the same too: none that names one token.
  assert.deepEqual(first.claims, refreshed.claims);
  assert.deepEqual(first.claims?.claims, { groups: ["dev"], sub: "alice" });
});

Deno.test("sharedCaller() keys callers apart by any claim of the holder", async (t) => {
  const base = { sub: "alice", groups: ["dev"], scope: "mcp" };
  const key = sharedCaller(auth(base)).key;
  for (
    const [name, changed] of [
      ["sub", { ...base, sub: "bob" }],
      ["groups", { ...base, groups: ["dev", "admins"] }],
      ["scope", { ...base, scope: "mcp files:write" }],
      ["another claim", { ...base, department: "finance" }],
      ["the issuer", { ...base, iss: "https://other.example.com" }],
    ] as const
  ) {
    await t.step(name, () => {
      assert.notEqual(sharedCaller(auth(changed)).key, key);
    });
  }
});

Deno.test("sharedCaller() keys a caller without a token apart from any with one", () => {
  const none = sharedCaller(undefined);
  assert.equal(none.claims, undefined);
  assert.notEqual(sharedCaller(auth({})).key, none.key);
});
