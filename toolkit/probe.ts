/**
 * The permission-pattern probe: a host asks a side-effecting tool which
 * access patterns a call needs, and the tool answers without acting.
 *
 * A probe is an ordinary `tools/call` whose `_meta` carries
 * `"forge.permission_patterns": true`; the answer is
 * `{ content: [], _meta: { "forge.patterns": [...], "forge.always": [...] } }`.
 * Tools registered with {@linkcode registerPatternTool} compute their
 * patterns once per call, by the same code for the probe and the real call,
 * and the handler receives what was computed as `ctx.access`.
 *
 * This entry holds the probe's helpers and its wire constants; the
 * canonicalisers that compute targets are in `@forge/toolkit/patterns`.
 *
 * Runs on Deno, Node (20 and later), Bun and Cloudflare Workers (workerd):
 * nothing reaches for `Deno` at import. The canonicalisers that resolve
 * real paths (`fileAccess`, from `@forge/toolkit/patterns`) need Deno.
 *
 * @example A tool whose probe names the file it would write
 * ```ts
 * import { createServer, fileAccess, text } from "@forge/toolkit";
 * import { registerPatternTool } from "@forge/toolkit/probe";
 * import { connect } from "@forge/toolkit/testing";
 * import { z } from "zod";
 *
 * const server = createServer({ name: "notes", version: "0.1.0" });
 * const files = fileAccess(await Deno.makeTempDir());
 * registerPatternTool(server, {
 *   name: "touch",
 *   description: "Creates an empty note",
 *   input: z.object({ path: z.string() }),
 *   patterns: async ({ path }) => [await files.write(path)],
 *   handler: async (_args, ctx) => {
 *     const [file] = ctx.access;
 *     await Deno.writeTextFile(file.path, "");
 *     return text(`created ${file.target}`);
 *   },
 * });
 * const client = await connect(server);
 * const probe = await client.probe("touch", { path: "a.md" });
 * console.log(probe.patterns); // ["write:a.md"]
 * await client.close();
 * ```
 *
 * @module
 */

import { checkPattern } from "../validate/_pattern_grammar.ts";
import type { CallToolResult } from "./result/result.ts";
import type { Infer, ToolSchema } from "./schema.ts";
import type { ToolContext } from "./server/context.ts";
import type { ToolDefinition } from "./server/tool.ts";
import type { ToolServer } from "./server/server.ts";
import { markProbeHandler } from "./patterns/_probe_mark.ts";
import { isThenable } from "./_util/thenable.ts";
import { AccessContext } from "./_access_context.ts";
import { refuseUnapproved } from "./patterns/_probe_guard.ts";
import {
  META_ALWAYS,
  META_PATTERNS,
  META_PERMISSION_PATTERNS,
  META_SUPPORTS_PERMISSION_PATTERNS,
} from "./patterns/probe_meta.ts";

// The wire constants are defined in a leaf module because the server reads
// them too (to tell a probe from a call) and these helpers import the
// server's types; this entry is their public home.
export {
  META_ALWAYS,
  META_APPROVED_PATTERNS,
  META_PATTERNS,
  META_PERMISSION_PATTERNS,
  META_SUPPORTS_PERMISSION_PATTERNS,
  PROBE_META,
} from "./patterns/probe_meta.ts";

/**
 * Anything that names the patterns of one access, such as the result of a
 * canonicalising builder: it carries the resolved target for the handler too.
 *
 * @example An access of your own that hands the handler its checked target
 * ```ts
 * import { createServer, registerPatternTool, text } from "@forge/toolkit";
 * import { type Access } from "@forge/toolkit/probe";
 * import { z } from "zod";
 *
 * function tableAccess(table: string): Access & { table: string } {
 *   return { table, patterns: [`x-sql:${table}`] };
 * }
 * registerPatternTool(createServer({ name: "db", version: "1" }), {
 *   name: "truncate",
 *   description: "Empties a table",
 *   input: z.object({ table: z.string() }),
 *   patterns: ({ table }) => [tableAccess(table.toLowerCase())],
 *   handler: (_args, ctx) => text(`truncated ${ctx.access[0].table}`),
 * });
 * ```
 */
export interface Access {
  /** The canonical patterns this access needs, in `verb:target` form. */
  readonly patterns: readonly string[];
}

/**
 * What a tool's `patterns` function returns: pattern strings or accesses.
 *
 * @example Mix a computed access with a fixed pattern
 * ```ts
 * import { fileAccess } from "@forge/toolkit";
 * import { type AccessList, patternsOf } from "@forge/toolkit/probe";
 *
 * const site = fileAccess("/srv/site");
 * async function publishPatterns(page: string): Promise<AccessList> {
 *   return [await site.read(`drafts/${page}`), "net:https://cdn.example.com"];
 * }
 * // patternsOf(await publishPatterns("a.md"))
 * // → ["read:drafts/a.md", "net:https://cdn.example.com"]
 * ```
 */
