/**
 * The body limit layer: a request body larger than a limit gets 413, one
 * that does not arrive within a deadline gets 408.
 *
 * @module
 */

import type { HttpLayer } from "./layer.ts";
import {
  BODY_DEADLINE_MS,
  bodyLayer,
  limitBody,
  MAX_BODY_BYTES,
} from "./_body.ts";

/**
 * The default limit on one request body: 4 MiB.
 *
 * @example
 * ```ts
 * import { createServer } from "@forge/toolkit";
 * import { createHttpHandler, DEFAULT_MAX_BODY_BYTES } from "@forge/toolkit/http";
 *
 * // Room for larger arguments.
 * createHttpHandler(createServer({ name: "s", version: "1" }), {
 *   maxBodyBytes: 4 * DEFAULT_MAX_BODY_BYTES,
 * });
 * ```
 */
export const DEFAULT_MAX_BODY_BYTES: number = MAX_BODY_BYTES;

/**
 * How long a request body may take to arrive by default: 5 seconds, counted
 * from when the layer gets the request (its headers have arrived).
 *
 * @example
 * ```ts
 * import { bodyLimit, DEFAULT_BODY_DEADLINE_MS } from "@forge/toolkit/http";
 *
 * // Clients on slow links get twice as long.
 * bodyLimit({ bodyDeadlineMs: 2 * DEFAULT_BODY_DEADLINE_MS });
 * ```
 */
export const DEFAULT_BODY_DEADLINE_MS: number = BODY_DEADLINE_MS;

/**
 * Options for {@linkcode bodyLimit}.
 *
 * @example
 * ```ts
 * import type { BodyLimitOptions } from "@forge/toolkit/http";
 *
 * const options: BodyLimitOptions = { maxBodyBytes: 1024 * 1024, bodyDeadlineMs: 2000 };
 * ```
 */
export interface BodyLimitOptions {
  /**
   * The largest request body accepted, in bytes; a larger one gets 413.
   *
   * @default {4194304}
   */
  maxBodyBytes?: number;
  /**
   * How long the whole body may take to arrive, in milliseconds; a slower
   * one gets 408 and its connection is closed, so a client sending a byte a
   * second cannot hold it open.
   *
   * @default {5000}
   */
  bodyDeadlineMs?: number;
}

/**
 * Creates the body limit layer. It reads nothing itself: the body handed on
 * fails to read once it passes `maxBodyBytes` (at once when `Content-Length`
 * says it would) or `bodyDeadlineMs` ends before it does, and the layer
 * answers that failure with 413 or 408. The handler behind it must let the
 * error of its body read propagate (`await request.text()` does).
 *
 * @example In front of a handler of your own
 * ```ts
 * import { bodyLimit } from "@forge/toolkit/http";
 *
 * const limit = bodyLimit({ maxBodyBytes: 16 });
 * const echo = async (request: Request) => new Response(await request.text());
 * const response = await limit(
 *   new Request("http://localhost/", { method: "POST", body: "x".repeat(100) }),
 *   echo,
 * );
 * response.status; // 413
 * ```
 */
export function bodyLimit(options: BodyLimitOptions = {}): HttpLayer {
  return bodyLayer(options, limitBody);
}
