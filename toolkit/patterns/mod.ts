/**
 * The permission-pattern probe, the tool side: a host asks a side-effecting
 * tool which patterns a call needs (`write:notes/a.md`, `net:https://api.example.com`,
 * `exec:git status`) and decides before anything runs.
 *
 * This entry holds the canonicalisers; the probe's helpers
 * (`registerPatternTool`, `wrapProbe`, `isProbe`) and its `_meta` keys are in
 * `@forge/toolkit/probe`.
 *
 * - {@linkcode fileAccess}, {@linkcode netAccess} and {@linkcode execAccess}
 *   compute canonical targets, so that the pattern a probe names and the
 *   target the handler acts on come from the same code.
 *
 * @example A tool whose probe names the file it would write
 * ```ts
 * import { createServer, text } from "@forge/toolkit";
 * import { fileAccess } from "@forge/toolkit/patterns";
 * import { registerPatternTool } from "@forge/toolkit/probe";
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
