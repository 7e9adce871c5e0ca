// The YAML frontmatter of a SKILL.md: found, parsed and checked against the
// Agent Skills specification's fields (agentskills.io/specification). The
// YAML parser is validate()'s, so duplicate keys and alias bombs are refused
// with a line and column, counted in SKILL.md.

import { isRecord, jsonType } from "../_util/json_type.ts";
import { parse } from "../../validate/validate.ts";
import type { SkillFrontmatter } from "./skill.ts";

/** The Agent Skills naming rule: 1–64 of a-z, 0-9 and single inner hyphens. */
export const SKILL_NAME = /^(?!.*--)[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;
export const MAX_DESCRIPTION = 1024;
export const MAX_COMPATIBILITY = 500;
/** Keys of `metadata` under this prefix are reserved for MCP extensions. */
export const RESERVED_METADATA_PREFIX = "io.modelcontextprotocol/";

/** `---`, the YAML, `---`: at the very start (after a byte-order mark). */
const BLOCK = /^\uFEFF?---[ \t]*\r?\n(?:([\s\S]*?)\r?\n)?---[ \t]*(?:\r?\n|$)/;

/**
 * The frontmatter of a SKILL.md's text, checked; `action` starts each error
 * message (`Cannot define skill`).
 */
export function readFrontmatter(
  text: string,
  action: string,
): SkillFrontmatter {
  const block = BLOCK.exec(text);
  if (block === null) {
    throw new TypeError(
      `${action}: SKILL.md: expected YAML frontmatter between --- lines at the start of the file`,
    );
  }
  const parsed = parse(block[1] ?? "", "yaml");
  if (!parsed.ok) {
    const first = parsed.diagnostics[0];
    // The YAML starts on SKILL.md's second line.
    throw new TypeError(
      `${action}: SKILL.md:${
        first.line + 1
      }:${first.column}: invalid YAML frontmatter: ${first.message}`,
    );
  }
  return checkFrontmatter(parsed.value, action);
}

/** Checks a parsed frontmatter value field by field. */
export function checkFrontmatter(
  value: unknown,
  action: string,
): SkillFrontmatter {
  const at = `${action}: SKILL.md frontmatter`;
  if (!isRecord(value)) {
    throw new TypeError(
      `${at}: expected a mapping of fields, got ${
        value === null ? "nothing" : jsonType(value)
      }`,
    );
  }
  const { name, description } = value;
  if (typeof name !== "string") {
    throw new TypeError(
      `${at}: name: expected a string, got ${shown(name)}`,
    );
  }
  if (!SKILL_NAME.test(name)) {
    throw new RangeError(
      `${at}: name: expected 1-64 lowercase letters, digits and hyphens, not starting or ending with a hyphen and with no two in a row, got ${
        JSON.stringify(name)
      }`,
    );
  }
  if (typeof description !== "string") {
    throw new TypeError(
      `${at}: description: expected a string, got ${shown(description)}`,
    );
  }
  if (description.trim() === "") {
    throw new RangeError(
      `${at}: description: expected what the skill does and when to use it, got ${
        JSON.stringify(description)
      }`,
    );
  }
  if (description.length > MAX_DESCRIPTION) {
    throw new RangeError(
      `${at}: description: expected at most ${MAX_DESCRIPTION} characters, got ${description.length}`,
    );
  }
  optionalString(value, "license", at);
  optionalString(value, "allowed-tools", at);
  const compatibility = optionalString(value, "compatibility", at);
  if (
    compatibility !== undefined &&
    (compatibility.length === 0 || compatibility.length > MAX_COMPATIBILITY)
  ) {
    throw new RangeError(
      `${at}: compatibility: expected 1-${MAX_COMPATIBILITY} characters, got ${compatibility.length}`,
    );
  }
  const metadata = value.metadata;
  if (metadata !== undefined) {
    if (!isRecord(metadata)) {
      throw new TypeError(
        `${at}: metadata: expected a mapping of string keys to string values, got ${
          shown(metadata)
        }`,
      );
    }
    for (const [key, entry] of Object.entries(metadata)) {
      if (typeof entry !== "string") {
        throw new TypeError(
          `${at}: metadata.${key}: expected a string, got ${shown(entry)}`,
        );
      }
      if (key.startsWith(RESERVED_METADATA_PREFIX)) {
        throw new RangeError(
          `${at}: metadata.${key}: keys under ${RESERVED_METADATA_PREFIX} are reserved for MCP extensions, and the skills extension defines none`,
        );
      }
    }
  }
  return value as SkillFrontmatter;
}

function optionalString(
  record: Record<string, unknown>,
  key: string,
  at: string,
): string | undefined {
  const value = record[key];
  if (value === undefined || typeof value === "string") return value;
  throw new TypeError(`${at}: ${key}: expected a string, got ${shown(value)}`);
}

function shown(value: unknown): string {
  return value === undefined || value === null ? "nothing" : jsonType(value);
}
