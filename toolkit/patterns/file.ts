// File targets under a declared root: the names a probe reports and the
// real path the handler acts on, from one computation.

import {
  collapsePath,
  displayName,
  isInside,
  joinSegments,
  parseRoot,
  type Root,
} from "./_path.ts";
import { reachableSegments, realSegments, resolveRoot } from "./_real_path.ts";
import { escapeGlob } from "./escape.ts";
import { typeName } from "../_util/json_type.ts";

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
  // Lexical names compare equivalent spellings as one: NFC first.
  const base = parseRoot(nfc(root), "Cannot canonicalise a path");
  const segments = collapsePath(base, nfc(path), "path");
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
    const { absolute, realRoot } = await this.#absolute(path, argument);
    const real = await realSegments(absolute, followLast, path, argument);
    const named = escapeGlob(
      displayName(absolute, realRoot, this.#base.segments),
    );
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

  /** See {@linkcode reachableTargets}. */
  async reach(path: string, argument: string): Promise<string[]> {
    const { absolute, realRoot, inside } = await this.#absolute(
      path,
      argument,
    );
    const reached = await reachableSegments(
      absolute,
      inside ? realRoot.length : 0,
      path,
      argument,
    );
    const names = [
      displayName(absolute, realRoot, this.#base.segments),
      ...reached.map((real) => displayName(real, realRoot)),
    ].map(escapeGlob);
    return [...new Set(names)];
  }

  /** The caller's path as absolute segments, spelled as given. */
  async #absolute(
    path: string,
    argument: string,
  ): Promise<{ absolute: string[]; realRoot: string[]; inside: boolean }> {
    if (typeof argument !== "string" || argument === "") {
      throw new TypeError(
        `Cannot build a file target: options.argument must be the name of the caller's argument, such as "path", got ${
          typeof argument === "string" ? "an empty string" : typeName(argument)
        }`,
      );
    }
    const base = this.#base;
    const lexical = collapsePath(base, path, argument);
    const realRoot = await this.#realRoot();
    // Inside the declared root, continue from its real path, so a root that
    // is itself a link (macOS /tmp) keeps root-relative names.
    const inside = isInside(lexical, base.segments);
    const absolute = inside
      ? [...realRoot, ...lexical.slice(base.segments.length)]
      : lexical;
    return { absolute, realRoot, inside };
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

/**
 * Internal to the gate, which names the files of a server it does not
 * control: the names (glob-escaped, no verb) of `path` as spelled and of
 * every real file a server could open for it, following every link, the
 * last one too, and every Unicode-equivalent spelling of the caller's
 * names (see reachableSegments). Not part of the public API.
 *
 * @example
 * ```ts
 * import { fileAccess, reachableTargets } from "./file.ts";
 *
 * const files = fileAccess(await Deno.makeTempDir());
 * await reachableTargets(files, "notes/café/x", "path");
 * // ["notes/café/x"], and "secrets/x" too when notes/cafe\u0301 links there
 * ```
 *
 * @throws {ToolError} Starting with `argument`, as the builders' do.
 */
export function reachableTargets(
  files: FileAccess,
  path: string,
  argument: string,
): Promise<string[]> {
  if (!(files instanceof FileRoot)) {
    throw new TypeError(
      `Cannot name reachable files: expected the FileAccess of fileAccess(), got another object`,
    );
  }
  return files.reach(path, argument);
}

function nfc<T>(value: T): T {
  return (typeof value === "string" ? value.normalize("NFC") : value) as T;
}
