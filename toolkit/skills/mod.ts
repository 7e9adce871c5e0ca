/**
 * Skills (the MCP skills extension, SEP-2640): Agent Skills — a `SKILL.md`
 * with YAML frontmatter and the files it refers to — served by an MCP
 * server. {@linkcode defineSkill} checks a skill given as files,
 * {@linkcode loadSkill} reads one from a directory and
 * {@linkcode loadSkills} a tree of them; `server.skill()` serves the result:
 * `skills/list` and `skills/get` describe each skill with its frontmatter
 * and every file's SHA-256 digest and size, `resources/read` reads the files
 * at their `skill://` URIs, and `resources/directory/read` lists a skill's
 * directories.
 *
 * Every rule is checked when the skill is made, so a server never serves a
 * skill a conforming host would refuse: the Agent Skills naming rules and
 * frontmatter fields, paths, and the extension's limits of 512 files and
 * 16 MiB per skill.
 *
 * @example A skill from files, served and listed
 * ```ts
 * import { createServer } from "@forge/toolkit";
 * import { defineSkill } from "@forge/toolkit/skills";
 * import { connect } from "@forge/toolkit/testing";
 * import assert from "node:assert/strict";
 *
 * const server = createServer({ name: "docs", version: "1" });
 * server.skill(defineSkill({
 *   files: {
 *     "SKILL.md": "---\nname: git-workflow\ndescription: Follow the team's Git conventions\n---\nSee references/BRANCHES.md.\n",
 *     "references/BRANCHES.md": "Branch from main; name branches topic/short-name.\n",
 *   },
 * }));
 * await using client = await connect(server);
 * const { skills } = await client.request("skills/list") as { skills: { uri: string }[] };
 * assert.equal(skills[0].uri, "skill://git-workflow/SKILL.md");
 * ```
 *
 * @module
 */

export {
  Skill,
  type SkillCacheHints,
  type SkillFileData,
  type SkillFrontmatter,
  type SkillResource,
  SKILLS_EXTENSION,
} from "./skill.ts";
export {
  defineSkill,
  MAX_SKILL_BYTES,
  MAX_SKILL_FILES,
  type SkillDefinition,
  type SkillFile,
} from "./define.ts";
export { loadSkill, type LoadSkillOptions, loadSkills } from "./load.ts";
