import assert from "node:assert/strict";
import { claimsOf } from "./_claims.ts";
import {
  missingScopes,
  parseToolScopes,
  requiredScopes,
  scopeChallenge,
} from "./_scopes.ts";
import { MappingError } from "./_tool_mapping.ts";
import { GatePolicyError, parseGatePolicy } from "./policy_file.ts";

Deno.test("requiredScopes() gathers the scopes of every entry naming the tool", () => {
  const scopes = parseToolScopes({
    "write_*": ["files:write"],
    write_file: ["files:write", "audit"],
    "*": ["mcp"],
    read_file: ["files:read"],
  });
  assert.deepEqual(requiredScopes(scopes, "write_file"), [
    "files:write",
    "audit",
    "mcp",
  ]);
  assert.deepEqual(requiredScopes(scopes, "read_file"), ["mcp", "files:read"]);
  assert.deepEqual(requiredScopes(undefined, "read_file"), []);
  // A glob's characters are literal elsewhere: "write.file" is not "write_*".
  assert.deepEqual(
    requiredScopes(parseToolScopes({ "write.*": ["x"] }), "write_file"),
    [],
  );
});

Deno.test("missingScopes() says what the caller's token lacks for a tool", () => {
  const scopes = parseToolScopes({ "write_*": ["files:write", "audit"] });
  const reader = claimsOf({ scopes: ["files:read", "audit"], claims: {} });
  const writer = claimsOf({ scopes: ["files:write", "audit"], claims: {} });
  assert.deepEqual(missingScopes(scopes, "write_file", reader), [
    "files:write",
  ]);
  assert.deepEqual(missingScopes(scopes, "write_file", writer), []);
  assert.deepEqual(missingScopes(scopes, "read_file", reader), []);
  assert.deepEqual(missingScopes(scopes, "write_file", undefined), [
    "files:write",
    "audit",
  ]);
});

Deno.test("scopeChallenge() is the step-up challenge of MCP's authorization spec", () => {
  assert.equal(
    scopeChallenge(["files:write"], {
      always: ["mcp"],
      missing: ["files:write"],
      resourceMetadata:
        "https://gate.example.com/.well-known/oauth-protected-resource/mcp",
    }),
    'Bearer error="insufficient_scope", scope="mcp files:write", resource_metadata="https://gate.example.com/.well-known/oauth-protected-resource/mcp", error_description="the token lacks the scope files:write"',
  );
  assert.equal(
    scopeChallenge(["mcp", "a"], { always: ["mcp"] }),
    'Bearer error="insufficient_scope", scope="mcp a"',
  );
});

Deno.test("parseToolScopes() names the wrong field", async (t) => {
  const refused = (value: unknown) => {
    try {
      parseToolScopes(value);
    } catch (error) {
      assert.ok(error instanceof MappingError);
      return error;
    }
    assert.fail("accepted");
  };
  await t.step("not an object", () => {
    assert.deepEqual(refused(["a"]).path, ["scopes"]);
  });
  await t.step("a string for a list", () => {
    const error = refused({ write_file: "files:write" });
    assert.deepEqual(error.path, ["scopes", "write_file"]);
    assert.match(error.message, /write write_file: \["files:write"\]/);
  });
  await t.step("a scope with a space or a quote", () => {
    assert.deepEqual(refused({ w: ["a b"] }).path, ["scopes", "w", 0]);
    assert.deepEqual(refused({ w: ["ok", 'a"'] }).path, ["scopes", "w", 1]);
  });
  await t.step("an empty list", () => {
    assert.match(refused({ w: [] }).message, /empty list/);
  });
});

Deno.test("scopes: at the top guard every server's tools unless its entry has its own", () => {
  const file = parseGatePolicy({
    scopes: { "*": ["mcp:tools"] },
    servers: {
      files: { command: ["fs"], scopes: { "write_*": ["files:write"] } },
      web: { url: "https://mcp.example.com/mcp" },
    },
  });
  assert.deepEqual(requiredScopes(file.scopes, "fetch"), ["mcp:tools"]);
  assert.deepEqual(
    requiredScopes(file.servers?.get("web")?.policy.scopes, "fetch"),
    ["mcp:tools"],
  );
  assert.deepEqual(
    requiredScopes(file.servers?.get("files")?.policy.scopes, "write_file"),
    ["files:write"],
  );
  try {
    parseGatePolicy({
      servers: { files: { command: ["fs"], scopes: { w: ["ok", "no way"] } } },
    });
    assert.fail("accepted");
  } catch (error) {
    assert.ok(error instanceof GatePolicyError);
    assert.deepEqual(error.path, ["servers", "files", "scopes", "w", 1]);
  }
});
