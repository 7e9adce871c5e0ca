// defineSkill(): a skill's files checked against the Agent Skills format and
// the extension's limits, digested, and given their skill:// URIs, so that a
// mistake is an error at start-up and the server only ever serves what a
// conforming host can load.

import { sha256HexSync } from "../_util/sha256_hex_sync.ts";
import { isRecord, jsonType } from "../_util/json_type.ts";
import { readFrontmatter } from "./_frontmatter.ts";
import { isTextType, mimeTypeOf } from "./_mime.ts";
import {
  Skill,
  type SkillCacheHints,
  type SkillFileData,
  type SkillFrontmatter,
} from "./skill.ts";
import { checkWholeNumber } from "../_util/whole_number.ts";

/** A skill holds at most this many files, `SKILL.md` included. */
export const MAX_SKILL_FILES = 512;
/** A skill's files add up to at most this many bytes (16 MiB). */
export const MAX_SKILL_BYTES = 16 * 1024 * 1024;

/** The first prefix segment is a URI authority: an RFC 3986 reg-name. */
const REG_NAME = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})+$/;
/** Later prefix segments are URI path segments. */
const PATH_SEGMENT = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=:@]|%[0-9A-Fa-f]{2})+$/;
/** Control characters never belong in a file path. */
// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * One file of a skill: its text, its bytes, or either with a MIME type. A
 * string is served as text; bytes are served as text when their type is a
 * text type and they are UTF-8, else as a base64 blob. Without a type, the
 * file's extension gives one (`.md` is `text/markdown`, unknown ones
 * `application/octet-stream`).
 *
 * @example
 * ```ts
 * import type { SkillFile } from "@forge/toolkit/skills";
 *
 * const script: SkillFile = { content: "print('hi')\n", mimeType: "text/x-python" };
 * const logo: SkillFile = new Uint8Array([0x89, 0x50, 0x4e, 0x47]);
 * ```
 */
export type SkillFile =
  | string
  | Uint8Array
  | { content: string | Uint8Array; mimeType: string };

/**
 * A skill as {@linkcode defineSkill} takes it: its files by path, one of
 * them `SKILL.md`, whose frontmatter names the skill.
 *
 * @example A skill with a reference file, under an organisational prefix
 * ```ts
 * import { defineSkill, type SkillDefinition } from "@forge/toolkit/skills";
 *
 * const refunds: SkillDefinition = {
 *   prefix: "acme/billing",
 *   files: {
 *     "SKILL.md": "---\nname: refunds\ndescription: Process refund requests per policy\n---\nRead references/POLICY.md first.\n",
 *     "references/POLICY.md": "# Refund policy\n",
 *   },
 *   cache: { ttlMs: 300_000, cacheScope: "public" },
 * };
 * defineSkill(refunds).uri; // "skill://acme/billing/refunds/SKILL.md"
 * ```
 */
export interface SkillDefinition {
  /**
   * The skill's files by their `/`-separated path from the skill's root;
   * `SKILL.md` is required and starts with YAML frontmatter holding at least
   * `name` and `description`.
   */
  files: Record<string, SkillFile>;
  /**
   * Path segments before the skill's name in its URI, such as
   * `acme/billing` for `skill://acme/billing/refunds/SKILL.md`; the first
   * one is a URI authority.
   *
   * @default {undefined}
   */
  prefix?: string;
  /**
   * How long clients may reuse the skill's entry.
   *
   * @default {{ ttlMs: 0, cacheScope: "private" }}
   */
  cache?: SkillCacheHints;
}

