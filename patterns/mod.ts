/**
 * The permission-pattern probe, the tool side: a host asks a side-effecting
 * tool which patterns a call needs (`write:notes/a.md`, `net:https://api.example.com`,
 * `exec:git status`) and decides before anything runs.
 *
 * - {@linkcode registerPatternTool} registers a tool that answers probes;
 *   {@linkcode wrapProbe} makes such a handler; {@linkcode isProbe} tells a
 *   probe from a call.
 * - {@linkcode fileAccess}, {@linkcode netAccess} and {@linkcode execAccess}
 *   compute canonical targets, so that the pattern a probe names and the
 *   target the handler acts on come from the same code.
 * - {@linkcode PROBE_META} holds the `_meta` keys of the wire contract.
 *
 * @example A tool whose probe names the file it would write
 * ```ts
 * import { createServer, text } from "@forge/toolkit";
 * import { fileAccess, registerPatternTool } from "@forge/toolkit";
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
 * ```
 *
 * @module
 */

export {
  type Access,
  type AccessList,
  isProbe,
  patternsOf,
  type PatternToolContext,
  type PatternToolDefinition,
  type ProbeDefinition,
  registerPatternTool,
  wrapProbe,
} from "./probe.ts";
export {
  META_ALWAYS,
  META_APPROVED_PATTERNS,
  META_PATTERNS,
  META_PERMISSION_PATTERNS,
  META_SUPPORTS_PERMISSION_PATTERNS,
  PROBE_META,
} from "./probe_meta.ts";
export {
  canonicalPath,
  type FileAccess,
  fileAccess,
  type FileTarget,
  type FileTargetOptions,
  type RenameTarget,
} from "./file.ts";
export {
  netAccess,
  type NetAccessOptions,
  type NetScheme,
  type NetTarget,
} from "./net.ts";
export { execAccess, type ExecAccessOptions, type ExecTarget } from "./exec.ts";
export { escapeGlob } from "./escape.ts";
