/**
 * What a tool handler receives besides its arguments: {@linkcode ToolContext}
 * with its signal, `_meta`, progress, logging, sampling and elicitation.
 *
 * @module
 */

// Defined with the transport contract, which carries it from an HTTP layer
// to the session; re-exported here, where ToolContext.auth hands it to tools.
import type { AuthInfo } from "../jsonrpc/types.ts";
export type { AuthInfo };

/**
 * Log severities, as MCP's `notifications/message` names them.
 *
 * @example Pick a level from an upstream status
 * ```ts
 * import type { ToolContext } from "@forge/toolkit";
 * import type { LogLevel } from "@forge/toolkit/server";
 *
 * function logStatus(ctx: ToolContext, status: number): void {
 *   const level: LogLevel = status >= 500 ? "error" : status >= 400 ? "warning" : "debug";
 *   ctx.log.log(level, `upstream answered ${status}`);
 * }
 * ```
 */
export type LogLevel =
  | "debug"
  | "info"
  | "notice"
  | "warning"
  | "error"
  | "critical"
  | "alert"
  | "emergency";

/**
 * Logging from inside a tool call: to stderr and, as MCP log notifications, to the client.
 *
 * @example Hand the call's logger to a helper
 * ```ts
 * import type { ToolLogger } from "@forge/toolkit/server";
 *
 * async function fetchWithRetry(url: string, log: ToolLogger): Promise<Response> {
 *   for (let attempt = 1;; attempt++) {
 *     try {
 *       return await fetch(url);
 *     } catch (cause) {
 *       if (attempt === 3) throw cause;
 *       log.warning(`Retrying ${url}`, { attempt, cause: String(cause) });
 *     }
 *   }
 * }
 * ```
 */
export interface ToolLogger {
  /** Logs at `debug`. */
  debug(message: string, data?: unknown): void;
  /** Logs at `info`. */
  info(message: string, data?: unknown): void;
  /** Logs at `warning`. */
  warning(message: string, data?: unknown): void;
  /** Logs at `error`. */
  error(message: string, data?: unknown): void;
  /** Logs at any level. */
  log(level: LogLevel, message: string, data?: unknown): void;
}

/**
 * What a handler knows about its call.
 *
 * @example Report progress and stop when cancelled
 * ```ts
 * import { text, type ToolContext } from "@forge/toolkit";
 *
 * async function reindex(files: string[], ctx: ToolContext) {
 *   for (const [i, file] of files.entries()) {
 *     ctx.signal.throwIfAborted(); // the client cancelled or the call timed out
 *     ctx.log.debug(`indexing ${file}`);
 *     await ctx.progress(i + 1, files.length);
 *   }
 *   return text(`indexed ${files.length} files`);
 * }
 * ```
 */
