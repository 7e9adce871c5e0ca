// A checked skill, ready to serve: what defineSkill() and loadSkill() make
// and server.skill() takes. It holds no parser, so a server's module graph
// gains no npm package for serving skills; parsing happens where a skill is
// defined.

/**
 * The extension's identifier (SEP-2640), the key a server declares under
 * `capabilities.extensions`.
 *
 * @example Check whether a server offers skills
 * ```ts
 * import { SKILLS_EXTENSION } from "@forge/toolkit/skills";
 *
 * const capabilities = { extensions: { [SKILLS_EXTENSION]: { directoryRead: true } } };
 * SKILLS_EXTENSION in capabilities.extensions; // true
 * ```
 */
export const SKILLS_EXTENSION = "io.modelcontextprotocol/skills";

/**
 * A skill's `SKILL.md` frontmatter as a JSON object: `name` and
 * `description` always, and every other field its author wrote.
 *
 * @example
 * ```ts
 * import type { SkillFrontmatter } from "@forge/toolkit/skills";
 *
 * const frontmatter: SkillFrontmatter = {
 *   name: "pdf-processing",
 *   description: "Extract, fill, and assemble PDF documents",
 *   license: "Apache-2.0",
 * };
 * ```
 */
export interface SkillFrontmatter {
  /** The skill's name: lowercase letters, digits and single hyphens, at most 64. */
  name: string;
  /** What the skill does and when to use it, at most 1024 characters. */
  description: string;
  /** Any other field of the frontmatter, as written. */
  [field: string]: unknown;
}

/**
 * One file of a skill as `skills/list` and `skills/get` describe it.
 *
 * @example
 * ```ts
 * import type { SkillResource } from "@forge/toolkit/skills";
 *
 * const file: SkillResource = {
 *   uri: "skill://pdf-processing/SKILL.md",
 *   digest: "sha256:" + "0".repeat(64),
 *   size: 120,
 * };
 * ```
 */
export interface SkillResource {
  /** The file's resource URI. */
  uri: string;
  /** `sha256:` and the SHA-256 of the file's bytes in 64 lowercase hex digits. */
  digest: string;
  /** The file's length in bytes. */
  size: number;
}

/**
 * How long a client may reuse a skill's entry and whether a shared cache may
 * hold it (the `ttlMs` and `cacheScope` of `skills/get` and `skills/list`).
 *
 * @example Let clients keep a skill that ships with the server for an hour
 * ```ts
 * import type { SkillCacheHints } from "@forge/toolkit/skills";
 *
 * const cache: SkillCacheHints = { ttlMs: 3_600_000, cacheScope: "public" };
 * ```
 */
export interface SkillCacheHints {
  /**
   * Milliseconds a client may treat the entry as current.
   *
   * @default {0}
   */
  ttlMs?: number;
  /**
   * `"public"` when the entry is the same for every user.
   *
   * @default {"private"}
   */
  cacheScope?: "public" | "private";
}

/**
 * One file of a checked skill, as {@linkcode Skill.files} shows it.
 *
 * @example Print a skill's files with their sizes
 * ```ts
 * import { defineSkill, type SkillFileData } from "@forge/toolkit/skills";
 *
 * const skill = defineSkill({
 *   files: { "SKILL.md": "---\nname: greet\ndescription: Greets people\n---\n" },
 * });
 * const describe = (file: SkillFileData) => `${file.path}: ${file.bytes.byteLength} bytes`;
 * skill.files.map(describe); // ["SKILL.md: 47 bytes"]
 * ```
 */
export interface SkillFileData {
  /** Its path in the skill, `/`-separated. */
  readonly path: string;
  /** Its resource URI. */
  readonly uri: string;
  /** Its MIME type. */
  readonly mimeType: string;
  /** Its bytes, which the digest covers. */
  readonly bytes: Uint8Array;
  /** The content as text, when it is served as text (else as a base64 blob). */
  readonly text: string | undefined;
  /** `sha256:` and the SHA-256 of its bytes in lowercase hex. */
  readonly digest: string;
}

/** What a checked skill is made of. */
export interface SkillParts {
  /** The `SKILL.md` URI. */
  uri: string;
  /** The skill's root directory, its URI without `/SKILL.md`. */
  root: string;
  frontmatter: SkillFrontmatter;
  /** Every file, `SKILL.md` first. */
  files: SkillFileData[];
  ttlMs: number;
  cacheScope: "public" | "private";
}

/**
 * A checked skill: its files digested, its frontmatter parsed and its URI
 * fixed. Make one with `defineSkill()` or `loadSkill()` and serve it with
 * `server.skill()`.
 *
 * @example
 * ```ts
 * import { defineSkill, type Skill } from "@forge/toolkit/skills";
 *
 * const skill: Skill = defineSkill({
 *   files: { "SKILL.md": "---\nname: greet\ndescription: Greets people politely\n---\nSay hello.\n" },
 * });
 * skill.uri; // "skill://greet/SKILL.md"
 * skill.entry().resources.length; // 1
 * ```
 */
export class Skill {
  readonly #parts: SkillParts;

  /**
   * Use `defineSkill()` or `loadSkill()` instead, which check what this
   * takes as given.
   *
   * @param parts The checked parts.
   */
  constructor(parts: SkillParts) {
    this.#parts = parts;
  }

  /** The URI of the skill's `SKILL.md`, which names the skill on the wire. */
  get uri(): string {
    return this.#parts.uri;
  }

  /** The skill's name, from its frontmatter. */
  get name(): string {
    return this.#parts.frontmatter.name;
  }

  /** The skill's root directory: its URI without `/SKILL.md`. */
  get root(): string {
    return this.#parts.root;
  }

  /** Its cache hints, defaults filled in. */
  get cache(): Required<SkillCacheHints> {
    return { ttlMs: this.#parts.ttlMs, cacheScope: this.#parts.cacheScope };
  }

  /** Every file, `SKILL.md` first. */
  get files(): readonly SkillFileData[] {
    return this.#parts.files;
  }

  /**
   * The skill's entry as `skills/list` and `skills/get` answer it.
   *
   * @example
   * ```ts
   * import { defineSkill } from "@forge/toolkit/skills";
   *
   * const skill = defineSkill({
   *   files: { "SKILL.md": "---\nname: greet\ndescription: Greets people\n---\n" },
   * });
   * skill.entry().frontmatter.name; // "greet"
   * ```
   */
  entry(): {
    uri: string;
    frontmatter: SkillFrontmatter;
    resources: SkillResource[];
  } {
    return {
      uri: this.#parts.uri,
      // A copy: a caller that edits its entry must not change what is served.
      frontmatter: structuredClone(this.#parts.frontmatter),
      resources: this.#parts.files.map(({ uri, digest, bytes }) => ({
        uri,
        digest,
        size: bytes.byteLength,
      })),
    };
  }
}
