// Internal: `auth:` in the policy file, the toolkit's OAuth resource server
// in front of a gate served over HTTP. The file names the authorization
// server (its issuer URL, its keys as a JWKS URL or a JWKS file beside the
// policy), the scopes every request needs, and, when the gate is reached
// by a public name, its resource URL; authOptionsOf() turns that into the
// options of oauthResource(), the gate's own URL as the tokens' audience.

import { dirname, resolve } from "node:path";
import type { OAuthResourceOptions } from "../../http/oauth_resource.ts";
import { isRecord, typeName } from "../../_util/json_type.ts";
import { secureUrlOf } from "../../_util/secure_url.ts";
import { MappingError } from "./_tool_mapping.ts";
import { parseScopeList } from "./_scopes.ts";
import { listWords } from "../../patterns/_messages.ts";

/**
 * The checked `auth:` of a policy file: the OAuth resource server in front
 * of a gate served over HTTP.
 *
 * @example
 * ```ts
 * import { parseGatePolicy } from "@forge/toolkit/gate";
 *
 * const { auth } = parseGatePolicy({
 *   auth: { issuer: "https://auth.example.com", jwks: "jwks.json", scopes: ["mcp"] },
 * });
 * auth?.jwks; // { file: "jwks.json" }
 * ```
 */
export interface GateAuth {
  /** The issuer URLs of the authorization servers tokens come from (`issuer:`, one or a list). */
  readonly issuers: readonly string[];
  /** Their signing keys: a JWKS URL, or a JWKS file as written (relative to the policy file). */
  readonly jwks: Readonly<{ url: string } | { file: string }>;
  /** The gate's resource URL (the tokens' audience), when the file sets it. */
  readonly resource?: string;
  /** Scopes every request's token must have. */
  readonly scopes: readonly string[];
  /** A human-readable name of the gate, as the metadata's `resource_name`. */
  readonly name?: string;
}

const AUTH_KEYS: readonly string[] = [
  "issuer",
  "jwks",
  "resource",
  "scopes",
  "name",
];

/**
 * Checks `auth:`: `issuer` (an https: URL, or a list of them; http: only
 * on a loopback host), `jwks` (a JWKS URL, or the path of a JWKS file
 * relative to the policy file), and optional `resource`, `scopes`, `name`.
 *
 * @throws {MappingError} Naming the wrong field.
 */
export function parseAuth(value: unknown): GateAuth {
  const path = ["auth"];
  if (!isRecord(value)) {
    throw new MappingError(
      `expected { issuer: "https://…", jwks: "https://…/jwks.json" or "keys.json" }, got ${
        typeName(value)
      }`,
      path,
    );
  }
  for (const key of Object.keys(value)) {
    if (!AUTH_KEYS.includes(key)) {
      throw new MappingError(
        `unknown key: expected ${listWords(AUTH_KEYS)}`,
        [...path, key],
      );
    }
  }
  if (value.issuer === undefined || value.issuer === null) {
    throw new MappingError(
      'missing: expected the authorization server\'s issuer URL, such as issuer: "https://auth.example.com"',
      [...path, "issuer"],
    );
  }
  const issuers = Array.isArray(value.issuer)
    ? value.issuer.map((issuer: unknown, index) =>
      secureUrl(issuer, [...path, "issuer", index])
    )
    : [secureUrl(value.issuer, [...path, "issuer"])];
  if (issuers.length === 0) {
    throw new MappingError(
      "expected at least one issuer URL, got an empty list",
      [...path, "issuer"],
    );
  }
  const jwks = parseJwks(value.jwks, [...path, "jwks"]);
  const resource = value.resource === undefined || value.resource === null
    ? undefined
    : secureUrl(value.resource, [...path, "resource"]);
  const scopes = value.scopes === undefined || value.scopes === null
    ? []
    : parseScopeList(value.scopes, [...path, "scopes"]);
  const name = value.name ?? undefined;
  if (name !== undefined && (typeof name !== "string" || name === "")) {
    throw new MappingError(
      `expected the gate's name as text, got ${typeName(name)}`,
      [...path, "name"],
    );
  }
  return Object.freeze({
    issuers: Object.freeze(issuers),
    jwks,
    ...(resource === undefined ? {} : { resource }),
    scopes,
    ...(name === undefined ? {} : { name: name as string }),
  });
}