export interface ToolContext {
  /** Aborted when the client cancels, the call times out or the server shuts down. */
  readonly signal: AbortSignal;
  /** The request's `_meta`, `{}` when it had none. */
  readonly meta: Readonly<Record<string, unknown>>;
  /** The JSON-RPC id of the call. */
  readonly requestId: string | number;
  /** The transport session, on transports that have sessions. */
  readonly sessionId: string | undefined;
  /** The tool being called. */
  readonly toolName: string;
  /**
   * Reports progress when the client asked for it (a `progressToken`);
   * otherwise does nothing. Once the call runs as a task, the latest report
   * is the task's `statusMessage` instead (`message (done/total)`), which
   * `tasks/get` and the task's status notifications show.
   */
  progress(done: number, total?: number, message?: string): Promise<void>;
  /** Logs to stderr and to the client. */
  readonly log: ToolLogger;
  /**
   * Asks the client's model for a completion (`sampling/createMessage`).
   * Rejects when the client did not declare the `sampling` capability.
   */
  sample(params: SamplingParams): Promise<SamplingResult>;
  /**
   * Asks the user for input through the client (`elicitation/create`): a
   * form ({@linkcode ElicitationParams}) or, with `mode: "url"`, a page the
   * user visits out of band ({@linkcode UrlElicitationParams}; tell the
   * client it is done with `server.completeElicitation(elicitationId)`).
   * Rejects when the client did not declare that mode: `elicitation: {}`
   * or `{ form: {} }` allows forms, `{ url: {} }` URLs.
   */
  elicit(
    params: ElicitationParams | UrlElicitationParams,
  ): Promise<ElicitationResult>;
  /**
   * The error to throw when the call cannot go on until the user has
   * visited one or more URLs: it answers JSON-RPC error -32042 with the
   * elicitations in its `data`, and the client retries the call once the
   * user is done. Throws at once when the client did not declare
   * `elicitation.url`.
   */
  urlElicitationRequired(
    elicitations: UrlElicitationParams | UrlElicitationParams[],
  ): Error;
  /**
   * The client's roots (`roots/list`): the directories or files the user
   * lets the server work on. A client that declared `roots.listChanged` is
   * asked once and again after each `notifications/roots/list_changed`; any
   * other client is asked on every call. Rejects when the client did not
   * declare the `roots` capability.
   */
  roots(): Promise<Root[]>;
  /**
   * The verified access token of this request, when the server runs on
   * HTTP behind an OAuth resource server (`oauth` of `streamableHttp`);
   * undefined on stdio and without it. Per request: a client may send a
   * new token on any request of a session.
   */
  readonly auth?: AuthInfo;
  /**
   * The task this call runs as, once it runs as one (a tool with `task`,
   * called by a client that declared the tasks extension); undefined
   * otherwise.
   */
  readonly taskId?: string;
  /**
   * For a tool with `task: { detach: "manual" }`: answers the call with a
   * task now and runs the rest of the handler as that task, detached from
   * the request (its input requests then wait in the task for
   * `tasks/update`, and `signal` aborts on `tasks/cancel`). Before it, the
   * handler runs within the request, so it can gather input in the
   * request's own round trips. Resolves at once, changing nothing, when the
   * call already is a task or cannot be one (the client did not declare
   * the extension); rejects for a tool without `task`.
   */
  detach(): Promise<void>;
}

/**
 * A root the client offers: a directory or file the server may work on.
 *
 * @example Keep a tool inside the client's roots
 * ```ts
 * import { error, text, type ToolContext } from "@forge/toolkit";
 * import type { Root } from "@forge/toolkit/server";
 *
 * async function insideRoots(path: string, ctx: ToolContext) {
 *   const roots: Root[] = await ctx.roots();
 *   const url = new URL(`file://${path}`);
 *   const inside = roots.some((root) => url.href.startsWith(root.uri.replace(/\/?$/, "/")));
 *   return inside ? text(`${path} is yours to edit`) : error(`${path} is outside the client's roots`);
 * }
 * ```
 */
export interface Root {
  /** The root's URI, such as `file:///home/ada/project`. */
  uri: string;
  /** A name to show for it. */
  name?: string;
  /** Extra metadata. */
  _meta?: Record<string, unknown>;
}

/**
 * A message in a sampling request or result.
 *
 * @example Give the model context, then the question
 * ```ts
 * import type { SamplingMessage } from "@forge/toolkit/server";
 *
 * function ask(question: string, document: string): SamplingMessage[] {
 *   return [
 *     { role: "user", content: { type: "text", text: `Document:\n${document}` } },
 *     { role: "user", content: { type: "text", text: question } },
 *   ];
 * }
 * ```
 */
export interface SamplingMessage {
  /** Who speaks. */
  role: "user" | "assistant";
  /** What is said: text, image or audio. */
  content: { type: string; [field: string]: unknown };
}

/**
 * The parameters of `sampling/createMessage`.
 *
 * @example Summarise with the client's model
 * ```ts
 * import type { ToolContext } from "@forge/toolkit";
 * import type { SamplingParams } from "@forge/toolkit/server";
 *
 * async function summarise(body: string, ctx: ToolContext): Promise<string> {
 *   const params: SamplingParams = {
 *     messages: [{ role: "user", content: { type: "text", text: body } }],
 *     systemPrompt: "Summarise in one sentence.",
 *     maxTokens: 100,
 *     temperature: 0.2,
 *   };
 *   const answer = await ctx.sample(params);
 *   return answer.content.type === "text" ? String(answer.content.text) : "";
 * }
 * ```
 */
export interface SamplingParams {
  /** The conversation so far. */
  messages: SamplingMessage[];
  /** The most tokens the model may produce. */
  maxTokens: number;
  /** A system prompt. */
  systemPrompt?: string;
  /** Further MCP fields: `modelPreferences`, `temperature`, `stopSequences`, … */
  [field: string]: unknown;
}

