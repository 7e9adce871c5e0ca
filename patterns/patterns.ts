/**
 * Canonical permission patterns. Each builder turns a tool's arguments into
 * the `verb:target` patterns the probe reports *and* the resolved target the
 * handler must act on, computed once by the same code, so a tool cannot touch
 * something other than what the host approved.
 *
 * - {@linkcode fileAccess}: files under a declared root (`read`, `write`,
 *   `delete`, `rename`), resolved through symbolic links.
 * - {@linkcode netAccess}: `net:scheme://host[:port]` from a URL string.
 * - {@linkcode execAccess}: `exec:<program> <args…>` from an argv array.
 * - {@linkcode canonicalPath} and {@linkcode escapeGlob}: the pure, lexical
 *   part of the file rules.
 *
 * Every failure caused by the caller's input (a path leaving the root, a
 * refused URL, a shell string) throws {@linkcode ToolError}, which the model
 * sees as an `isError` result it can correct.
 *
 * @example A file tool whose handler acts on what the probe named
 * ```ts
 * import {
 *   createServer,
 *   fileAccess,
 *   registerPatternTool,
 *   text,
 * } from "@forge/toolkit";
 * import { z } from "zod";
 *
 * const server = createServer({ name: "notes", version: "1.0.0" });
 * const files = fileAccess("/srv/notes");
 * registerPatternTool(server, {
 *   name: "write_file",
 *   description: "Writes a text file under /srv/notes",
 *   input: z.object({ path: z.string(), content: z.string() }),
 *   patterns: async ({ path }) => [await files.write(path)],
 *   handler: async ({ content }, ctx) => {
 *     const [target] = ctx.access;
 *     await Deno.writeTextFile(target.path, content);
 *     return text(`written: ${target.target}`);
 *   },
 * });
 * ```
 *
 * @module
 */

import { ToolError } from "../result/result.ts";
import { typeName } from "../_util/json_type.ts";