export type AccessList = readonly (string | Access)[];

/**
 * The context of a pattern tool's handler: what the probe computed, too.
 *
 * @example A handler written apart from its tool
 * ```ts
 * import { text } from "@forge/toolkit";
 * import { type FileTarget } from "@forge/toolkit/patterns";
 * import { type PatternToolContext } from "@forge/toolkit/probe";
 *
 * async function append(args: { line: string }, ctx: PatternToolContext<FileTarget[]>) {
 *   const [target] = ctx.access; // resolved once, for the probe and for this call
 *   await Deno.writeTextFile(target.path, `${args.line}\n`, { append: true, signal: ctx.signal });
 *   return text(`appended to ${target.target}`);
 * }
 * ```
 */
export type PatternToolContext<P extends AccessList> = ToolContext & {
  /** Exactly what `patterns` returned for this call, computed once. */
  readonly access: P;
};

/**
 * The probe half of a pattern tool.
 *
 * @example A fetch tool that also always writes its cache
 * ```ts
 * import { netAccess, text } from "@forge/toolkit";
 * import { wrapProbe } from "@forge/toolkit/probe";
 * import type { NetTarget } from "@forge/toolkit/patterns";
 * import type { ProbeDefinition } from "@forge/toolkit/probe";
 *
 * const probe: ProbeDefinition<{ url: string }, NetTarget[]> = {
 *   patterns: ({ url }) => [netAccess(url, { schemes: ["https"] })],
 *   always: ["write:.cache"],
 * };
 * const handler = wrapProbe(probe, async (_args, { access: [target], signal }) => {
 *   const response = await fetch(target.url, { signal });
 *   return text(await response.text());
 * });
 * ```
 */
export interface ProbeDefinition<A, P extends AccessList> {
  /**
   * The patterns a call needs, from its decoded arguments. Throw a
   * `ToolError` for arguments that name no acceptable target (a path
   * leaving the root): both the probe and the call then answer `isError`.
   */
  patterns: (args: A, ctx: ToolContext) => P | Promise<P>;
  /**
   * Patterns that hold for every call, whatever the arguments.
   *
   * @default {[]}
   */
  always?: readonly string[];
}

/**
 * A tool with side effects that supports the probe.
 *
 * @example Define a pattern tool apart, then register it
 * ```ts
 * import { createServer, execAccess, registerPatternTool, text } from "@forge/toolkit";
 * import type { PatternToolDefinition } from "@forge/toolkit";
 * import type { ExecTarget } from "@forge/toolkit/patterns";
 * import { z } from "zod";
 *
 * const input = z.object({ ref: z.string() });
 * const checkout: PatternToolDefinition<typeof input, ExecTarget[]> = {
 *   name: "git_checkout",
 *   description: "Switches the working tree to a branch",
 *   input,
 *   patterns: ({ ref }) => [execAccess(["git", "checkout", ref])],
 *   handler: async (_args, { access: [run] }) => {
 *     const { code } = await new Deno.Command(run.program, { args: run.args }).output();
 *     return text(`git checkout exited with ${code}`);
 *   },
 * };
 * registerPatternTool(createServer({ name: "git", version: "1" }), checkout);
 * ```
 */
export interface PatternToolDefinition<
  S extends ToolSchema | undefined,
  P extends AccessList,
> extends Omit<ToolDefinition<S>, "handler">, ProbeDefinition<Infer<S>, P> {
  /** Performs the call, acting only on the targets in `ctx.access`. */
  handler: (
    args: Infer<S>,
    ctx: PatternToolContext<P>,
  ) => CallToolResult | Promise<CallToolResult>;
}

/**
 * Whether a call is a probe, from its context or its `_meta`.
 *
 * @example
 * ```ts
 * import { isProbe, META_PERMISSION_PATTERNS } from "@forge/toolkit/probe";
 *
 * isProbe({ [META_PERMISSION_PATTERNS]: true }); // true
 * isProbe({ meta: {} }); // false
 * ```
 */
export function isProbe(
  ctxOrMeta:
    | { readonly meta?: Readonly<Record<string, unknown>> }
    | Readonly<Record<string, unknown>>
    | undefined,
): boolean {
  if (ctxOrMeta === undefined || ctxOrMeta === null) return false;
  const meta = "meta" in ctxOrMeta && typeof ctxOrMeta.meta === "object"
    ? ctxOrMeta.meta as Record<string, unknown>
    : ctxOrMeta as Record<string, unknown>;
  return meta?.[META_PERMISSION_PATTERNS] === true;
}

/**
 * The patterns of an access list, flattened and checked against the grammar.
 * A malformed pattern is a bug in the tool, so it throws a plain `Error`,
 * which the server answers as an infrastructure failure (JSON-RPC -32603).
 *
 * @example
 * ```ts
 * import { patternsOf } from "@forge/toolkit/probe";
 *
 * patternsOf(["read:a.txt", { patterns: ["delete:a", "write:b"] }]);
 * // ["read:a.txt", "delete:a", "write:b"]
 * ```
 */
