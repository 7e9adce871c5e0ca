// The file-system part of the file rules: the real path of a root and of a
// caller's path, following symbolic links like the kernel does.

import { joinSegments, splitAbsolute } from "./_path.ts";
import { ToolError } from "../result/result.ts";

// The kernel's usual limit (SYMLOOP_MAX) on links followed in one lookup.
const MAX_SYMLINKS = 40;

export async function resolveRoot(declared: string): Promise<string[]> {
  let real: string;
  try {
    real = await Deno.realPath(declared);
  } catch (cause) {
    if (cause instanceof Deno.errors.NotFound) {
      throw new Error(
        `Cannot resolve file root: directory does not exist: ${declared}`,
        { cause },
      );
    }
    throw new Error(`Cannot resolve file root: ${declared}`, { cause });
  }
  const info = await Deno.stat(real);
  if (!info.isDirectory) {
    throw new Error(`Cannot resolve file root: not a directory: ${declared}`);
  }
  return splitAbsolute(real);
}

/**
 * The real path of `segments`: existing symbolic links are followed (the
 * last one only when `followLast`), missing components are kept as named.
 */
export async function realSegments(
  segments: readonly string[],
  followLast: boolean,
  input: string,
  argument: string,
): Promise<string[]> {
  if (segments.length === 0) return [];
  // Fast path: the path (or its parent) exists and realPath does it all.
  const fixed = followLast ? segments : segments.slice(0, -1);
  try {
    const real = splitAbsolute(await Deno.realPath(joinSegments(fixed)));
    return followLast ? real : [...real, segments[segments.length - 1]];
  } catch (error) {
    if (!isMissing(error)) throw fileError(error, input, argument);
  }
  // Slow path: walk like the kernel, one component at a time, so a dangling
  // link is followed to where a write through it would land. A new file in
  // an existing directory (the common case) starts from the real parent.
  let out: string[] = [];
  let queue = [...segments];
  if (followLast && segments.length > 1) {
    try {
      out = splitAbsolute(
        await Deno.realPath(joinSegments(segments.slice(0, -1))),
      );
      queue = [segments[segments.length - 1]];
    } catch (error) {
      if (!isMissing(error)) throw fileError(error, input, argument);
    }
  }
  let known = out.length; // length of the prefix of `out` known to exist
  let hops = 0;
  while (queue.length > 0) {
    const part = queue.shift()!;
    if (part === "" || part === ".") continue;
    if (part === "..") {
      // `out` holds no links, so dropping a component is the physical parent.
      out.pop();
      known = Math.min(known, out.length);
      continue;
    }
    out.push(part);
    if (known !== out.length - 1 || (queue.length === 0 && !followLast)) {
      continue;
    }
    const here = joinSegments(out);
    let info: Deno.FileInfo;
    try {
      info = await Deno.lstat(here);
    } catch (error) {
      if (isMissing(error)) continue;
      throw fileError(error, input, argument);
    }
    if (!info.isSymlink) {
      known = out.length;
      continue;
    }
    if (++hops > MAX_SYMLINKS) throw tooManyLinks(input, argument);
    let link: string;
    try {
      link = await Deno.readLink(here);
    } catch (error) {
      throw fileError(error, input, argument);
    }
    out.pop();
    if (link.startsWith("/")) {
      out.length = 0;
      known = 0;
    }
    queue.unshift(...link.split("/"));
  }
  return out;
}

function isMissing(error: unknown): boolean {
  return error instanceof Deno.errors.NotFound ||
    error instanceof Deno.errors.NotADirectory;
}

function fileError(error: unknown, input: string, argument: string): unknown {
  if (error instanceof Deno.errors.FilesystemLoop) {
    return tooManyLinks(input, argument);
  }
  if (error instanceof Deno.errors.PermissionDenied) {
    return new ToolError(
      `${argument}: cannot resolve ${
        JSON.stringify(input)
      }: permission denied: expected a path this server may read`,
      { cause: error },
    );
  }
  // A name over the file system's limit is the caller's to shorten; the OS
  // message would carry the server's absolute path.
  if ((error as { code?: unknown } | null)?.code === "ENAMETOOLONG") {
    return new ToolError(
      `${argument}: a name in it is too long for the file system: expected shorter names (usually at most 255 bytes each)`,
      { cause: error },
    );
  }
  // NotCapable (a missing --allow-read) and I/O failures are the server's.
  return error;
}

function tooManyLinks(input: string, argument: string): ToolError {
  return new ToolError(
    `${argument}: cannot resolve ${
      JSON.stringify(input)
    }: too many levels of symbolic links: expected a path without a link loop`,
  );
}
