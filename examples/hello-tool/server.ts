/**
 * The hello-tool server: three tools that show the toolkit's parts at work.
 *
 * - `hello`: read-only, answers with the greeting of the live config.
 * - `write_file`: a pattern tool; refuses paths outside the root and
 *   content whose syntax is broken, writes atomically.
 * - `delete_file`: a pattern tool; a missing file is a domain error.
 *
 * @module
 */

import {
  createServer,
  fileAccess,
  registerPatternTool,
  text,
  ToolError,
  type ToolServer,
} from "@forge/toolkit";
import type { FileTarget } from "@forge/toolkit/patterns";
import { formatDiagnostics, validateFile } from "@forge/toolkit/validate";
import { z } from "zod";
import { removeFileConfined } from "./confine.ts";
import { checkPathBounds, fileProblem } from "./file_errors.ts";
import { writeFileAtomic } from "./write_atomic.ts";

/** The name and version hello-tool reports at initialisation. */
export const SERVER_INFO = { name: "hello-tool", version: "0.1.0" } as const;

/** Options for {@linkcode createHelloServer}. */
export interface HelloServerOptions {
  /** The absolute directory the file tools work in; it must exist. */
  root: string;
  /** The greeting to use now; called on every `hello` call. */
  greeting: () => string;
}

/**
 * Builds the hello-tool server (not yet serving).
 *
 * @example
 * ```ts
 * import { createHelloServer } from "./server.ts";
 *
 * const server = await createHelloServer({
 *   root: await Deno.makeTempDir(),
 *   greeting: () => "Hello",
 * });
 * console.log(server.listTools().map((tool) => tool.name));
 * // ["hello", "write_file", "delete_file"]
 * ```
 *
 * @param options The root directory and where the greeting comes from.
 * @returns The server, ready for `serve()` or a test client.
 */
export async function createHelloServer(
  options: HelloServerOptions,
): Promise<ToolServer> {
  const { root, greeting } = options;
  // Answers name files relative to the root's real path, as patterns do.
  const realRoot = await Deno.realPath(root);
  const files = fileAccess(realRoot);
  const server = createServer(SERVER_INFO, {
    instructions:
      "Greets people and manages text files under one root directory. " +
      "Paths are relative to that root.",
  });

  server.tool({
    name: "hello",
    title: "Say hello",
    description:
      "Greets someone by name, with the greeting from the server's config file.",
    input: z.object({ name: z.string().min(1).describe("Who to greet") }),
    annotations: { readOnlyHint: true, openWorldHint: false },
    handler: ({ name }) => text(`${greeting()}, ${name}!`),
  });

  registerPatternTool(server, {
    name: "write_file",
    title: "Write a file",
    description:
      "Writes a UTF-8 text file under the root, creating parent directories " +
      "and replacing any existing file. Content for a file whose extension " +
      "has a syntax (.json, .yaml, .toml, .xml, …) must be valid: broken " +
      "content is refused with path:line:column and nothing is written.",
    input: z.object({
      path: z.string().describe("File path, relative to the root"),
      content: z.string().describe("The whole new content of the file"),
    }),
    annotations: { destructiveHint: true, idempotentHint: true },
    patterns: ({ path }) => resolve(realRoot, path, (p) => files.write(p)),
    handler: async ({ content }, ctx) => {
      const [target] = ctx.access;
      const shown = relative(realRoot, target.path);
      const checked = validateFile(target.path, content);
      // An unknown extension is not a reason to refuse: nothing to check.
      const notes = checked.format === undefined
        ? ""
        : formatDiagnostics(checked, { path: shown, source: content });
      if (!checked.ok && checked.format !== undefined) {
        throw new ToolError(
          `${notes}\nNothing was written: fix the content and call write_file again.`,
        );
      }
      // Validation ran first: from here to the rename the path is checked
      // again at each step, so slow content cannot widen the race window.
      const bytes = await fileOperation(
        realRoot,
        shown,
        () =>
          writeFileAtomic(target.path, content, {
            createParents: true,
            confined: true,
          }),
      );
      // Warnings (a duplicate key, say) do not block the write but are shown.
      return text(
        `Wrote ${bytes} byte${bytes === 1 ? "" : "s"} to ${shown}${
          notes && `\n${notes}`
        }`,
      );
    },
  });

  registerPatternTool(server, {
    name: "delete_file",
    title: "Delete a file",
    description:
      "Deletes one file under the root. Directories are not deleted.",
    input: z.object({
      path: z.string().describe("File path, relative to the root"),
    }),
    annotations: { destructiveHint: true, idempotentHint: true },
    patterns: ({ path }) => resolve(realRoot, path, (p) => files.delete(p)),
    handler: async (_args, ctx) => {
      const [target] = ctx.access;
      const shown = relative(realRoot, target.path);
      await fileOperation(
        realRoot,
        shown,
        () => removeFileConfined(target.path),
      );
      return text(`Deleted ${shown}`);
    },
  });

  return server;
}

/**
 * The patterns of one path argument: bounded, resolved by `access`, inside
 * the root; every refusal names the argument and never the server's paths.
 */
async function resolve(
  realRoot: string,
  path: string,
  access: (path: string) => Promise<FileTarget>,
): Promise<FileTarget[]> {
  const shown = JSON.stringify(path);
  try {
    checkPathBounds(path, "path");
    return [inside(await access(path), path)];
  } catch (error) {
    throw fileProblem(error, { argument: "path", shown, root: realRoot });
  }
}

/**
 * Refuses a target outside the root. Pattern targets are root-relative
 * inside the root and absolute outside it, so one absolute pattern (the
 * name as spelled, or the real path behind a symbolic link) means the call
 * would leave the root.
 */
function inside(target: FileTarget, path: string): FileTarget {
  const outside = target.patterns.some((pattern) =>
    pattern.slice(pattern.indexOf(":") + 1).startsWith("/")
  );
  if (outside) {
    // The absolute target stays out of the answer: it names the server's
    // file system, not anything the model can use.
    throw new ToolError(
      `path: ${
        JSON.stringify(path)
      } is outside the root: expected a path inside it, such as "notes/a.txt"`,
    );
  }
  return target;
}

/** The root-relative name of a path known to lie inside the root. */
function relative(realRoot: string, path: string): string {
  if (path === realRoot) return ".";
  return realRoot === "/" ? path.slice(1) : path.slice(realRoot.length + 1);
}

/**
 * Runs a file operation, turning the failures a caller can fix into domain
 * errors naming the path relative to the root (see `file_errors.ts`).
 */
async function fileOperation<T>(
  realRoot: string,
  shown: string,
  operation: () => T | Promise<T>,
): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw fileProblem(error, { argument: "path", shown, root: realRoot });
  }
}
