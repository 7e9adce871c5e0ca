// Skills from disk: one skill directory (SKILL.md and everything beside and
// under it), or a tree of them. Limits are checked while walking, before a
// byte is read, so a mistaken path cannot make the server read gigabytes.

import { buildSkill, MAX_SKILL_BYTES, MAX_SKILL_FILES } from "./define.ts";
import type { Skill, SkillCacheHints } from "./skill.ts";

/**
 * Options for {@linkcode loadSkill} and {@linkcode loadSkills}.
 *
 * @example
 * ```ts
 * import type { LoadSkillOptions } from "@forge/toolkit/skills";
 *
 * const options: LoadSkillOptions = { prefix: "acme", cache: { ttlMs: 60_000 } };
 * ```
 */
export interface LoadSkillOptions {
  /**
   * Path segments before each skill's name in its URI (for
   * {@linkcode loadSkills}, before the directories that lead to it).
   *
   * @default {undefined}
   */
  prefix?: string;
  /**
   * Cache hints for every skill loaded.
   *
   * @default {{ ttlMs: 0, cacheScope: "private" }}
   */
  cache?: SkillCacheHints;
}

/**
 * Reads a skill directory: its `SKILL.md` and every file under it, except
 * names starting with `.` (`.git`, `.DS_Store`). The directory's name must
 * be the skill's `name`, as the Agent Skills specification requires. A
 * symbolic link is refused rather than followed, so a skill never serves a
 * file from outside its directory. Checked as `defineSkill()` checks.
 *
 * @example Serve a skill that ships beside the server
 * ```ts ignore
 * import { createServer } from "@forge/toolkit";
 * import { loadSkill } from "@forge/toolkit/skills";
 *
 * const server = createServer({ name: "pdf", version: "1" });
 * server.skill(await loadSkill(new URL("./skills/pdf-processing", import.meta.url)));
 * await server.serve();
 * ```
 *
 * @throws {TypeError} When the directory cannot be read, holds a symbolic
 * link, or its files do not make a skill.
 * @throws {RangeError} When the directory's name is not the skill's, or it
 * holds more than 512 files or 16 MiB.
 */
export async function loadSkill(
  directory: string | URL,
  options: LoadSkillOptions = {},
): Promise<Skill> {
  const shown = directory instanceof URL
    ? decodeURIComponent(directory.pathname)
    : directory;
  const base = shown.replace(/[\\/]+$/, "");
  const dirName = base.slice(
    Math.max(base.lastIndexOf("/"), base.lastIndexOf("\\")) + 1,
  );
  const label = (name?: string) =>
    `Cannot load skill${
      name === undefined ? "" : ` ${JSON.stringify(name)}`
    } from ${shown}`;
  const files = await readTree(base, label());
  const skill = buildSkill(
    { files, prefix: options.prefix, cache: options.cache },
    label,
  );
  if (skill.name !== dirName) {
    throw new RangeError(
      `${label(skill.name)}: the directory is named ${
        JSON.stringify(dirName)
      } but SKILL.md names the skill ${
        JSON.stringify(skill.name)
      }; the Agent Skills specification requires them to match`,
    );
  }
  return skill;
}

/**
 * Reads every skill under `root`: each directory holding a `SKILL.md` is
 * one skill (read by {@linkcode loadSkill}, not searched further, so a
 * skill nested in it is its files), and the directories that lead to it
 * become its prefix: `root/acme/billing/refunds/SKILL.md` is served as
 * `skill://acme/billing/refunds/SKILL.md`. Names starting with `.` are
 * skipped; skills come back in path order.
 *
 * @example Serve a folder of skills
 * ```ts ignore
 * import { createServer } from "@forge/toolkit";
 * import { loadSkills } from "@forge/toolkit/skills";
 *
 * const server = createServer({ name: "handbook", version: "1" });
 * for (const skill of await loadSkills("./skills")) server.skill(skill);
 * await server.serve();
 * ```
 *
 * @throws {TypeError} When `root` cannot be read or a skill in it is invalid.
 * @throws {RangeError} When a skill breaks a naming rule or a limit.
 */
export async function loadSkills(
  root: string | URL,
  options: LoadSkillOptions = {},
): Promise<Skill[]> {
  const base = (root instanceof URL ? decodeURIComponent(root.pathname) : root)
    .replace(/[\\/]+$/, "");
  const found: Skill[] = [];
  const walk = async (dir: string, segments: string[]): Promise<void> => {
    const entries = await list(dir, `Cannot load skills from ${base}`);
    if (entries.some((e) => e.name === "SKILL.md" && e.isFile)) {
      const prefix = [
        ...(options.prefix === undefined ? [] : [options.prefix]),
        ...segments.slice(0, -1),
      ].join("/");
      found.push(
        await loadSkill(dir, {
          ...options,
          prefix: prefix === "" ? undefined : prefix,
        }),
      );
      return;
    }
    for (const entry of entries) {
      if (entry.isDirectory && !entry.name.startsWith(".")) {
        await walk(`${dir}/${entry.name}`, [...segments, entry.name]);
      }
    }
  };
  await walk(base, []);
  return found;
}

/** The files under `dir` by their `/` path, limits checked before reading. */
async function readTree(
  dir: string,
  action: string,
): Promise<Record<string, Uint8Array>> {
  const paths: string[] = [];
  let total = 0;
  const walk = async (at: string, prefix: string): Promise<void> => {
    for (const entry of await list(at, action)) {
      if (entry.name.startsWith(".")) continue;
      const path = `${prefix}${entry.name}`;
      if (entry.isSymlink) {
        throw new TypeError(
          `${action}: ${path} is a symbolic link; put the file itself in the skill's directory`,
        );
      }
      if (entry.isDirectory) {
        await walk(`${at}/${entry.name}`, `${path}/`);
        continue;
      }
      if (!entry.isFile) continue;
      paths.push(path);
      if (paths.length > MAX_SKILL_FILES) {
        throw new RangeError(
          `${action}: expected at most ${MAX_SKILL_FILES} files, SKILL.md included, found more`,
        );
      }
      total += (await Deno.stat(`${at}/${entry.name}`)).size;
      if (total > MAX_SKILL_BYTES) {
        throw new RangeError(
          `${action}: expected at most ${MAX_SKILL_BYTES} bytes (16 MiB) in all, got more by ${path}`,
        );
      }
    }
  };
  await walk(dir, "");
  const files: Record<string, Uint8Array> = {};
  for (const path of paths) {
    files[path] = await Deno.readFile(`${dir}/${path}`);
  }
  return files;
}

/** A directory's entries in name order; an unreadable one is a TypeError. */
async function list(dir: string, action: string): Promise<Deno.DirEntry[]> {
  const entries: Deno.DirEntry[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) entries.push(entry);
  } catch (cause) {
    throw new TypeError(
      `${action}: cannot read directory ${dir}: ${(cause as Error).message}`,
      { cause },
    );
  }
  return entries.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}
