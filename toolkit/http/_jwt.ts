// Internal: JWT access tokens checked with jose, the only place the HTTP
// layer touches it. A token is good when a key of the authorization
// server's JWKS verifies its signature with an allowed algorithm and its
// iss, aud, exp and nbf claims hold; anything else is a TokenRejected with a
// reason that is safe to send back (it never contains the token).

import { createHash } from "node:crypto";
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  errors,
  jwtVerify,
  type JWTVerifyGetKey,
} from "jose";

/** Signature algorithms accepted by default: asymmetric ones only, so a public key can never be used as an HMAC secret. */
export const DEFAULT_ALGORITHMS: readonly string[] = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
];

/** How many verified tokens are remembered, so a client's every request does not cost a signature check. */
const MAX_REMEMBERED = 1000;
/** How long a verification is trusted at most, however far off its `exp`. */
const REMEMBER_MS = 60_000;

/** A token that is not good: `reason` says why, for `error_description`. */
export class TokenRejected extends Error {
  constructor(readonly reason: string) {
    super(`The access token was rejected: ${reason}`);
  }
}

/** The authorization server's keys could not be had (its JWKS endpoint failed). */
export class KeysUnavailable extends Error {}

/** Where the keys come from: a JWKS URL, or the keys themselves. */
export type JwksSource = string | URL | { keys: readonly JsonWebKey[] };

/** What a token's claims must say. */
export interface JwtExpectations {
  issuers: readonly string[];
  /** A token must name one of them. */
  audiences: readonly string[];
  clockToleranceS: number;
  algorithms: readonly string[];
}

/** A verifier of JWTs against one key source. */
export type JwtVerifier = (
  token: string,
  expect: JwtExpectations,
) => Promise<Record<string, unknown>>;

/**
 * Creates a verifier. A remote JWKS is fetched on first use, kept for
 * `cacheMs`, and fetched again early when a token names a key it lacks
 * (key rotation), at most once per cooldown so that tokens with made-up
 * key ids cannot make the server hammer the authorization server.
 *
 * A verified token is remembered (the last 1000, each for at most a minute
 * and never past its `exp` and the skew): a signature check costs ~350 µs,
 * and a client sends the same token with every request.
 */
export function jwtVerifier(
  source: JwksSource,
  cacheMs: number,
): JwtVerifier {
  const keys = keySource(source, cacheMs);
  const remembered = new Map<
    string,
    { claims: Record<string, unknown>; until: number }
  >();
  return async (token, expect) => {
    // A digest as the key: the table holds no tokens.
    const id = createHash("sha256").update(JSON.stringify(expect.audiences))
      .update("\n")
      .update(token).digest("base64");
    const hit = remembered.get(id);
    if (hit !== undefined) {
      if (Date.now() < hit.until) return hit.claims;
      remembered.delete(id);
    }
    let claims: Record<string, unknown>;
    try {
      const { payload } = await jwtVerify(token, keys, {
        issuer: [...expect.issuers],
        audience: [...expect.audiences],
        clockTolerance: expect.clockToleranceS,
        algorithms: [...expect.algorithms],
        requiredClaims: ["exp"],
      });
      claims = payload as Record<string, unknown>;
    } catch (error) {
      throw rejection(error);
    }
    const until = Math.min(
      ((claims.exp as number) + expect.clockToleranceS) * 1000,
      Date.now() + Math.min(cacheMs, REMEMBER_MS),
    );
    if (remembered.size >= MAX_REMEMBERED) {
      remembered.delete(remembered.keys().next().value!);
    }
    remembered.set(id, { claims, until });
    return claims;
  };
}

function keySource(source: JwksSource, cacheMs: number): JWTVerifyGetKey {
  if (typeof source === "string" || source instanceof URL) {
    const remote = createRemoteJWKSet(new URL(source), {
      cacheMaxAge: cacheMs,
      cooldownDuration: Math.min(30_000, cacheMs),
      timeoutDuration: 5_000,
    });
    return async (header, token) => {
      try {
        return await remote(header, token);
      } catch (error) {
        // The token named a key the set lacks: the token's problem.
        if (
          error instanceof errors.JWKSNoMatchingKey ||
          error instanceof errors.JWKSMultipleMatchingKeys
        ) {
          throw error;
        }
        throw new KeysUnavailable(
          `Cannot fetch the JWKS at ${source}: ${
            error instanceof Error ? error.message : String(error)
          }`,
        );
      }
    };
  }
  try {
    return createLocalJWKSet(
      structuredClone(source) as Parameters<typeof createLocalJWKSet>[0],
    );
  } catch (error) {
    throw new TypeError(
      `Cannot create OAuth resource server: jwks must be a JWKS URL or { keys: [...] } of JSON Web Keys: ${
        (error as Error).message
      }`,
    );
  }
}

/** jose's error as a TokenRejected, or as it is when it is not about the token. */
function rejection(error: unknown): Error {
  if (error instanceof KeysUnavailable) return error;
  if (error instanceof errors.JWTExpired) {
    return new TokenRejected("the token has expired");
  }
  if (error instanceof errors.JWTClaimValidationFailed) {
    switch (error.claim) {
      case "aud":
        return new TokenRejected(
          "the token was not issued for this resource (aud)",
        );
      case "iss":
        return new TokenRejected(
          "the token was not issued by a trusted authorization server (iss)",
        );
      case "nbf":
        return new TokenRejected("the token is not valid yet (nbf)");
      default:
        return new TokenRejected(
          `the token's ${error.claim.replaceAll(/[^\w]/g, "")} claim is ${
            error.reason === "missing" ? "missing" : "not valid"
          }`,
        );
    }
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) {
    return new TokenRejected("the token's signature is not valid");
  }
  if (error instanceof errors.JWKSNoMatchingKey) {
    return new TokenRejected(
      "no key of the authorization server matches the token",
    );
  }
  if (error instanceof errors.JOSEAlgNotAllowed) {
    return new TokenRejected("the token's signature algorithm is not allowed");
  }
  if (error instanceof errors.JOSEError) {
    return new TokenRejected("the token is not a valid signed JWT");
  }
  return error instanceof Error ? error : new Error(String(error));
}