/**
 * What the client's model answered.
 *
 * @example Turn the model's answer into a tool result
 * ```ts
 * import { error, text } from "@forge/toolkit";
 * import { type SamplingResult } from "@forge/toolkit/server";
 *
 * function toResult(answer: SamplingResult) {
 *   if (answer.stopReason === "maxTokens") {
 *     return error("The summary was cut off: ask for a shorter one");
 *   }
 *   return text(`${answer.content.text} (written by ${answer.model})`);
 * }
 * ```
 */
export interface SamplingResult {
  /** Who spoke (the model: `assistant`). */
  role: "user" | "assistant";
  /** What it said. */
  content: { type: string; [field: string]: unknown };
  /** The model that answered. */
  model: string;
  /** Why it stopped. */
  stopReason?: string;
  /** Further fields. */
  [field: string]: unknown;
}

/**
 * The parameters of `elicitation/create` (form mode).
 *
 * @example Ask the user to confirm a deletion
 * ```ts
 * import type { ToolContext } from "@forge/toolkit";
 * import type { ElicitationParams } from "@forge/toolkit/server";
 *
 * async function confirm(ctx: ToolContext, what: string): Promise<boolean> {
 *   const params: ElicitationParams = {
 *     message: `Delete ${what}?`,
 *     requestedSchema: {
 *       type: "object",
 *       properties: { sure: { type: "boolean", title: "Yes, delete it" } },
 *       required: ["sure"],
 *     },
 *   };
 *   const answer = await ctx.elicit(params);
 *   return answer.action === "accept" && answer.content?.sure === true;
 * }
 * ```
 */
export interface ElicitationParams {
  /**
   * Form mode.
   *
   * @default {"form"}
   */
  mode?: "form";
  /** What to ask the user. */
  message: string;
  /** A flat JSON Schema object of the fields to fill in. */
  requestedSchema: Record<string, unknown>;
  /** Further MCP fields. */
  [field: string]: unknown;
}

/**
 * The parameters of `elicitation/create` in URL mode: the client shows
 * `message` and lets the user open `url`, where the server's own page
 * collects what must not pass through the client (credentials, a payment,
 * an OAuth consent).
 *
 * @example Send the user to sign in, then wait for the server's callback
 * ```ts
 * import { createServer, error, text } from "@forge/toolkit";
 * import type { UrlElicitationParams } from "@forge/toolkit/server";
 *
 * const server = createServer({ name: "crm", version: "1" });
 * server.tool({
 *   name: "connect_crm",
 *   description: "Connects the user's CRM account",
 *   handler: async (_args, ctx) => {
 *     const elicitationId = crypto.randomUUID();
 *     const params: UrlElicitationParams = {
 *       mode: "url",
 *       message: "Sign in to your CRM to connect it",
 *       url: `https://crm.example.com/connect?state=${elicitationId}`,
 *       elicitationId,
 *     };
 *     const answer = await ctx.elicit(params);
 *     return answer.action === "accept" ? text("Opened the sign-in page") : error("Not connected");
 *   },
 * });
 * // In the HTTP callback of https://crm.example.com/connect, once signed in:
 * // await server.completeElicitation(state);
 * ```
 */
export interface UrlElicitationParams {
  /** URL mode. */
  mode: "url";
  /** Why the user should open the URL. */
  message: string;
  /** The page to open: an absolute `https:` or `http:` URL. */
  url: string;
  /** An id unique in the server, which `server.completeElicitation()` names. */
  elicitationId: string;
}

/**
 * What the user answered.
 *
 * @example Tell the model what the user decided
 * ```ts
 * import { error, text } from "@forge/toolkit";
 * import { type ElicitationResult } from "@forge/toolkit/server";
 *
 * function booking(answer: ElicitationResult) {
 *   if (answer.action !== "accept") {
 *     return error(`Nothing was booked: the user chose to ${answer.action}`);
 *   }
 *   return text(`Booked for ${answer.content?.date}`);
 * }
 * ```
 */
export interface ElicitationResult {
  /** Whether the user accepted, declined or dismissed the request. */
  action: "accept" | "decline" | "cancel";
  /** The values, when a form was accepted (URL mode has none). */
  content?: Record<string, unknown>;
  /** Further fields. */
  [field: string]: unknown;
}