// The characters a pattern target escapes so a saved rule never becomes a
// wildcard by accident.
const GLOB_CHARS = /[*?[\]{}\\]/g;
// C0 controls, DEL and C1 controls: matching them is the point.
// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u;
// The kernel's usual limit (SYMLOOP_MAX) on links followed in one lookup.
const MAX_SYMLINKS = 40;
const NET_SCHEMES: readonly NetScheme[] = ["http", "https", "ws", "wss"];
// A host label after WHATWG parsing and IDNA: letters, digits, `-`, `_`.
const HOST_LABEL = /^[a-z0-9_-]+$/;
const IPV4_MAPPED = /^\[::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/;

/**
 * Backslash-escapes the glob characters `* ? [ ] { } \` so that the text can
 * stand in a pattern or rule and only ever match itself.
 *
 * @example A file named with brackets
 * ```ts
 * import { escapeGlob } from "@forge/toolkit/patterns";
 *
 * escapeGlob("src/[ab].ts"); // "src/\\[ab\\].ts"
 * ```
 *
 * @param text The literal text.
 * @returns The text with each glob character preceded by a backslash.
 */
export function escapeGlob(text: string): string {
  if (typeof text !== "string") {
    throw new TypeError(
      `Cannot escape glob characters: expected a string, got ${typeName(text)}`,
    );
  }
  return text.replace(GLOB_CHARS, "\\$&");
}

/**
 * The canonical name of `path` under `root`, computed lexically (the file
 * system is not consulted): resolved against `root` (never the process cwd),
 * `//`, `.` and `..` collapsed, Unicode NFC. Inside the root the result is
 * root-relative (`a.txt`, `.` for the root itself); outside it, absolute
 * (`/w-evil/x`). The result is not glob-escaped; pass it through
 * {@linkcode escapeGlob} to build a pattern. Canonicalising a result again
 * returns it unchanged.
 *
 * @example Spellings of one file share one name
 * ```ts
 * import { canonicalPath } from "@forge/toolkit/patterns";
 *
 * canonicalPath("/w", "./sub/../a.txt"); // "a.txt"
 * canonicalPath("/w", "/w/src//x.ts"); // "src/x.ts"
 * canonicalPath("/w", "/w-evil/x"); // "/w-evil/x"
 * ```
 *
 * @param root The absolute directory the tool works in.
 * @param path The path from the caller, relative to `root` or absolute.
 * @returns The canonical name.
 * @throws {ToolError} When `path` is empty, holds a control character, or
 * leaves the root through `..`.
 * @throws {TypeError} When `root` is not an absolute path.
 */
export function canonicalPath(root: string, path: string): string {
  const base = parseRoot(root, "Cannot canonicalise a path");
  const segments = collapsePath(base, path, "path");
  return displayName(segments, base.segments);
}

/**
 * A file the handler acts on, with the patterns that name it.
 *
 * @example
 * ```ts
 * import { fileAccess } from "@forge/toolkit";
 *
 * const target = await fileAccess("/srv").write("notes/a.md");
 * await Deno.writeTextFile(target.path, "# Notes"); // target.patterns → ["write:notes/a.md"]
 * ```
 */
export interface FileTarget {
  /** The verb of the access: `read`, `write` or `delete`. */
  readonly verb: "read" | "write" | "delete";
  /**
   * The absolute real path to act on: every existing symbolic link on the
   * way is resolved (for `delete` and a rename, all but the last component,
   * because those act on a link itself rather than on what it points to).
   */
  readonly path: string;
  /** The pattern target of {@linkcode FileTarget.path}, glob-escaped. */
  readonly target: string;
  /**
   * The patterns to report: the name as spelled (canonicalised) and, when a
   * symbolic link makes it differ, the real target too. A host must allow
   * every one, so a link cannot launder a denied target.
   */
  readonly patterns: readonly string[];
}

/**
 * A rename: `delete` of the source and `write` of the destination.
 *
 * @example
 * ```ts
 * import { fileAccess } from "@forge/toolkit";
 *
 * const move = await fileAccess("/srv").rename("a.md", "b.md");
 * await Deno.rename(move.from.path, move.to.path);
 * ```
 */
export interface RenameTarget {
  /** The source, with verb `delete`. */
  readonly from: FileTarget;
  /** The destination, with verb `write`. */
  readonly to: FileTarget;
  /** The source's patterns followed by the destination's. */
  readonly patterns: readonly string[];
}

/**
 * Options for one file access.
 *
 * @example
 * ```ts
 * import { fileAccess } from "@forge/toolkit";
 *
 * // A refusal reads "file: … leaves the root /srv: …".
 * await fileAccess("/srv").read("notes/a.md", { argument: "file" });
 * ```
 */
export interface FileTargetOptions {
  /**
   * The argument name that error messages start with, so the model knows
   * which argument to fix.
   *
   * @default {"path"}
   */
  argument?: string;
}

/**
 * Builds file targets under one declared root. Each method checks and
 * resolves a caller's path and returns the target the handler must use
 * together with the patterns the probe reports.
 *
 * @example
 * ```ts
 * import { fileAccess } from "@forge/toolkit";
 *
 * const files = fileAccess("/srv");
 * const target = await files.read("notes/a.md");
 * ```
 */
export interface FileAccess {
  /** The declared root, lexically normalised. */
  readonly root: string;
  /**
   * A `read` of `path`.
   *
   * @example
   * ```ts
   * import { fileAccess } from "@forge/toolkit";
   *
   * const target = await fileAccess("/srv").read("notes/a.md");
   * // target.patterns → ["read:notes/a.md"]
   * ```
   */
  read(path: string, options?: FileTargetOptions): Promise<FileTarget>;
  /**
   * A `write` (create, modify or truncate) of `path`.
   *
   * @example
   * ```ts
   * import { fileAccess } from "@forge/toolkit";
   *
   * const target = await fileAccess("/srv").write("sub//a.txt");
   * // target.patterns → ["write:sub/a.txt"]
   * ```
   */
  write(path: string, options?: FileTargetOptions): Promise<FileTarget>;
  /**
   * A `delete` of `path`; a symbolic link is named itself, not its target.
   *
   * @example
   * ```ts
   * import { fileAccess } from "@forge/toolkit";
   *
   * const target = await fileAccess("/srv").delete("tmp/old.log");
   * // target.patterns → ["delete:tmp/old.log"]
   * ```
   */
  delete(path: string, options?: FileTargetOptions): Promise<FileTarget>;
  /**
   * A rename of `from` to `to`: `delete:<from>` and `write:<to>`. Errors name
   * the arguments `from` and `to`.
   *
   * @example
   * ```ts
   * import { fileAccess } from "@forge/toolkit";
   *
   * const move = await fileAccess("/srv").rename("a.txt", "b.txt");
   * // move.patterns → ["delete:a.txt", "write:b.txt"]
   * // await Deno.rename(move.from.path, move.to.path);
   * ```
   */
  rename(from: string, to: string): Promise<RenameTarget>;
}

/**
 * File access under `root`. The root's real path is resolved once, on first
 * use; it must exist and be a directory. Paths are canonicalised as by
 * {@linkcode canonicalPath}, then the real path of the nearest existing
 * ancestor is resolved, so a symbolic link leading out of the root yields the
 * real absolute target (`write:/etc/new`) besides the name as spelled.
 *
 * @example Rename inside a root
 * ```ts
 * import { fileAccess } from "@forge/toolkit";
 *
 * const files = fileAccess("/srv/data");
 * const move = await files.rename("drafts/a.md", "final/a.md");
 * // move.patterns → ["delete:drafts/a.md", "write:final/a.md"]
 * await Deno.rename(move.from.path, move.to.path);
 * ```
 *
 * @param root An absolute path or `file:` URL of the directory.
 * @returns The builder for targets under `root`.
 * @throws {TypeError} When `root` is not an absolute path or `file:` URL.
 */
export function fileAccess(root: string | URL): FileAccess {
  return new FileRoot(root);
}

/**
 * The schemes a network target may use.
 *
 * @example
 * ```ts
 * import { netAccess } from "@forge/toolkit";
 * import { type NetScheme } from "@forge/toolkit/patterns";
 *
 * const schemes: NetScheme[] = ["https", "wss"];
 * netAccess("https://example.com", { schemes });
 * ```
 */
export type NetScheme = "http" | "https" | "ws" | "wss";

/**
 * Options for {@linkcode netAccess}.
 *
 * @example
 * ```ts
 * import { netAccess } from "@forge/toolkit";
 *
 * netAccess("https://example.com/feed", { schemes: ["https"], argument: "feed" });
 * ```
 */
export interface NetAccessOptions {
  /**
   * The schemes this tool accepts, a subset of http, https, ws and wss.
   *
   * @default {["http", "https", "ws", "wss"]}
   */
  schemes?: readonly NetScheme[];
  /**
   * The argument name that error messages start with.
   *
   * @default {"url"}
   */
  argument?: string;
}

/**
 * A network endpoint the handler connects to, with its pattern.
 *
 * @example
 * ```ts
 * import { netAccess } from "@forge/toolkit";
 *
 * const target = netAccess("https://Example.com/feed");
 * const response = await fetch(target.url); // target.target → "https://example.com"
 * ```
 */
export interface NetTarget {
  /**
   * The URL to fetch or connect to: the parsed input with its host in
   * canonical form. Each read returns a fresh copy.
   */
  readonly url: URL;
  /** The pattern target, `scheme://host[:port]`. */
  readonly target: string;
  /** The single pattern `net:<target>`. */
  readonly patterns: readonly string[];
}

/**
 * Network access to `url`: WHATWG-parsed, named `net:scheme://host[:port]`
 * with the host lowercased and punycoded, a trailing dot and the default port
 * dropped and IPv4 spellings (decimal, hex, short, IPv4-mapped IPv6)
 * normalised. Userinfo, `*` or `%` in the host and schemes other than http,
 * https, ws and wss are refused. Path, query and fragment are kept in
 * {@linkcode NetTarget.url} but are not part of the pattern.
 *
 * @example Spellings of one host share one pattern
 * ```ts
 * import { netAccess } from "@forge/toolkit";
 *
 * const target = netAccess("https://EXAMPLE.com.:443/a?b=1");
 * // target.patterns → ["net:https://example.com"]
 * const response = await fetch(target.url);
 * ```
 *
 * @param url The URL from the caller.
 * @param options Accepted schemes and the argument name for messages.
 * @returns The URL to use and its pattern.
 * @throws {ToolError} When the URL does not parse or is refused.
 */
export function netAccess(
  url: string,
  options: NetAccessOptions = {},
): NetTarget {
  const argument = argumentName(options.argument, "url", "netAccess");
  const schemes = netSchemes(options.schemes);
  if (typeof url !== "string") {
    throw new TypeError(
      `Cannot build a network target: expected a URL string, got ${
        typeName(url)
      }`,
    );
  }
  const shown = JSON.stringify(url);
  const control = CONTROL.exec(url);
  if (control !== null) {
    throw new ToolError(
      `${argument}: ${shown} contains ${
        describeControl(control[0])
      }: expected a URL such as https://example.com/path`,
    );
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ToolError(
      `${argument}: ${shown} is not an absolute URL: expected scheme://host such as https://example.com/path`,
    );
  }
  const scheme = parsed.protocol.slice(0, -1);
  if (!(schemes as readonly string[]).includes(scheme)) {
    throw new ToolError(
      `${argument}: scheme "${scheme}:" of ${shown} is refused: expected ${
        listWords(schemes)
      }`,
    );
  }
  const authority = rawAuthority(url);
  if (authority.includes("@") || parsed.username !== "" || parsed.password) {
    throw new ToolError(
      `${argument}: ${shown} carries user information before "@": expected scheme://host with no credentials`,
    );
  }
  if (authority.includes("%")) {
    throw new ToolError(
      `${argument}: the host of ${shown} contains "%": expected a plain host name without percent escapes`,
    );
  }
  const host = canonicalHost(parsed.hostname, shown, argument);
  if (host !== parsed.hostname) parsed.hostname = host;
  const target = `${scheme}://${escapeGlob(host)}${
    parsed.port === "" ? "" : `:${parsed.port}`
  }`;
  const href = parsed.href;
  return Object.freeze({
    get url(): URL {
      return new URL(href);
    },
    target,
    patterns: Object.freeze([`net:${target}`]),
  });
}

/**
 * Options for {@linkcode execAccess}.
 *
 * @example
 * ```ts
 * import { execAccess } from "@forge/toolkit";
 *
 * execAccess(["git", "status"], { argument: "command" });
 * ```
 */
export interface ExecAccessOptions {
  /**
   * The argument name that error messages start with.
   *
   * @default {"argv"}
   */
  argument?: string;
}

/**
 * A program run, with the patterns that name it.
 *
 * @example
 * ```ts
 * import { execAccess } from "@forge/toolkit";
 *
 * const run = execAccess(["git", "status", "--short"]);
 * const { stdout } = await new Deno.Command(run.program, { args: run.args }).output();
 * ```
 */
export interface ExecTarget {
  /** The program to pass to `Deno.Command`, in NFC. */
  readonly program: string;
  /** The arguments to pass to `Deno.Command`, in NFC; a fresh copy per read. */
  readonly args: string[];
  /** The pattern target: program and arguments, escaped and space-joined. */
  readonly target: string;
  /**
   * `exec:<target>`, and when the program is given by path, the same with
   * the path's base name too, so a rule about `rm` also covers `/bin/rm`.
   */
  readonly patterns: readonly string[];
}

/**
 * Running a program from an argv array (a shell string is refused: a shell
 * would split and expand it differently from what the host approved). The
 * pattern is `exec:<program> <args…>`, tokens joined by one space, each
 * escaped so that no two argument lists share a pattern: `\` space `"` and
 * the glob characters get a backslash, an empty argument is `""`, a line
 * feed, carriage return or tab is `\n`, `\r`, `\t` and any other control
 * character `\u{hex}`.
 *
 * @example Spaces cannot merge arguments
 * ```ts
 * import { execAccess } from "@forge/toolkit";
 *
 * execAccess(["rm", "-rf", "x"]).patterns; // ["exec:rm -rf x"]
 * execAccess(["rm", "-rf x"]).patterns; // ["exec:rm -rf\\ x"]
 * const run = execAccess(["git", "status"]);
 * const output = await new Deno.Command(run.program, { args: run.args }).output();
 * ```
 *
 * @param argv The program followed by its arguments.
 * @param options The argument name for messages.
 * @returns The program and arguments to run and their patterns.
 * @throws {ToolError} When `argv` is a string, empty, or holds a NUL.
 */
export function execAccess(
  argv: readonly string[],
  options: ExecAccessOptions = {},
): ExecTarget {
  const argument = argumentName(options.argument, "argv", "execAccess");
  if (typeof argv === "string") {
    throw new ToolError(
      `${argument}: got the shell string ${
        JSON.stringify(argv)
      }: expected an argv array of program and arguments such as ["git", "status"]`,
    );
  }
  if (!Array.isArray(argv)) {
    throw new TypeError(
      `Cannot build an exec target: expected an argv array of strings, got ${
        typeName(argv)
      }`,
    );
  }
  if (argv.length === 0) {
    throw new ToolError(
      `${argument}: the argv array is empty: expected a program and its arguments such as ["git", "status"]`,
    );
  }
  const words = argv.map((word: unknown, index) => {
    if (typeof word !== "string") {
      throw new TypeError(
        `Cannot build an exec target: argv[${index}] must be a string, got ${
          typeName(word)
        }`,
      );
    }
    if (word.includes("\0")) {
      throw new ToolError(
        `${argument}[${index}]: ${
          JSON.stringify(word)
        } contains a NUL character: expected text without NUL, which no program can receive`,
      );
    }
    return word.normalize("NFC");
  });
  const [program, ...args] = words;
  if (program === "") {
    throw new ToolError(
      `${argument}[0]: the program is empty: expected a program name or path such as "git"`,
    );
  }
  if (program.endsWith("/")) {
    throw new ToolError(
      `${argument}[0]: ${
        JSON.stringify(program)
      } ends with "/": expected a program, not a directory`,
    );
  }
  const rest = args.map(escapeToken);
  const target = [escapeToken(program), ...rest].join(" ");
  const patterns = [`exec:${target}`];
  const slash = program.lastIndexOf("/");
  if (slash !== -1) {
    patterns.push(
      `exec:${[escapeToken(program.slice(slash + 1)), ...rest].join(" ")}`,
    );
  }
  return Object.freeze({
    program,
    get args(): string[] {
      return [...args];
    },
    target,
    patterns: Object.freeze(patterns),
  });
}

// ---------------------------------------------------------------- files

interface Root {
  /** The declared root as shown in messages. */
  text: string;
  /** Its segments, NFC. */
  segments: readonly string[];
}

class FileRoot implements FileAccess {
  readonly root: string;
  #base: Root;
  #declared: string;
  #real: Promise<string[]> | undefined;

  constructor(root: string | URL) {
    let declared: string;
    if (root instanceof URL) {
      if (root.protocol !== "file:") {
        throw new TypeError(
          `Cannot create file access: root must be a file: URL or an absolute path, got ${root.href}`,
        );
      }
      declared = decodeURIComponent(root.pathname);
    } else {
      declared = root;
    }
    this.#base = parseRoot(declared, "Cannot create file access");
    this.#declared = declared;
    this.root = this.#base.text;
  }

  read(path: string, options: FileTargetOptions = {}): Promise<FileTarget> {
    return this.#target("read", path, options.argument ?? "path", true);
  }

  write(path: string, options: FileTargetOptions = {}): Promise<FileTarget> {
    return this.#target("write", path, options.argument ?? "path", true);
  }

  delete(path: string, options: FileTargetOptions = {}): Promise<FileTarget> {
    // Unlinking acts on a link itself, so the last component is not followed.
    return this.#target("delete", path, options.argument ?? "path", false);
  }

  async rename(from: string, to: string): Promise<RenameTarget> {
    // rename(2) moves and replaces links themselves: follow neither end.
    const source = await this.#target("delete", from, "from", false);
    const destination = await this.#target("write", to, "to", false);
    return Object.freeze({
      from: source,
      to: destination,
      patterns: Object.freeze([...source.patterns, ...destination.patterns]),
    });
  }

  async #target(
    verb: FileTarget["verb"],
    path: string,
    argument: string,
    followLast: boolean,
  ): Promise<FileTarget> {
    if (typeof argument !== "string" || argument === "") {
      throw new TypeError(
        `Cannot build a file target: options.argument must be a non-empty string, got ${
          typeName(argument)
        }`,
      );
    }
    const base = this.#base;
    const lexical = collapsePath(base, path, argument);
    const realRoot = await this.#realRoot();
    // Inside the declared root, continue from its real path, so a root that
    // is itself a link (macOS /tmp) keeps root-relative names.
    const absolute = isInside(lexical, base.segments)
      ? [...realRoot, ...lexical.slice(base.segments.length)]
      : lexical;
    const real = await realSegments(absolute, followLast, path, argument);
    const named = escapeGlob(displayName(absolute, realRoot, base.segments));
    const target = escapeGlob(displayName(real, realRoot));
    const patterns = named === target
      ? [`${verb}:${target}`]
      : [`${verb}:${named}`, `${verb}:${target}`];
    return Object.freeze({
      verb,
      path: joinSegments(real),
      target,
      patterns: Object.freeze(patterns),
    });
  }

  #realRoot(): Promise<string[]> {
    if (this.#real === undefined) {
      this.#real = resolveRoot(this.#declared);
      // A root that does not exist yet may be created later: retry then.
      this.#real.catch(() => this.#real = undefined);
    }
    return this.#real;
  }
}

