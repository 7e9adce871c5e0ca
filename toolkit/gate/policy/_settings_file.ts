// Internal: the files a user writes for the gate (the policy, a cases
// file): their format told by the file name, and their text, read once
// with every problem said the same way.

import { type Format, formatForPath } from "../../../validate/mod.ts";
import { messageOf } from "../_log.ts";

const FILE_FORMATS: readonly Format[] = ["json", "jsonc", "yaml", "toml"];

/** The format of the file at `path` by its name, or why it has none (`shown` names it). */
export function settingsFormat(
  path: string,
  shown: string = path,
): Format | { problem: string } {
  const format = formatForPath(path);
  return format !== undefined && FILE_FORMATS.includes(format) ? format : {
    problem:
      `cannot tell the format from the file name: ${shown} (expected .json, .jsonc, .yaml, .yml or .toml)`,
  };
}

/** The text and format of the file at `path`, or what is wrong with it (`shown` names it). */
export async function readSettingsFile(
  path: string,
  shown: string,
): Promise<{ text: string; format: Format } | { problem: string }> {
  const format = settingsFormat(path, shown);
  if (typeof format !== "string") return format;
  try {
    return { text: await Deno.readTextFile(path), format };
  } catch (error) {
    return { problem: `${shown}: ${messageOf(error)}` };
  }
}