export function patternsOf(access: AccessList): string[] {
  if (!Array.isArray(access)) {
    throw new Error(
      `Invalid permission patterns: expected an array of patterns or accesses, got ${typeof access}`,
    );
  }
  const patterns: string[] = [];
  for (const item of access) {
    const list = typeof item === "string" ? [item] : item?.patterns;
    if (!Array.isArray(list)) {
      throw new Error(
        "Invalid permission patterns: expected a pattern string or an object with `patterns`",
      );
    }
    for (const pattern of list) patterns.push(checked(pattern));
  }
  return patterns;
}

function checked(pattern: string): string {
  const parts = checkPattern(pattern);
  if (typeof parts === "string") {
    throw new Error(
      `Invalid permission pattern ${JSON.stringify(pattern)}: ${parts}`,
    );
  }
  return pattern;
}

/**
 * Wraps a handler so that a probe answers the patterns and never runs it,
 * while a real call runs it with the same computed access as `ctx.access`.
 *
 * @example
 * ```ts
 * import { text } from "@forge/toolkit";
 * import { wrapProbe } from "@forge/toolkit/probe";
 *
 * const handler = wrapProbe(
 *   { patterns: (args: { path: string }) => [`write:${args.path}`] },
 *   (args, ctx) => text(`would write ${ctx.access[0]}`),
 * );
 * ```
 */
export function wrapProbe<A, P extends AccessList>(
  probe: ProbeDefinition<A, P>,
  handler: (
    args: A,
    ctx: PatternToolContext<P>,
  ) => CallToolResult | Promise<CallToolResult>,
): (args: A, ctx: ToolContext) => Promise<CallToolResult> {
  const run = probeHandler(probe, handler);
  const wrapped = async (args: A, ctx: ToolContext): Promise<CallToolResult> =>
    await run(args, ctx);
  markProbeHandler(wrapped);
  return wrapped;
}

/**
 * What wrapProbe() wraps, answering synchronously when `patterns` and the
 * handler do: the server then answers without a promise, as it does for any
 * synchronous tool, and a pattern tool's calls leave far less garbage.
 */
function probeHandler<A, P extends AccessList>(
  probe: ProbeDefinition<A, P>,
  handler: (
    args: A,
    ctx: PatternToolContext<P>,
  ) => CallToolResult | Promise<CallToolResult>,
): (args: A, ctx: ToolContext) => CallToolResult | Promise<CallToolResult> {
  const always = (probe.always ?? []).map(checked);
  const act = (args: A, ctx: ToolContext, access: P) => {
    const patterns = patternsOf(access);
    if (isProbe(ctx)) {
      return {
        content: [],
        _meta: { [META_PATTERNS]: patterns, [META_ALWAYS]: [...always] },
      };
    }
    // What was approved is what runs: computed now, not at the probe.
    const refusal = refuseUnapproved(ctx.meta, always, patterns);
    if (refusal !== undefined) return refusal;
    // Not a spread: the context's signal is created only when read.
    return handler(args, new AccessContext(ctx, access));
  };
  const wrapped = (args: A, ctx: ToolContext) => {
    const access = probe.patterns(args, ctx);
    return isThenable(access)
      ? Promise.resolve(access).then((list) => act(args, ctx, list))
      : act(args, ctx, access);
  };
  markProbeHandler(wrapped);
  return wrapped;
}

/**
 * Registers a side-effecting tool that supports the probe: `tools/list`
 * marks it with `_meta["forge.supports_permission_patterns"] = true`, a
 * probe answers its patterns without running `handler`, and a real call
 * hands `handler` the access `patterns` computed for it.
 *
 * @example A file writer
 * ```ts
 * import { createServer, registerPatternTool, text } from "@forge/toolkit";
 * import { z } from "zod";
 *
 * const server = createServer({ name: "files", version: "1.0.0" });
 * registerPatternTool(server, {
 *   name: "touch",
 *   description: "Creates an empty file",
 *   input: z.object({ path: z.string() }),
 *   patterns: ({ path }) => [`write:${path}`],
 *   handler: async ({ path }) => {
 *     await Deno.writeTextFile(path, "");
 *     return text(`created ${path}`);
 *   },
 * });
 * ```
 */
export function registerPatternTool<
  S extends ToolSchema | undefined,
  P extends AccessList,
>(
  server: ToolServer,
  def: PatternToolDefinition<S, P>,
): ToolServer {
  const { patterns, always, handler, ...tool } = def;
  server.tool<S>({
    ...tool,
    _meta: { ...tool._meta, [META_SUPPORTS_PERMISSION_PATTERNS]: true },
    handler: probeHandler<Infer<S>, P>({ patterns, always }, handler),
  });
  return server;
}
