/**
 * Call layers: middleware around every `tools/call`, added with
 * `server.use(layer)`. A layer sees the call before its arguments are
 * decoded, may answer it itself (refuse, serve from a cache) or call
 * `next()` and look at or change the result; layers run in the order they
 * were added, and the permission-pattern probe check runs last, right before
 * the tool, so that no layer can come between that check and the handler.
 *
 * What a layer throws is answered like what a handler throws: a `ToolError`
 * is an `isError` result, a `ProtocolError` keeps its code, anything else is
 * a JSON-RPC internal error (-32603) with the stack on stderr.
 *
 * @module
 */

import type { CallToolResult } from "../result/result.ts";
import type { ToolContext } from "./context.ts";
import type { ListedTool } from "./tool.ts";

/**
 * One `tools/call` as a layer sees it.
 *
 * @example Log each call's tool and arguments' names
 * ```ts
 * import type { ToolCall } from "@forge/toolkit/server";
 *
 * function describe(call: ToolCall): string {
 *   return `${call.name}(${Object.keys(call.arguments).join(", ")})`;
 * }
 * ```
 */
export interface ToolCall {
  /** The tool's name. */
  readonly name: string;
  /** The tool as `tools/list` shows it, `_meta` included. */
  readonly tool: ListedTool;
  /** The arguments as the client sent them, before decoding. */
  readonly arguments: Readonly<Record<string, unknown>>;
  /** The call's context: the same object the handler receives. */
  readonly ctx: ToolContext;
}

/**
 * Runs the rest of the chain (the later layers, then the tool) and gives its
 * result.
 *
 * @example A layer that retries once on an `isError` result
 * ```ts
 * import type { CallToolResult } from "@forge/toolkit";
 * import type { CallNext } from "@forge/toolkit/server";
 *
 * async function retryOnce(next: CallNext): Promise<CallToolResult> {
 *   const first = await next();
 *   return first.isError ? await next() : first;
 * }
 * ```
 */
export type CallNext = () => CallToolResult | Promise<CallToolResult>;

/**
 * Middleware around tool calls. Return `next()`'s result (changed or not),
 * or a result of your own without calling it.
 *
 * @example Time every call, and refuse calls without a tenant
 * ```ts
 * import { createServer, error, text } from "@forge/toolkit";
 * import type { CallLayer } from "@forge/toolkit/server";
 *
 * const timing: CallLayer = async (call, next) => {
 *   const started = performance.now();
 *   try {
 *     return await next();
 *   } finally {
 *     call.ctx.log.debug(`took ${(performance.now() - started).toFixed(1)} ms`);
 *   }
 * };
 * const tenant: CallLayer = (call, next) =>
 *   typeof call.ctx.meta.tenant === "string" ? next() : error("missing tenant in _meta");
 *
 * const server = createServer({ name: "s", version: "1" });
 * server.use(timing).use(tenant);
 * server.tool({ name: "ping", description: "Answers pong", handler: () => text("pong") });
 * ```
 */
export type CallLayer = (
  call: ToolCall,
  next: CallNext,
) => CallToolResult | Promise<CallToolResult>;

/**
 * Middleware around every request a session receives (every method:
 * `initialize`, `tools/list`, `resources/read`, …, of either era), for what
 * watches requests rather than tool calls: tracing, metrics, access logs.
 * Add it with `server.use({ request })`; request layers run in the order
 * added, outside the call layers.
 *
 * `next()` serves the request (the later layers, then the method) and gives
 * its result, or a promise of it; it throws (or rejects with) what is
 * answered as a JSON-RPC error: an error with a numeric `code` keeps it,
 * anything else is -32603. Return its outcome as it is (a layer that waits
 * returns a promise); a request layer observes, and should not answer by
 * itself. `request.params` is the request's own object: read `_meta` and
 * the names in it, never change it.
 *
 * @example Count JSON-RPC errors per method
 * ```ts
 * import { createServer } from "@forge/toolkit";
 * import type { RequestLayer } from "@forge/toolkit/server";
 *
 * const errors = new Map<string, number>();
 * const countErrors: RequestLayer = (request, next) => {
 *   const failed = () => errors.set(request.method, (errors.get(request.method) ?? 0) + 1);
 *   try {
 *     const outcome = next();
 *     if (outcome instanceof Promise) outcome.catch(failed);
 *     return outcome;
 *   } catch (cause) {
 *     failed();
 *     throw cause;
 *   }
 * };
 * const server = createServer({ name: "s", version: "1" });
 * server.use({ request: countErrors });
 * ```
 */
export type RequestLayer = (
  request: {
    /** The JSON-RPC method. */
    readonly method: string;
    /** The request's params as sent; `undefined` when it sent none (or not an object). */
    readonly params: Readonly<Record<string, unknown>> | undefined;
    /** The JSON-RPC request id. */
    readonly id: string | number;
    /** The transport's session id (Streamable HTTP with sessions), if any. */
    readonly sessionId: string | undefined;
    /**
     * The protocol revision the request speaks: a 2026-07-28 request's
     * `_meta` one, or the one `initialize` negotiated (`undefined` before;
     * read once `initialize` itself has answered, the one it chose).
     */
    readonly protocolVersion: string | undefined;
  },
  next: () => unknown,
) => unknown;

/** One request as a {@linkcode RequestLayer} sees it. */
export type IncomingRequest = Parameters<RequestLayer>[0];
