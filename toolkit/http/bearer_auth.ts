/**
 * The bearer auth layer: `Authorization: Bearer <token>` checked against a
 * fixed token in constant time, or by a callback.
 *
 * @module
 */

import { createHash } from "node:crypto";
import type { HttpLayer } from "./layer.ts";
import { jsonType } from "../_util/json_type.ts";
import { CODE, rpcError } from "./_response.ts";
import { withoutAuthorization } from "./_copy_request.ts";
import { constantTimeEqual } from "../_util/constant_time_equal.ts";

const BEARER_TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * Bearer-token authentication: either a fixed `token` or a `verify`
 * callback, not both.
 *
 * @example
 * ```ts
 * import type { HttpAuth } from "@forge/toolkit/http";
 *
 * const fixed: HttpAuth = { token: "Zm9vYmFyYmF6" };
 * const checked: HttpAuth = { verify: (token) => token.startsWith("team-") };
 * ```
 */
export interface HttpAuth {
  /**
   * The one token clients must send as `Authorization: Bearer <token>`:
   * RFC 6750 characters (`A-Z a-z 0-9 - . _ ~ + /`, then `=` padding).
   * Compared in constant time.
   *
   * @default {undefined}
   */
  token?: string;
  /**
   * Decides whether a presented token is good. A throw answers 500 and is
   * logged without the token.
   *
   * @default {undefined}
   */
  verify?: (token: string, request: Request) => boolean | Promise<boolean>;
  /**
   * The realm named in `WWW-Authenticate`.
   *
   * @default {"mcp"}
   */
  realm?: string;
}

/**
 * Creates the bearer auth layer: a request without `Authorization: Bearer
 * <token>` gets 401 with `WWW-Authenticate`, a wrong token 401 with
 * `error="invalid_token"`, a `verify` that throws 500. A good request goes
 * on without its `Authorization` header, so the token reaches nothing
 * behind the layer; the token is never logged or echoed.
 *
 * @example In a Deno.serve handler
 * ```ts
 * import { bearerAuth } from "@forge/toolkit/http";
 *
 * const auth = bearerAuth({ token: "s3cret-token" });
 * const hello = () => Promise.resolve(new Response("hello"));
 * const handler = (request: Request) => auth(request, hello);
 *
 * (await handler(new Request("http://localhost/"))).status; // 401
 * const good = new Request("http://localhost/", {
 *   headers: { authorization: "Bearer s3cret-token" },
 * });
 * (await handler(good)).status; // 200
 * ```
 */
export function bearerAuth(auth: HttpAuth): HttpLayer {
  if (typeof auth !== "object" || auth === null) {
    throw new TypeError(
      `Cannot create HTTP handler: auth must be { token } or { verify }, got ${
        jsonType(auth)
      }`,
    );
  }
  const hasToken = auth.token !== undefined;
  const hasVerify = auth.verify !== undefined;
  if (hasToken === hasVerify) {
    throw new TypeError(
      "Cannot create HTTP handler: auth must have exactly one of token and verify",
    );
  }
  // The token itself never appears in a message.
  if (
    hasToken &&
    (typeof auth.token !== "string" || !BEARER_TOKEN.test(auth.token))
  ) {
    throw new TypeError(
      "Cannot create HTTP handler: auth.token must be a non-empty bearer token of A-Z a-z 0-9 - . _ ~ + / and trailing =",
    );
  }
  if (hasVerify && typeof auth.verify !== "function") {
    throw new TypeError(
      `Cannot create HTTP handler: auth.verify must be a function, got ${
        jsonType(auth.verify)
      }`,
    );
  }
  const realm = (auth.realm ?? "mcp").replaceAll(/["\\]/g, "");
  const challenge = `Bearer realm="${realm}"`;
  const expected = hasToken ? sha256(auth.token!) : undefined;
  const verify = auth.verify;

  return async (request, next) => {
    const header = request.headers.get("authorization");
    const match = header === null ? null : /^Bearer +(\S+) *$/i.exec(header);
    if (match === null) {
      return rpcError(
        401,
        CODE.TRANSPORT,
        "Unauthorized: send Authorization: Bearer <token>",
        { headers: { "www-authenticate": challenge } },
      );
    }
    const presented = match[1];
    let good: boolean;
    if (expected !== undefined) {
      good = constantTimeEqual(expected, sha256(presented));
    } else {
      try {
        good = (await verify!(presented, request)) === true;
      } catch (error) {
        console.error(
          "Bearer token verification failed:",
          error instanceof Error ? error.message : String(error),
        );
        return rpcError(
          500,
          CODE.INTERNAL_ERROR,
          "Internal error: the token could not be verified",
        );
      }
    }
    if (!good) {
      return rpcError(
        401,
        CODE.TRANSPORT,
        "Unauthorized: the bearer token is not valid",
        {
          headers: {
            "www-authenticate": `${challenge}, error="invalid_token"`,
          },
        },
      );
    }
    return await next(withoutAuthorization(request));
  };
}

// node:crypto's hash is synchronous: crypto.subtle.digest costs ~45 µs a
// call here, most of it the hop to a worker thread, for 28 bytes of input.
function sha256(text: string): Uint8Array {
  return createHash("sha256").update(text).digest();
}
