// The skills one server serves: their entries for skills/list and
// skills/get, their files for resources/read (through one resource template,
// skill://{+path}, that lists each SKILL.md in resources/list), and the
// directory tree resources/directory/read answers from. It imports no
// parser: skills arrive checked, as Skill objects.

import type { ResourceContents } from "../result/result.ts";
import { ProtocolError, RPC_ERROR } from "../jsonrpc/errors.ts";
import type {
  ListedResource,
  Placed,
  ResourceTemplateDefinition,
} from "./resources.ts";
import {
  Skill,
  type SkillCacheHints,
  type SkillFileData,
  type SkillFrontmatter,
  type SkillResource,
  SKILLS_EXTENSION,
} from "../skills/skill.ts";

/** The MIME type of a directory resource. */
export const DIRECTORY_MIME_TYPE = "inode/directory";

/** The one template that serves every skill file. */
export const SKILL_FILES_TEMPLATE = "skill://{+path}";

/** How the catalog publishes its files: the server's `resourceTemplate()`. */
export type TemplatePublisher = (def: ResourceTemplateDefinition) => unknown;

/** A result's caching hints, as the skills extension's results carry them. */
type CacheHints = Required<SkillCacheHints>;

/** A skill's entry, as skills/list and skills/get carry it. */
export interface SkillEntry {
  uri: string;
  frontmatter: SkillFrontmatter;
  resources: SkillResource[];
}

/** The skills of one server. */
export class SkillCatalog {
  /** By SKILL.md URI, in the order added. */
  #skills = new Map<string, { seq: number; skill: Skill }>();
  /** Every served file by URI, with the skill that first served it. */
  #files = new Map<string, { file: SkillFileData; skill: Skill }>();
  /** Directory URI → its direct children by URI. */
  #dirs = new Map<string, Map<string, ListedResource>>();
  #seq = 0;

  /** How many skills are served. */
  get size(): number {
    return this.#skills.size;
  }

