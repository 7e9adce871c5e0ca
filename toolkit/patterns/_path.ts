// The lexical part of the file rules: a declared root, a caller's path
// collapsed to absolute segments, and the names that patterns show.

import { CONTROL } from "../../validate/_pattern_grammar.ts";
import { describeControl } from "./_messages.ts";
import { ToolError } from "../result/result.ts";
import { typeName } from "../_util/json_type.ts";

export interface Root {
  /** The declared root as shown in messages. */
  text: string;
  /**
   * Its segments as spelled: a server opens the bytes it is given, so two
   * spellings of one name (NFC, NFD) may be two different directories.
   */
  segments: readonly string[];
}

export function parseRoot(root: unknown, context: string): Root {
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
  for (const part of root.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") segments.pop();
    else segments.push(part);
  }
  return { text: joinSegments(segments), segments };
}

/**
 * Checks a caller's path and collapses it to absolute segments, lexically.
 * The segments keep the caller's spelling: normalising them (NFC) before
 * links are looked up would miss a link whose name is spelled otherwise,
 * which the server, opening the path as given, follows.
 */
export function collapsePath(
  root: Root,
  path: string,
  argument: string,
): string[] {
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
  const out = path.startsWith("/") ? [] : [...root.segments];
  for (const part of path.split("/")) {
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

// A root no caller's path can reach: a segment split at "/" never is "/".
// Relative paths start inside it, absolute ones never enter it.
const NO_ROOT: Root = { text: "of a relative target", segments: ["/"] };

/**
 * The canonical name of a path on its own, as a pattern names it: relative
 * paths stay relative (`.` when empty) and may not climb out with `..`,
 * absolute ones collapse as POSIX does. The same rules as canonicalPath().
 */
export function canonicalName(path: string, argument: string): string {
  return displayName(collapsePath(NO_ROOT, path, argument), NO_ROOT.segments);
}

export function isInside(
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
export function displayName(
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

export function joinSegments(segments: readonly string[]): string {
  return `/${segments.join("/")}`;
}

export function splitAbsolute(path: string): string[] {
  return path.split("/").filter((part) => part !== "");
}
