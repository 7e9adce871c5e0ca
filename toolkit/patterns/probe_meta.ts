/**
 * The `_meta` keys of the permission-pattern probe, exactly as the wire
 * contract fixes them (docs/mcp-contract.md).
 *
 * @module
 */

/**
 * Request flag in a call's `_meta`: this call is a probe.
 *
 * @example What a host sends to ask before it approves
 * ```ts
 * import { META_PERMISSION_PATTERNS } from "@forge/toolkit/probe";
 * import { type JsonRpcMessage } from "@forge/toolkit/jsonrpc";
 *
 * const probe: JsonRpcMessage = {
 *   jsonrpc: "2.0",
 *   id: 1,
 *   method: "tools/call",
 *   params: {
 *     name: "write_file",
 *     arguments: { path: "a.txt", content: "hi" },
 *     _meta: { [META_PERMISSION_PATTERNS]: true },
 *   },
 * };
 * ```
 */
export const META_PERMISSION_PATTERNS = "forge.permission_patterns";
/**
 * Result `_meta` key: the patterns that depend on the arguments.
 *
 * @example Probe a tool from a test
 * ```ts
 * import { createServer } from "@forge/toolkit";
 * import { META_PATTERNS, META_PERMISSION_PATTERNS } from "@forge/toolkit/probe";
 * import { registerPatternTool, text } from "@forge/toolkit";
 * import { connect } from "@forge/toolkit/testing";
 * import { z } from "zod";
 *
 * const server = createServer({ name: "files", version: "1" });
 * registerPatternTool(server, {
 *   name: "rm",
 *   description: "Deletes a file",
 *   input: z.object({ path: z.string() }),
 *   patterns: ({ path }) => [`delete:${path}`],
 *   handler: () => text("deleted"),
 * });
 * await using client = await connect(server);
 * const _meta = { [META_PERMISSION_PATTERNS]: true };
 * const params = { name: "rm", arguments: { path: "a.txt" }, _meta };
 * const answer = await client.request("tools/call", params);
 * (answer._meta as Record<string, unknown>)[META_PATTERNS]; // ["delete:a.txt"]
 * ```
 */
export const META_PATTERNS = "forge.patterns";
/**
 * Result `_meta` key: the patterns that hold for every call of the tool.
 *
 * @example Gather every pattern a probed call needs, on the host
 * ```ts
 * import { type CallToolResult } from "@forge/toolkit";
 * import { META_ALWAYS, META_PATTERNS } from "@forge/toolkit/probe";
 *
 * function needed(answer: CallToolResult): string[] {
 *   const meta = answer._meta ?? {};
 *   return [...(meta[META_ALWAYS] as string[]), ...(meta[META_PATTERNS] as string[])];
 * }
 * needed({
 *   content: [],
 *   _meta: { [META_PATTERNS]: ["write:a.txt"], [META_ALWAYS]: ["net:https://api.example.com"] },
 * }); // ["net:https://api.example.com", "write:a.txt"]
 * ```
 */
export const META_ALWAYS = "forge.always";
/**
 * Tool `_meta` key in `tools/list`: the tool answers probes.
 *
 * @example Find the tools a host can probe
 * ```ts
 * import { createServer } from "@forge/toolkit";
 * import { META_SUPPORTS_PERMISSION_PATTERNS } from "@forge/toolkit/probe";
 * import { registerPatternTool, text } from "@forge/toolkit";
 * import { z } from "zod";
 *
 * const server = createServer({ name: "files", version: "1" });
 * server.tool({ name: "ls", description: "Lists files", handler: () => text("a.txt") });
 * registerPatternTool(server, {
 *   name: "rm",
 *   description: "Deletes a file",
 *   input: z.object({ path: z.string() }),
 *   patterns: ({ path }) => [`delete:${path}`],
 *   handler: () => text("deleted"),
 * });
 * server.listTools().filter((tool) => tool._meta?.[META_SUPPORTS_PERMISSION_PATTERNS]);
 * // → [the "rm" tool]
 * ```
 */
export const META_SUPPORTS_PERMISSION_PATTERNS =
  "forge.supports_permission_patterns";

/**
 * Request `_meta` key of a real call: the patterns a host approved for it,
 * from the probe's answer. A toolkit server recomputes the call's patterns
 * before its handler runs and refuses the call (`isError`) when it needs a
 * pattern that is not in the list, such as a file swapped for a symbolic
 * link between the probe and the call.
 *
 * @example What a gateway sends once a probe's patterns are approved
 * ```ts
 * import { META_ALWAYS, META_APPROVED_PATTERNS, META_PATTERNS } from "@forge/toolkit/probe";
 * import type { CallToolResult } from "@forge/toolkit";
 *
 * const answer: CallToolResult = {
 *   content: [],
 *   _meta: { [META_PATTERNS]: ["write:notes/a.md"], [META_ALWAYS]: [] },
 * };
 * const meta = answer._meta ?? {};
 * const approved = [
 *   ...(meta[META_ALWAYS] as string[]),
 *   ...(meta[META_PATTERNS] as string[]),
 * ];
 * const call = {
 *   name: "write_file",
 *   arguments: { path: "notes/a.md", content: "# A" },
 *   _meta: { [META_APPROVED_PATTERNS]: approved },
 * };
 * ```
 */
export const META_APPROVED_PATTERNS = "forge.approved_patterns";

/**
 * The `_meta` keys of the probe's wire contract in one object, for code
 * that handles them all (a host, a gateway, a test). Each is also exported
 * under its own name: {@linkcode META_PERMISSION_PATTERNS},
 * {@linkcode META_PATTERNS}, {@linkcode META_ALWAYS},
 * {@linkcode META_SUPPORTS_PERMISSION_PATTERNS} and
 * {@linkcode META_APPROVED_PATTERNS}.
 *
 * @example Read a probe's answer
 * ```ts
 * import { type CallToolResult } from "@forge/toolkit";
 * import { PROBE_META } from "@forge/toolkit/probe";
 *
 * function patternsOfAnswer(answer: CallToolResult): string[] {
 *   const meta = answer._meta ?? {};
 *   return [
 *     ...(meta[PROBE_META.ALWAYS] as string[] ?? []),
 *     ...(meta[PROBE_META.PATTERNS] as string[] ?? []),
 *   ];
 * }
 * patternsOfAnswer({ content: [], _meta: { [PROBE_META.PATTERNS]: ["write:a.txt"] } });
 * ```
 */
export const PROBE_META: {
  readonly PERMISSION_PATTERNS: typeof META_PERMISSION_PATTERNS;
  readonly PATTERNS: typeof META_PATTERNS;
  readonly ALWAYS: typeof META_ALWAYS;
  readonly SUPPORTS_PERMISSION_PATTERNS:
    typeof META_SUPPORTS_PERMISSION_PATTERNS;
  readonly APPROVED_PATTERNS: typeof META_APPROVED_PATTERNS;
} = Object.freeze({
  PERMISSION_PATTERNS: META_PERMISSION_PATTERNS,
  PATTERNS: META_PATTERNS,
  ALWAYS: META_ALWAYS,
  SUPPORTS_PERMISSION_PATTERNS: META_SUPPORTS_PERMISSION_PATTERNS,
  APPROVED_PATTERNS: META_APPROVED_PATTERNS,
});
