import assert from "node:assert/strict";
import { join } from "node:path";
import { oauthResource } from "../../http/oauth_resource.ts";
import { authInfoOf } from "../../http/_auth_info.ts";
import { ISSUER, signingKey, signToken } from "../../http/_jwt_test_helpers.ts";
import { authOptionsOf, parseAuth } from "./_auth.ts";
import { claimsOf } from "./_claims.ts";
import { callerPolicy } from "./_caller_policy.ts";
import { GatePolicyError, parseGatePolicy } from "./policy_file.ts";

const RESOURCE = "https://gate.example.com/mcp";

function problemOf(value: unknown): GatePolicyError {
  try {
    parseGatePolicy(value);
  } catch (error) {
    assert.ok(error instanceof GatePolicyError, String(error));
    return error;
  }
  assert.fail("parseGatePolicy() accepted the value");
}

Deno.test("a gate's auth: verifies a token with a JWKS file beside the policy, and its claims pick the caller's rules", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const key = await signingKey("k1");
    await Deno.mkdir(join(dir, "keys"));
    await Deno.writeTextFile(
      join(dir, "keys", "jwks.json"),
      JSON.stringify({ keys: [key.jwk] }),
    );
    const file = parseGatePolicy({
      allow: ["read:**"],
      auth: { issuer: ISSUER, jwks: "keys/jwks.json", scopes: ["mcp:tools"] },
      principals: [{ match: { groups: ["admins"] }, allow: ["write:**"] }],
    });
    const options = await authOptionsOf(file.auth!, {
      resource: RESOURCE,
      policyFile: join(dir, "gate.yaml"),
    });
    assert.equal(options.resource, RESOURCE);
    assert.deepEqual(options.authorizationServers, [ISSUER]);
    assert.deepEqual(options.scopes, ["mcp:tools"]);
    const layer = oauthResource(options);
    const decide = async (token: string) => {
      let decision: string | undefined;
      const response = await layer(
        new Request(RESOURCE, {
          method: "POST",
          headers: { authorization: `Bearer ${token}` },
          body: "{}",
        }),
        (request) => {
          const caller = claimsOf(authInfoOf(request));
          decision = callerPolicy(file, caller).policy.evaluate([
            "write:a.txt",
          ]).decision;
          return Promise.resolve(new Response("passed"));
        },
      );
      return { status: response.status, decision };
    };
    const admin = await signToken(key, RESOURCE, { groups: ["admins"] });
    const other = await signToken(key, RESOURCE, { groups: ["dev"] });
    assert.deepEqual(await decide(admin), { status: 200, decision: "allow" });
    assert.deepEqual(await decide(other), { status: 200, decision: "ask" });
    // A token for another resource is refused before any rule is read.
    const elsewhere = await signToken(key, "https://other.example.com/mcp", {
      groups: ["admins"],
    });
    assert.deepEqual(await decide(elsewhere), {
      status: 401,
      decision: undefined,
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("authOptionsOf() maps auth: onto the OAuth resource server's options", async (t) => {
  await t.step(
    "a JWKS URL, the file's resource before the gate's URL",
    async () => {
      const auth = parseAuth({
        issuer: [ISSUER, "https://login.example.org"],
        jwks: "https://auth.example.com/.well-known/jwks.json",
        resource: "https://public.example.com/mcp",
        name: "Team gate",
      });
      assert.deepEqual(
        await authOptionsOf(auth, { resource: RESOURCE, path: "/mcp" }),
        {
          authorizationServers: [ISSUER, "https://login.example.org"],
          jwks: "https://auth.example.com/.well-known/jwks.json",
          resource: "https://public.example.com/mcp",
          path: "/mcp",
          scopes: [],
          resourceName: "Team gate",
        },
      );
    },
  );
  await t.step(
    "no resource anywhere leaves oauthResource's loopback default",
    async () => {
      const auth = parseAuth({
        issuer: ISSUER,
        jwks: "http://127.0.0.1:9/jwks",
      });
      const options = await authOptionsOf(auth);
      assert.equal("resource" in options, false);
    },
  );
  await t.step("a JWKS file that is missing or not a JWKS", async () => {
    const dir = await Deno.makeTempDir();
    try {
      const policyFile = join(dir, "gate.yaml");
      const missing = parseAuth({ issuer: ISSUER, jwks: "nope.json" });
      await assert.rejects(
        () => authOptionsOf(missing, { policyFile }),
        (error: Error) =>
          error instanceof TypeError &&
          error.message.startsWith(
            `Cannot read auth.jwks: ${join(dir, "nope.json")}:`,
          ),
      );
      await Deno.writeTextFile(join(dir, "bad.json"), '{"kty": "EC"}');
      const bad = parseAuth({ issuer: ISSUER, jwks: "bad.json" });
      await assert.rejects(
        () => authOptionsOf(bad, { policyFile }),
        /expected a JWKS, \{ "keys": \[ \{ "kty": … \} \] \}, got an object without a keys list/,
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
});

Deno.test("parseGatePolicy() names the wrong field of auth:", async (t) => {
  const jwks = "https://auth.example.com/jwks.json";
  await t.step("not an object", () => {
    assert.deepEqual(problemOf({ auth: "yes" }).path, ["auth"]);
  });
  await t.step("an unknown key", () => {
    const error = problemOf({ auth: { issuer: ISSUER, jwks, audience: "x" } });
    assert.deepEqual(error.path, ["auth", "audience"]);
    assert.match(error.message, /^auth\.audience: unknown key/);
  });
  await t.step(
    "no issuer, an http issuer off loopback, a bad one in a list",
    () => {
      assert.deepEqual(problemOf({ auth: { jwks } }).path, ["auth", "issuer"]);
      assert.deepEqual(
        problemOf({ auth: { issuer: "http://auth.example.com", jwks } }).path,
        ["auth", "issuer"],
      );
      assert.deepEqual(
        problemOf({ auth: { issuer: [ISSUER, "auth.example.com"], jwks } })
          .path,
        ["auth", "issuer", 1],
      );
      assert.deepEqual(problemOf({ auth: { issuer: [], jwks } }).path, [
        "auth",
        "issuer",
      ]);
    },
  );
  await t.step("no jwks, a jwks URL that is not https", () => {
    const none = problemOf({ auth: { issuer: ISSUER } });
    assert.deepEqual(none.path, ["auth", "jwks"]);
    assert.match(none.message, /missing: /);
    assert.deepEqual(
      problemOf({ auth: { issuer: ISSUER, jwks: "http://keys.example/j" } })
        .path,
      ["auth", "jwks"],
    );
  });
  await t.step("a resource that is not a URL, a scope with a space", () => {
    assert.deepEqual(
      problemOf({ auth: { issuer: ISSUER, jwks, resource: "/mcp" } }).path,
      ["auth", "resource"],
    );
    assert.deepEqual(
      problemOf({ auth: { issuer: ISSUER, jwks, scopes: ["a b"] } }).path,
      ["auth", "scopes", 0],
    );
  });
  await t.step("a good one is kept, a file path as written", () => {
    const { auth } = parseGatePolicy({
      auth: { issuer: ISSUER, jwks: "../keys.json", scopes: ["mcp"] },
    });
    assert.deepEqual(auth, {
      issuers: [ISSUER],
      jwks: { file: "../keys.json" },
      scopes: ["mcp"],
    });
  });
});