function parseJwks(
  value: unknown,
  path: readonly (string | number)[],
): Readonly<{ url: string } | { file: string }> {
  if (typeof value !== "string" || value === "") {
    throw new MappingError(
      `${
        value === undefined ? "missing: " : ""
      }expected the authorization server's keys: a JWKS URL ("https://auth.example.com/.well-known/jwks.json") or a JWKS file's path, got ${
        value === undefined ? "nothing" : typeName(value)
      }`,
      path,
    );
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
    return Object.freeze({ url: secureUrl(value, path) });
  }
  return Object.freeze({ file: value });
}

/** An absolute https: URL, or http: on a loopback host, as oauthResource() takes. */
function secureUrl(
  value: unknown,
  path: readonly (string | number)[],
): string {
  const url = secureUrlOf(value);
  if (url === undefined) {
    throw new MappingError(
      `expected an absolute https: URL (http: only on localhost), got ${
        typeof value === "string" ? JSON.stringify(value) : typeName(value)
      }`,
      path,
    );
  }
  return value as string;
}

/** Options for {@linkcode authOptionsOf}. */
export interface AuthOptionsOfOptions {
  /**
   * The gate's public URL of its MCP endpoint (`https://gate.example.com/mcp`),
   * the audience its tokens must name, unless `auth.resource` sets it.
   * Without either, oauthResource() takes the loopback address it is served
   * on (local development only).
   */
  resource?: string;
  /** The policy file, whose folder a relative `auth.jwks` file is read from. */
  policyFile?: string;
  /** The endpoint's path, as oauthResource()'s `path`. */
  path?: string;
}

/**
 * The options of the toolkit's OAuth resource server for a checked
 * `auth:`: its issuers, its keys (a JWKS file is read now), the resource
 * URL as the tokens' audience and the scopes every request needs.
 *
 * @example
 * ```ts
 * import { authOptionsOf, parseAuth } from "./_auth.ts";
 *
 * const auth = parseAuth({
 *   issuer: "https://auth.example.com",
 *   jwks: "https://auth.example.com/.well-known/jwks.json",
 *   scopes: ["mcp"],
 * });
 * const options = await authOptionsOf(auth, { resource: "https://gate.example.com/mcp" });
 * options.resource; // "https://gate.example.com/mcp"
 * ```
 *
 * @throws {TypeError} When the JWKS file cannot be read or is not `{ keys: [...] }`.
 */
export async function authOptionsOf(
  auth: GateAuth,
  options: AuthOptionsOfOptions = {},
): Promise<OAuthResourceOptions> {
  let jwks: OAuthResourceOptions["jwks"];
  if ("url" in auth.jwks) {
    jwks = auth.jwks.url;
  } else {
    const file = resolve(
      options.policyFile === undefined ? "." : dirname(options.policyFile),
      auth.jwks.file,
    );
    let parsed: unknown;
    try {
      parsed = JSON.parse(await Deno.readTextFile(file));
    } catch (error) {
      throw new TypeError(
        `Cannot read auth.jwks: ${file}: ${
          error instanceof Error ? error.message : String(error)
        }`,
        { cause: error },
      );
    }
    if (
      !isRecord(parsed) || !Array.isArray(parsed.keys) ||
      !parsed.keys.every(isRecord)
    ) {
      throw new TypeError(
        `Cannot read auth.jwks: ${file}: expected a JWKS, { "keys": [ { "kty": … } ] }, got ${
          isRecord(parsed) ? "an object without a keys list" : typeName(parsed)
        }`,
      );
    }
    jwks = { keys: parsed.keys as JsonWebKey[] };
  }
  const resource = auth.resource ?? options.resource;
  return {
    authorizationServers: [...auth.issuers],
    jwks,
    ...(resource === undefined ? {} : { resource }),
    ...(options.path === undefined ? {} : { path: options.path }),
    scopes: [...auth.scopes],
    ...(auth.name === undefined ? {} : { resourceName: auth.name }),
  };
}