/**
 * Checks a skill and makes it ready to serve with `server.skill()`: the
 * `SKILL.md` frontmatter against the Agent Skills specification (a `name`
 * of 1-64 lowercase letters, digits and single hyphens, a `description` of
 * at most 1024 characters, string `license`, `compatibility` and
 * `allowed-tools`, string-valued `metadata` with no key under the reserved
 * `io.modelcontextprotocol/` prefix), every path, the extension's limits
 * (512 files, 16 MiB), and the prefix and cache hints. Each file's SHA-256
 * digest and size are computed here, once.
 *
 * @example Serve a skill
 * ```ts
 * import { createServer } from "@forge/toolkit";
 * import { defineSkill } from "@forge/toolkit/skills";
 *
 * const server = createServer({ name: "docs", version: "1" });
 * server.skill(defineSkill({
 *   files: {
 *     "SKILL.md": "---\nname: git-workflow\ndescription: Follow the team's Git conventions\n---\nBranch from main.\n",
 *   },
 * }));
 * ```
 *
 * @throws {TypeError} When a field has the wrong shape: no `SKILL.md`, no
 * frontmatter, a missing `name` or `description`, a path with `.` or `..`.
 * @throws {RangeError} When a value is out of bounds: a name that breaks the
 * naming rules, too long a description, more than 512 files or 16 MiB.
 */
export function defineSkill(def: SkillDefinition): Skill {
  return buildSkill(
    def,
    (name) =>
      `Cannot define skill${
        name === undefined ? "" : ` ${JSON.stringify(name)}`
      }`,
  );
}

/**
 * What {@linkcode defineSkill} does, with error messages that start with
 * `label(name)` (the name once the frontmatter has given it).
 */
export function buildSkill(
  def: SkillDefinition,
  label: (name?: string) => string,
): Skill {
  const action = label();
  if (!isRecord(def) || !isRecord(def.files)) {
    throw new TypeError(
      `${action}: expected { files: { "SKILL.md": …, …other files by path } }, got ${
        isRecord(def) ? `files: ${shown(def.files)}` : shown(def)
      }`,
    );
  }
  if (!Object.hasOwn(def.files, "SKILL.md")) {
    throw new TypeError(
      `${action}: files: expected a "SKILL.md" at the skill's root, got ${
        Object.keys(def.files).length === 0
          ? "no files"
          : `only ${
            Object.keys(def.files).map((p) => JSON.stringify(p)).join(", ")
          }`
      }`,
    );
  }
  const manifest = fileData("SKILL.md", def.files["SKILL.md"], action);
  if (manifest.text === undefined) {
    throw new TypeError(`${action}: SKILL.md: expected UTF-8 text`);
  }
  const frontmatter: SkillFrontmatter = readFrontmatter(manifest.text, action);
  const named = label(frontmatter.name);
  const paths = Object.keys(def.files);
  if (paths.length > MAX_SKILL_FILES) {
    throw new RangeError(
      `${named}: files: expected at most ${MAX_SKILL_FILES} files, SKILL.md included, got ${paths.length}`,
    );
  }
  const prefix = checkPrefix(def.prefix, named);
  const root = new URL(
    `skill://${prefix === undefined ? "" : `${prefix}/`}${frontmatter.name}`,
  ).href;
  const files: SkillFileData[] = [];
  let total = 0;
  // SKILL.md first, then by path, so every listing is in the same order.
  for (
    const path of [
      "SKILL.md",
      ...paths.filter((p) => p !== "SKILL.md").sort(),
    ]
  ) {
    checkPath(path, named);
    const data = path === "SKILL.md"
      ? manifest
      : fileData(path, def.files[path], named);
    total += data.bytes.byteLength;
    if (total > MAX_SKILL_BYTES) {
      throw new RangeError(
        `${named}: files: expected at most ${MAX_SKILL_BYTES} bytes (16 MiB) in all, got more by ${path}`,
      );
    }
    const uri = new URL(
      `${root}/${path.split("/").map(encodeURIComponent).join("/")}`,
    ).href;
    files.push({ ...data, uri });
  }
  const cache = checkCache(def.cache, named);
  return new Skill({
    uri: files[0].uri,
    root,
    frontmatter,
    files,
    ttlMs: cache.ttlMs,
    cacheScope: cache.cacheScope,
  });
}

