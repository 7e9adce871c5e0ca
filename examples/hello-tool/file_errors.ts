/**
 * What hello-tool's file tools answer when the file system says no: the
 * failures a model can act on (a name too long, a path too deep, a missing
 * file, a directory in the way, no permission, no space) become `isError`
 * results naming the argument and the path relative to the root; anything
 * else stays an infrastructure failure, with the server's absolute paths
 * taken out of its message.
 *
 * @module
 */

import { ToolError } from "@forge/toolkit";
import { PathChangedError } from "./confine.ts";

/** The longest path a file tool accepts, in characters (Linux's PATH_MAX). */
export const MAX_PATH_LENGTH = 4096;
/** The most names a path may have, `a/b/c` having three. */
export const MAX_PATH_DEPTH = 128;
/** The longest single name, in UTF-8 bytes (NAME_MAX on common file systems). */
export const MAX_NAME_BYTES = 255;

const ENCODER = new TextEncoder();
// The tail of a Deno I/O error message: the operation and its paths.
const OS_DETAIL = /(\(os error \d+\)).*$/s;

/**
 * Refuses a path argument over the bounds, before the file system sees it.
 *
 * @example
 * ```ts
 * import { checkPathBounds } from "./file_errors.ts";
 *
 * checkPathBounds("notes/a.txt", "path"); // fine
 * try {
 *   checkPathBounds("x".repeat(5000), "path");
 * } catch (error) {
 *   console.log((error as Error).message);
 *   // "path: too long: 5000 characters, expected at most 4096"
 * }
 * ```
 *
 * @param path The path as the caller gave it.
 * @param argument The argument name messages start with.
 * @throws {ToolError} When the path is too long, too deep, or has a name
 * that is too long.
 */
export function checkPathBounds(path: string, argument: string): void {
  if (typeof path !== "string") return; // the input schema answers that
  if (path.length > MAX_PATH_LENGTH) {
    throw new ToolError(
      `${argument}: too long: ${path.length} characters, expected at most ${MAX_PATH_LENGTH}`,
    );
  }
  const names = path.split("/").filter((name) => name !== "" && name !== ".");
  if (names.length > MAX_PATH_DEPTH) {
    throw new ToolError(
      `${argument}: too deep: ${names.length} names, expected at most ${MAX_PATH_DEPTH}`,
    );
  }
  for (const name of names) {
    const bytes = ENCODER.encode(name).length;
    if (bytes > MAX_NAME_BYTES) {
      throw new ToolError(
        `${argument}: name too long: ${
          JSON.stringify(`${[...name].slice(0, 16).join("")}…`)
        } is ${bytes} bytes, expected at most ${MAX_NAME_BYTES}`,
      );
    }
  }
}

/**
 * The error to answer for a failed file operation on `shown`, the path
 * relative to the root: a {@linkcode ToolError} when the model can act on
 * it, else an `Error` whose message holds no absolute path of the server.
 *
 * @example
 * ```ts
 * import { fileProblem } from "./file_errors.ts";
 *
 * const error = fileProblem(
 *   new Deno.errors.NotFound("No such file or directory (os error 2): remove '/srv/old.log'"),
 *   { argument: "path", shown: "old.log", root: "/srv" },
 * );
 * console.log(error.message); // "path: no such file: old.log"
 * ```
 *
 * @param error What the operation threw.
 * @param options The argument name, the root-relative path and the root.
 * @returns The error to throw from the handler.
 */
export function fileProblem(
  error: unknown,
  options: FileProblemOptions,
): Error {
  const { argument, shown, root } = options;
  if (error instanceof ToolError) return withoutRoot(error, root);
  if (error instanceof PathChangedError) {
    return new ToolError(
      `${argument}: ${shown} changed during the call: a directory on the way was replaced, perhaps by a symbolic link; nothing was changed: call again once it is stable`,
    );
  }
  if (error instanceof Deno.errors.NotFound) {
    return new ToolError(`${argument}: no such file: ${shown}`);
  }
  if (error instanceof Deno.errors.IsADirectory) {
    return new ToolError(
      `${argument}: ${shown} is a directory: expected a file`,
    );
  }
  if (
    error instanceof Deno.errors.NotADirectory ||
    error instanceof Deno.errors.AlreadyExists
  ) {
    return new ToolError(
      `${argument}: a parent of ${shown} is a file, not a directory: expected a path whose parents are directories`,
    );
  }
  if (error instanceof Deno.errors.PermissionDenied) {
    return new ToolError(
      `${argument}: permission denied for ${shown}: expected a file or directory the server may change`,
    );
  }
  if (error instanceof Deno.errors.FilesystemLoop) {
    return new ToolError(
      `${argument}: too many levels of symbolic links in ${shown}: expected a path without a link loop`,
    );
  }
  switch ((error as { code?: unknown } | null)?.code) {
    case "ENAMETOOLONG":
      return new ToolError(
        `${argument}: a name in ${shown} is too long for the file system: expected shorter names`,
      );
    case "ENOSPC":
    case "EDQUOT":
      return new ToolError(
        `${argument}: no space left for ${shown}: the device or quota is full; nothing was written`,
      );
    case "EROFS":
      return new ToolError(
        `${argument}: ${shown} is on a read-only file system: expected a writable path`,
      );
  }
  // The server's own failure (-32603): keep what happened, not where.
  const message = error instanceof Error ? error.message : String(error);
  return new Error(scrub(message, root), { cause: error });
}

/** Options for {@linkcode fileProblem}. */
export interface FileProblemOptions {
  /** The argument name messages start with. */
  argument: string;
  /** The path relative to the root, as answers name it. */
  shown: string;
  /** The root's real path, which answers never name. */
  root: string;
}

/** A toolkit refusal with the root's absolute path taken out. */
function withoutRoot(error: ToolError, root: string): ToolError {
  // Other absolute paths in a refusal are the caller's own input, echoed.
  const named = `the root ${root}`;
  if (!error.message.includes(named)) return error;
  return new ToolError(error.message.replaceAll(named, "the root"), {
    cause: error,
  });
}

function scrub(message: string, root: string): string {
  return message.replace(OS_DETAIL, "$1")
    .replaceAll(`the root ${root}`, "the root")
    .replaceAll(root, "<root>");
}
