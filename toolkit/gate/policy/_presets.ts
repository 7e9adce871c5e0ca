// Internal: the shipped presets, pattern templates for the tools of
// well-known servers that do not answer the probe. They are data
// (presets/*.json), imported statically so the module graph stays static
// and a bundle or compiled binary carries them.

import commands from "./presets/commands.json" with { type: "json" };
import fetch from "./presets/fetch.json" with { type: "json" };
import filesystem from "./presets/filesystem.json" with { type: "json" };
import memory from "./presets/memory.json" with { type: "json" };
import { compileTemplate, type Template } from "./_template.ts";

/** One preset: the server it was written for, and each tool's templates. */
export interface Preset {
  /** The npm package of the server. */
  server: string;
  /** The version its tool list was checked against. */
  tested: string;
  /** Tool name (or glob) to templates. */
  tools: ReadonlyMap<string, readonly Template[]>;
}

interface PresetFile {
  server: string;
  tested: string;
  tools: Record<string, { patterns: string[] }>;
}

function compile(file: PresetFile): Preset {
  return Object.freeze({
    server: file.server,
    tested: file.tested,
    tools: new Map(
      Object.entries(file.tools).map((
        [name, entry],
      ) => [name, Object.freeze(entry.patterns.map(compileTemplate))]),
    ),
  });
}

/** The presets by the name a policy file gives in `presets`. */
export const PRESETS: ReadonlyMap<string, Preset> = new Map([
  ["filesystem", compile(filesystem)],
  ["memory", compile(memory)],
  ["fetch", compile(fetch)],
  ["commands", compile(commands)],
]);
