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
 * Names are looked up exactly as spelled, as the kernel does.
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
  const [real] = await walk(
    { out, known: out.length, queue: queue.map(plain), hops: 0 },
    { followLast, input, argument, equivalents: false },
  );
  return real;
}

/**
 * A name that may have another Unicode-equivalent spelling: any non-ASCII
 * name, and the ASCII ones holding `K`, `;` or a backquote, which KELVIN
 * SIGN, GREEK QUESTION MARK and GREEK VARIA decompose to.
 */
const EQUIVALENT_SPELLINGS = /[\u0080-\u{10ffff}]|[K;`]/u;

/** Bound on the real paths one path may reach through equivalent names. */
const MAX_REACHED = 64;

/**
 * Every real path a server could open for `segments`: the kernel's (as
 * {@linkcode realSegments}), and, for each of the components from index
 * `from` on (the caller's, not the root's), every entry of its directory
 * that is the same name in another Unicode spelling (NFC equal), followed
 * like any other. A server may normalise a name before it opens it, or
 * look for an equivalent one when the exact name is missing (the
 * filesystem server does), so a link whose name is spelled in NFD is
 * reached by a path spelled in NFC, and the other way round.
 */
export async function reachableSegments(
  segments: readonly string[],
  from: number,
  input: string,
  argument: string,
): Promise<string[][]> {
  // A name with no other spelling costs nothing more than the kernel's.
  if (!segments.slice(from).some((part) => EQUIVALENT_SPELLINGS.test(part))) {
    return [await realSegments(segments, true, input, argument)];
  }
  // The components before `from` are the real root: known to exist.
  const out = segments.slice(0, from);
  const queue = segments.slice(from).map((name) => ({ name, asked: true }));
  const reached = await walk(
    { out, known: out.length, queue, hops: 0 },
    { followLast: true, input, argument, equivalents: true },
  );
  const seen = new Set<string>();
  return reached.filter((real) => {
    const key = joinSegments(real);
    return !seen.has(key) && seen.add(key);
  });
}

/** A component still to resolve; `asked` when the caller spelled it. */
interface Part {
  name: string;
  asked: boolean;
}

interface Walk {
  /** The components resolved so far; none of them is a link. */
  out: string[];
  /** How many of `out`, from the start, are known to exist. */
  known: number;
  queue: Part[];
  hops: number;
}

function plain(name: string): Part {
  return { name, asked: false };
}

/**
 * Walks like the kernel, one component at a time; with `equivalents`, a
 * caller's component also branches into each equivalent spelling found in
 * its directory. Returns the real path of every branch.
 */
async function walk(
  start: Walk,
  options: {
    followLast: boolean;
    input: string;
    argument: string;
    equivalents: boolean;
  },
): Promise<string[][]> {
  const { followLast, input, argument, equivalents } = options;
  const done: string[][] = [];
  const pending = [start];
  while (pending.length > 0) {
    const branch = pending.pop()!;
    const { out, queue } = branch;
    while (queue.length > 0) {
      const part = queue.shift()!;
      if (part.name === "" || part.name === ".") continue;
      if (part.name === "..") {
        // `out` holds no links, so dropping a component is the physical parent.
        out.pop();
        branch.known = Math.min(branch.known, out.length);
        continue;
      }
      const inKnown = branch.known === out.length;
      if (
        equivalents && part.asked && inKnown &&
        EQUIVALENT_SPELLINGS.test(part.name)
      ) {
        for (const name of await equivalentNames(out, part.name, options)) {
          if (done.length + pending.length + 1 >= MAX_REACHED) {
            throw new ToolError(
              `${argument}: ${
                JSON.stringify(input)
              } reaches more than ${MAX_REACHED} files through names spelled in other Unicode forms: expected a path with fewer equivalent names`,
            );
          }
          pending.push({
            out: [...out],
            known: branch.known,
            queue: [plain(name), ...queue],
            hops: branch.hops,
          });
        }
      }
      out.push(part.name);
      if (!inKnown || (queue.length === 0 && !followLast)) continue;
      const here = joinSegments(out);
      let info: Deno.FileInfo;
      try {
        info = await Deno.lstat(here);
      } catch (error) {
        if (isMissing(error)) continue;
        throw fileError(error, input, argument);
      }
      if (!info.isSymlink) {
        branch.known = out.length;
        continue;
      }
      if (++branch.hops > MAX_SYMLINKS) throw tooManyLinks(input, argument);
      let link: string;
      try {
        link = await Deno.readLink(here);
      } catch (error) {
        throw fileError(error, input, argument);
      }
      out.pop();
      if (link.startsWith("/")) {
        out.length = 0;
        branch.known = 0;
      }
      // A link's text is resolved by the kernel as written: no branching.
      queue.unshift(...link.split("/").map(plain));
    }
    done.push(out);
  }
  return done;
}

/** The other names in the directory `dir` that are `name` in NFC. */
async function equivalentNames(
  dir: readonly string[],
  name: string,
  options: { input: string; argument: string },
): Promise<string[]> {
  const wanted = name.normalize("NFC");
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(joinSegments(dir))) {
      if (entry.name !== name && entry.name.normalize("NFC") === wanted) {
        names.push(entry.name);
      }
    }
  } catch (error) {
    if (isMissing(error)) return [];
    throw fileError(error, options.input, options.argument);
  }
  return names;
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