  /**
   * Adds a skill made by `defineSkill()` or `loadSkill()`. A second skill at
   * the same URI or with the same name, or one whose file another skill
   * serves with other bytes, is a TypeError. The first skill registers the
   * `skill://{+path}` template through `publish`.
   */
  add(skill: Skill, publish: TemplatePublisher): void {
    if (!(skill instanceof Skill)) {
      throw new TypeError(
        `Cannot serve skill: expected a skill made by defineSkill(), loadSkill() or loadSkills() from @forge/toolkit/skills, got ${
          skill === null ? "null" : typeof skill
        }`,
      );
    }
    const action = `Cannot serve skill ${JSON.stringify(skill.name)}`;
    if (this.#skills.has(skill.uri)) {
      throw new TypeError(`${action}: duplicate URI: ${skill.uri}`);
    }
    for (const { skill: other } of this.#skills.values()) {
      if (other.name === skill.name) {
        throw new TypeError(
          `${action}: the name is already served at ${other.uri} (names should be unique within a server, so a host can tell skills apart)`,
        );
      }
    }
    for (const file of skill.files) {
      const served = this.#files.get(file.uri);
      // A nested skill's files are its enclosing skill's too: the same bytes.
      if (served !== undefined && served.file.digest !== file.digest) {
        throw new TypeError(
          `${action}: ${file.uri} is already served by skill ${
            JSON.stringify(served.skill.name)
          } with other content`,
        );
      }
    }
    if (this.#skills.size === 0) publish(this.#template());
    this.#skills.set(skill.uri, { seq: this.#seq++, skill });
    for (const file of skill.files) {
      if (!this.#files.has(file.uri)) {
        this.#files.set(file.uri, { file, skill });
      }
      this.#place(file);
    }
  }

  /** The skill whose SKILL.md is at `uri`. */
  get(uri: string): Skill | undefined {
    return this.#skills.get(uri)?.skill ??
      (URL.canParse(uri)
        ? this.#skills.get(new URL(uri).href)?.skill
        : undefined);
  }

  /** skills/list's entries, one per place (an entry is never split across pages). */
  placed(): { placed: Placed<SkillEntry>[]; skills: Skill[] } {
    const skills = [...this.#skills.values()];
    return {
      placed: skills.map(({ seq, skill }) => ({
        seq,
        items: () => [skill.entry()],
      })),
      skills: skills.map(({ skill }) => skill),
    };
  }

  /**
   * The direct children of a directory resource and the cache hints of the
   * skills with files in it; `undefined` if `uri` is none.
   */
  directory(
    uri: string,
  ): { children: ListedResource[]; cache: CacheHints } | undefined {
    const href = this.#dirs.has(uri) || !URL.canParse(uri)
      ? uri
      : new URL(uri).href;
    const children = this.#dirs.get(href);
    if (children === undefined) return undefined;
    const inside = `${href}/`;
    const skills = [...this.#skills.values()]
      .map(({ skill }) => skill)
      .filter((skill) => skill.files.some((f) => f.uri.startsWith(inside)));
    return { children: [...children.values()], cache: combinedHints(skills) };
  }

  /** Declares the extension in a session's capabilities once a skill is served. */
  declare(capabilities: Record<string, Record<string, unknown>>): void {
    if (this.#skills.size === 0) return;
    capabilities.extensions = {
      ...capabilities.extensions,
      [SKILLS_EXTENSION]: { directoryRead: true },
    };
  }

  /** Records a file and every directory above it, up to the URI's authority. */
  #place(file: SkillFileData): void {
    let child: ListedResource = {
      uri: file.uri,
      name: file.path.slice(file.path.lastIndexOf("/") + 1),
      mimeType: file.mimeType,
      size: file.bytes.byteLength,
    };
    let at = file.uri;
    for (;;) {
      const slash = at.lastIndexOf("/");
      // "skill://" ends the walk: the authority is the topmost directory.
      if (slash <= "skill://".length - 1) return;
      const dir = at.slice(0, slash);
      let children = this.#dirs.get(dir);
      const known = children !== undefined;
      if (children === undefined) {
        children = new Map();
        this.#dirs.set(dir, children);
      }
      if (!children.has(child.uri)) children.set(child.uri, child);
      if (known) return;
      const name = dir.slice(dir.lastIndexOf("/") + 1);
      child = {
        uri: dir,
        name: decodeURIComponent(name),
        mimeType: DIRECTORY_MIME_TYPE,
      };
      at = dir;
    }
  }

  #template(): ResourceTemplateDefinition {
    return {
      uriTemplate: SKILL_FILES_TEMPLATE,
      name: "skills",
      title: "Skill files",
      description:
        "The files of the skills this server serves (SKILL.md and what it refers to); skills/list describes each skill",
      list: () =>
        [...this.#skills.values()].map(({ skill }) => {
          const [manifest] = skill.files;
          const { name, description } = skill.entry().frontmatter;
          return {
            uri: skill.uri,
            name,
            description,
            mimeType: manifest.mimeType,
            size: manifest.bytes.byteLength,
          };
        }),
      read: (uri) => this.#read(uri),
    };
  }

  #read(uri: URL): ResourceContents {
    const served = this.#files.get(uri.href)?.file;
    if (served === undefined) {
      throw new ProtocolError(
        RPC_ERROR.RESOURCE_NOT_FOUND,
        `Resource not found: ${uri.href}${
          this.#dirs.has(uri.href)
            ? " is a directory (read it with resources/directory/read)"
            : ""
        }`,
        { data: { uri: uri.href } },
      );
    }
    return served.text === undefined
      ? {
        uri: served.uri,
        mimeType: served.mimeType,
        blob: base64(served.bytes),
      }
      : { uri: served.uri, mimeType: served.mimeType, text: served.text };
  }
}

/**
 * The hints of a result that shows several skills: as fresh as the least
 * fresh, and shared only if every one may be.
 */
export function combinedHints(skills: readonly Skill[]): CacheHints {
  const hints = skills.map((skill) => skill.cache);
  return {
    ttlMs: hints.length === 0 ? 0 : Math.min(...hints.map((h) => h.ttlMs)),
    cacheScope: hints.length > 0 &&
        hints.every((h) => h.cacheScope === "public")
      ? "public"
      : "private",
  };
}

function base64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}