async function resolveRoot(declared: string): Promise<string[]> {
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

function parseRoot(root: unknown, context: string): Root {
  if (typeof root !== "string" || !root.startsWith("/")) {
    throw new TypeError(
      `${context}: root must be an absolute path, got ${
        typeof root === "string" ? JSON.stringify(root) : typeName(root)
      }`,
    );
  }
  if (CONTROL.test(root)) {
    throw new TypeError(
      `${context}: root must not contain control characters, got ${
        JSON.stringify(root)
      }`,
    );
  }
  const segments: string[] = [];
  for (const part of root.normalize("NFC").split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") segments.pop();
    else segments.push(part);
  }
  return { text: joinSegments(segments), segments };
}

/** Checks a caller's path and collapses it to absolute segments, lexically. */
function collapsePath(root: Root, path: string, argument: string): string[] {
  if (typeof path !== "string") {
    throw new TypeError(
      `Cannot build a file target: ${argument} must be a string, got ${
        typeName(path)
      }`,
    );
  }
  if (path === "") {
    throw new ToolError(
      `${argument}: the path is empty: expected a file path such as "notes/a.txt"`,
    );
  }
  const control = CONTROL.exec(path);
  if (control !== null) {
    throw new ToolError(
      `${argument}: ${JSON.stringify(path)} contains ${
        describeControl(control[0])
      } at offset ${control.index}: expected a path without control characters`,
    );
  }
  const text = path.normalize("NFC");
  const out = text.startsWith("/") ? [] : [...root.segments];
  for (const part of text.split("/")) {
    if (part === "" || part === ".") continue;
    if (part !== "..") {
      out.push(part);
    } else if (
      out.length === root.segments.length && isInside(out, root.segments)
    ) {
      throw new ToolError(
        `${argument}: ${
          JSON.stringify(path)
        } leaves the root ${root.text}: expected a path inside it`,
      );
    } else {
      // Outside the root, `..` at "/" stays at "/", as in POSIX.
      out.pop();
    }
  }
  return out;
}

/**
 * The real path of `segments`: existing symbolic links are followed (the
 * last one only when `followLast`), missing components are kept as named.
 */
async function realSegments(
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

function isInside(
  segments: readonly string[],
  root: readonly string[],
): boolean {
  if (segments.length < root.length) return false;
  for (let i = 0; i < root.length; i++) {
    if (segments[i] !== root[i]) return false;
  }
  return true;
}

/** Root-relative inside one of the roots (`.` for a root), else absolute. */
function displayName(
  segments: readonly string[],
  ...roots: (readonly string[])[]
): string {
  for (const root of roots) {
    if (isInside(segments, root)) {
      return segments.slice(root.length).join("/").normalize("NFC") || ".";
    }
  }
  return joinSegments(segments).normalize("NFC");
}

function joinSegments(segments: readonly string[]): string {
  return `/${segments.join("/")}`;
}

function splitAbsolute(path: string): string[] {
  return path.split("/").filter((part) => part !== "");
}

// ---------------------------------------------------------------- network

function netSchemes(schemes: unknown): readonly NetScheme[] {
  if (schemes === undefined) return NET_SCHEMES;
  if (!Array.isArray(schemes) || schemes.length === 0) {
    throw new TypeError(
      `Cannot build a network target: options.schemes must be a non-empty array, got ${
        typeName(schemes)
      }`,
    );
  }
  for (const scheme of schemes) {
    if (!(NET_SCHEMES as readonly unknown[]).includes(scheme)) {
      throw new RangeError(
        `Cannot build a network target: options.schemes holds ${
          JSON.stringify(scheme)
        }: expected ${listWords(NET_SCHEMES)}`,
      );
    }
  }
  return schemes;
}

/** The raw authority of a URL string (between `//` and the path), unparsed. */
function rawAuthority(url: string): string {
  const trimmed = url.trim();
  const rest = trimmed.slice(trimmed.indexOf(":") + 1).replace(/^[/\\]+/, "");
  const end = rest.search(/[/\\?#]/);
  return end === -1 ? rest : rest.slice(0, end);
}

function canonicalHost(
  hostname: string,
  shown: string,
  argument: string,
): string {
  const mapped = IPV4_MAPPED.exec(hostname);
  if (mapped !== null) {
    // ::ffff:a.b.c.d reaches the same IPv4 host; name it so.
    const high = parseInt(mapped[1], 16);
    const low = parseInt(mapped[2], 16);
    return [high >> 8, high & 255, low >> 8, low & 255].join(".");
  }
  if (hostname.startsWith("[")) return hostname;
  const host = hostname.endsWith(".") ? hostname.slice(0, -1) : hostname;
  if (host === "") {
    throw new ToolError(
      `${argument}: ${shown} has no host: expected scheme://host such as https://example.com`,
    );
  }
  if (host.includes("*")) {
    throw new ToolError(
      `${argument}: the host of ${shown} contains "*": expected one concrete host, not a wildcard`,
    );
  }
  for (const label of host.split(".")) {
    if (label === "") {
      throw new ToolError(
        `${argument}: the host of ${shown} has an empty label: expected labels separated by single dots`,
      );
    }
    if (!HOST_LABEL.test(label)) {
      throw new ToolError(
        `${argument}: the host of ${shown} contains ${
          JSON.stringify(label.replace(/[a-z0-9_-]/g, "")[0])
        }: expected letters, digits, "-" and "." only`,
      );
    }
  }
  return host;
}

// ---------------------------------------------------------------- exec

const TOKEN_ESCAPES: Record<string, string> = {
  "\\": "\\\\",
  " ": "\\ ",
  '"': '\\"',
  "*": "\\*",
  "?": "\\?",
  "[": "\\[",
  "]": "\\]",
  "{": "\\{",
  "}": "\\}",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
};
// deno-lint-ignore no-control-regex
const TOKEN_SPECIAL = /[\\ "*?[\]{}\u0000-\u001f\u007f-\u009f]/gu;

/** One argv word as a pattern token; see {@linkcode execAccess}. */
function escapeToken(word: string): string {
  if (word === "") return '""';
  return word.replace(
    TOKEN_SPECIAL,
    (c) => TOKEN_ESCAPES[c] ?? `\\u{${c.codePointAt(0)!.toString(16)}}`,
  );
}

// ---------------------------------------------------------------- shared

function argumentName(
  value: unknown,
  fallback: string,
  context: string,
): string {
  if (value === undefined) return fallback;
  if (typeof value !== "string" || value === "") {
    throw new TypeError(
      `Cannot call ${context}(): options.argument must be a non-empty string, got ${
        typeName(value)
      }`,
    );
  }
  return value;
}

function describeControl(char: string): string {
  if (char === "\0") return "a NUL character";
  const code = char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0");
  return `the control character U+${code}`;
}

function listWords(words: readonly string[]): string {
  return words.length === 1
    ? words[0]
    : `${words.slice(0, -1).join(", ")} or ${words[words.length - 1]}`;
}