/** A file's bytes, text (when served as text), type and digest. */
function fileData(
  path: string,
  file: SkillFile,
  action: string,
): Omit<SkillFileData, "uri"> {
  const at = `${action}: files[${JSON.stringify(path)}]`;
  let content: unknown = file;
  let mimeType = path === "SKILL.md" ? "text/markdown" : mimeTypeOf(path);
  if (isRecord(file) && !(file instanceof Uint8Array)) {
    if (typeof file.mimeType !== "string" || file.mimeType.trim() === "") {
      throw new TypeError(
        `${at}: mimeType: expected a MIME type such as "text/plain", got ${
          shown(file.mimeType)
        }`,
      );
    }
    mimeType = file.mimeType;
    content = file.content;
  }
  let bytes: Uint8Array;
  let text: string | undefined;
  if (typeof content === "string") {
    if (!content.isWellFormed()) {
      throw new TypeError(
        `${at}: expected well-formed text, got a string with a lone surrogate (it has no UTF-8 bytes to digest)`,
      );
    }
    text = content;
    bytes = new TextEncoder().encode(content);
  } else if (content instanceof Uint8Array) {
    bytes = content.slice();
    text = isTextType(mimeType) ? utf8(bytes) : undefined;
  } else {
    throw new TypeError(
      `${at}: expected a string, a Uint8Array or { content, mimeType }, got ${
        shown(content)
      }`,
    );
  }
  const digest = `sha256:${sha256HexSync(bytes)}`;
  return { path, mimeType, bytes, text, digest };
}

/** The text of UTF-8 bytes, byte for byte (a BOM kept); `undefined` if they are not UTF-8. */
function utf8(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(
      bytes,
    );
  } catch {
    return undefined;
  }
}

function checkPath(path: string, action: string): void {
  const segments = path.split("/");
  if (
    path === "" || CONTROL.test(path) || path.includes("\\") ||
    segments.some((s) => s === "" || s === "." || s === "..")
  ) {
    throw new TypeError(
      `${action}: files: expected paths of /-separated names relative to the skill's root, with no empty, . or .. segment and no backslash, got ${
        JSON.stringify(path)
      }`,
    );
  }
}

function checkPrefix(prefix: unknown, action: string): string | undefined {
  if (prefix === undefined) return undefined;
  if (typeof prefix !== "string") {
    throw new TypeError(
      `${action}: prefix: expected a string such as "acme/billing", got ${
        shown(prefix)
      }`,
    );
  }
  const segments = prefix.split("/");
  const bad = segments.findIndex((segment, i) =>
    !(i === 0 ? REG_NAME : PATH_SEGMENT).test(segment)
  );
  if (bad !== -1) {
    throw new RangeError(
      `${action}: prefix: expected /-separated URI segments (the first a host-like name of letters, digits and -._~!$&'()*+,;=), got ${
        JSON.stringify(prefix)
      } (segment ${bad + 1})`,
    );
  }
  return prefix;
}

function checkCache(
  cache: unknown,
  action: string,
): Required<SkillCacheHints> {
  if (cache === undefined) return { ttlMs: 0, cacheScope: "private" };
  if (!isRecord(cache)) {
    throw new TypeError(
      `${action}: cache: expected { ttlMs, cacheScope }, got ${shown(cache)}`,
    );
  }
  const ttlMs = cache.ttlMs ?? 0;
  if (typeof ttlMs !== "number") {
    throw new TypeError(
      `${action}: cache.ttlMs: expected a number of milliseconds, got ${
        shown(ttlMs)
      }`,
    );
  }
  checkWholeNumber(action, "cache.ttlMs", ttlMs, { unit: "milliseconds" });
  const cacheScope = cache.cacheScope ?? "private";
  if (cacheScope !== "public" && cacheScope !== "private") {
    throw new TypeError(
      `${action}: cache.cacheScope: expected "public" or "private", got ${
        JSON.stringify(cacheScope)
      }`,
    );
  }
  return { ttlMs, cacheScope };
}

function shown(value: unknown): string {
  return value === undefined || value === null ? "nothing" : jsonType(value);
}
