// Internal: how the policy file maps tools that do not answer the probe:
// `tools` entries by name or glob (a decision, or pattern templates),
// shipped presets, the roots file templates resolve against, and defaults
// by the tools' annotations. Checked when the file is read, looked up for
// each call.

import type { Decision } from "../../policy/mod.ts";
import { type FileAccess, fileAccess } from "../../patterns/file.ts";
import { isRecord, typeName } from "../../_util/json_type.ts";
import { PRESETS } from "./_presets.ts";
import {
  compileTemplate,
  namesFiles,
  type Template,
  TemplateSyntaxError,
} from "./_template.ts";

const DECISIONS: readonly Decision[] = ["allow", "ask", "deny"];
const HINTS = ["readOnly", "destructive"] as const;

/** A field of the file that is wrong; policy_file.ts makes it a GatePolicyError. */
export class MappingError extends TypeError {
  readonly path: readonly (string | number)[];
  readonly column: number | undefined;

  constructor(
    problem: string,
    path: readonly (string | number)[],
    column?: number,
  ) {
    super(problem);
    this.name = "MappingError";
    this.path = path;
    this.column = column;
  }
}

/**
 * A non-empty list whose every item `check` finds nothing wrong with;
 * a `MappingError` naming the list (`expected a non-empty list of {what}`,
 * with a hint for a bare string) or the item (`check`'s problem).
 */
export function checkedList(
  value: unknown,
  path: readonly (string | number)[],
  options: { what: string; check: (item: unknown) => string | undefined },
): readonly string[] {
  if (!Array.isArray(value) || value.length === 0) {
    const hint = typeof value === "string" && value !== ""
      ? ` (write ${path.at(-1)}: ["${value}"])`
      : "";
    throw new MappingError(
      `expected a non-empty list of ${options.what}, got ${
        Array.isArray(value) ? "an empty list" : typeName(value)
      }${hint}`,
      path,
    );
  }
  value.forEach((item: unknown, index) => {
    const problem = options.check(item);
    if (problem !== undefined) {
      throw new MappingError(problem, [...path, index]);
    }
  });
  return Object.freeze([...value as string[]]);
}

/** What a `tools` entry says: a decision, or the templates of its patterns. */
export type ToolEntry = Decision | readonly Template[];

/** A tool's entry and where it comes from (`tools.write_file`, `presets.filesystem.write_file`). */
export interface FoundEntry {
  entry: ToolEntry;
  source: string;
}

/** The defaults by annotation: `annotations: { readOnly: allow, destructive: ask }`. */
export type AnnotationDefaults = Readonly<
  Partial<Record<(typeof HINTS)[number], Decision>>
>;

/** Entries by exact name, then by glob in the order written. */
class EntryTable {
  #exact = new Map<string, FoundEntry>();
  #globs: { pattern: RegExp; found: FoundEntry }[] = [];

  add(name: string, found: FoundEntry): void {
    if (!/[*?]/.test(name)) this.#exact.set(name, found);
    else this.#globs.push({ pattern: nameGlob(name), found });
  }

  find(name: string): FoundEntry | undefined {
    return this.#exact.get(name) ??
      this.#globs.find((glob) => glob.pattern.test(name))?.found;
  }
}

/** The checked mapping of one policy file. */
export class ToolMapping {
  #own = new EntryTable();
  #presets = new EntryTable();
  #warned = new Set<string>();
  /** File access from the first root; `undefined` without roots. */
  readonly files: FileAccess | undefined;
  /** The policy's roots, in order; empty without roots. */
  readonly roots: readonly string[];
  readonly annotations: AnnotationDefaults;

  constructor(options: {
    tools?: ReadonlyMap<string, Decision>;
    templates?: ReadonlyMap<string, readonly Template[]>;
    presets?: readonly string[];
    roots?: readonly string[];
    annotations?: AnnotationDefaults;
  }) {
    const templates = options.templates ?? new Map();
    for (const [name, decision] of options.tools ?? []) {
      this.#own.add(name, { entry: decision, source: `tools.${name}` });
    }
    for (const [name, list] of templates) {
      this.#own.add(name, { entry: list, source: `tools.${name}` });
    }
    for (const preset of options.presets ?? []) {
      for (const [name, list] of PRESETS.get(preset)?.tools ?? []) {
        this.#presets.add(name, {
          entry: list,
          source: `presets.${preset}.${name}`,
        });
      }
    }
    this.roots = options.roots ?? [];
    const [root] = this.roots;
    this.files = root === undefined ? undefined : fileAccess(root);
    this.annotations = options.annotations ?? {};
  }

  /** The entry that decides `tool`: the file's own by name, by glob, then a preset's. */
  entry(tool: string): FoundEntry | undefined {
    return this.#own.find(tool) ?? this.#presets.find(tool);
  }

  /** The decision of a tool's entry when it is a decision (probed tools read only that). */
  decision(tool: string): { decision: Decision; source: string } | undefined {
    const found = this.#own.find(tool);
    return typeof found?.entry === "string"
      ? { decision: found.entry, source: found.source }
      : undefined;
  }

  /**
   * For a tool that answers the probe: a template for it is an error, said
   * once (per version of the file); the probe decides it.
   */
  probed(tool: string, log: (line: string) => void): void {
    const found = this.entry(tool);
    if (found === undefined || typeof found.entry === "string") return;
    if (this.#warned.has(tool)) return;
    this.#warned.add(tool);
    log(
      `${found.source}.patterns: ${tool} answers the permission-pattern probe, so its templates are not used: the probe decides its calls`,
    );
  }

  /**
   * The default by annotation for a tool the server lists with `hints`
   * (MCP's defaults: not read-only, destructive unless it says otherwise).
   */
  byAnnotation(
    hints: Record<string, unknown> | undefined,
  ): { decision: Decision; hint: (typeof HINTS)[number] } | undefined {
    const readOnly = hints?.readOnlyHint === true;
    const hint = readOnly
      ? "readOnly"
      : hints?.destructiveHint === false
      ? undefined
      : "destructive";
    const decision = hint === undefined ? undefined : this.annotations[hint];
    return hint === undefined || decision === undefined
      ? undefined
      : { decision, hint };
  }
}

/** `git_*` as a regular expression: `*` any run, `?` one character. */
export function nameGlob(name: string): RegExp {
  const body = [...name].map((c) =>
    c === "*" ? ".*" : c === "?" ? "." : c.replace(/[.+^${}()|[\]\\]/g, "\\$&")
  ).join("");
  return new RegExp(`^${body}$`, "su");
}

/**
 * Checks `tools`: each tool name (or glob) with `"allow"`, `"ask"` or
 * `"deny"`, or `{ patterns: [templates] }`.
 */
export function parseToolEntries(value: unknown): {
  decisions: Map<string, Decision>;
  templates: Map<string, Template[]>;
} {
  if (!isRecord(value)) {
    throw new MappingError(
      `expected tool names with "allow", "ask", "deny" or { patterns: [...] } (tools: { search: allow }), got ${
        typeName(value)
      }`,
      ["tools"],
    );
  }
  const decisions = new Map<string, Decision>();
  const templates = new Map<string, Template[]>();
  for (const [name, entry] of Object.entries(value)) {
    if (isRecord(entry)) {
      templates.set(name, parseTemplates(entry, ["tools", name]));
    } else {
      decisions.set(name, decisionAt(entry, ["tools", name]));
    }
  }
  return { decisions, templates };
}

function parseTemplates(
  entry: Record<string, unknown>,
  path: readonly (string | number)[],
): Template[] {
  for (const key of Object.keys(entry)) {
    if (key !== "patterns") {
      throw new MappingError(`unknown key: expected patterns`, [...path, key]);
    }
  }
  const list = entry.patterns;
  if (!Array.isArray(list)) {
    throw new MappingError(
      `expected a list of pattern templates such as ["write:{path}"], got ${
        list === undefined ? "nothing" : typeName(list)
      }`,
      [...path, "patterns"],
    );
  }
  return list.map((text: unknown, index) => {
    const at = [...path, "patterns", index];
    if (typeof text !== "string") {
      throw new MappingError(
        `expected a template string, got ${typeName(text)}`,
        at,
      );
    }
    try {
      return compileTemplate(text);
    } catch (error) {
      if (!(error instanceof TemplateSyntaxError)) throw error;
      throw new MappingError(
        `${error.message} (in template ${JSON.stringify(text)})`,
        at,
        error.column,
      );
    }
  });
}

/** Checks `roots`: a list of absolute directory paths. */
export function parseRoots(value: unknown): string[] {
  if (!Array.isArray(value)) {
    const hint = typeof value === "string"
      ? ` (write roots: ["${value}"])`
      : "";
    throw new MappingError(
      `expected a list of absolute directory paths, got ${
        typeName(value)
      }${hint}`,
      ["roots"],
    );
  }
  return value.map((root: unknown, index) => {
    if (typeof root !== "string" || !root.startsWith("/")) {
      throw new MappingError(
        `expected an absolute directory path such as "/home/me/work", got ${
          typeof root === "string" ? JSON.stringify(root) : typeName(root)
        }`,
        ["roots", index],
      );
    }
    return root;
  });
}

/** Checks `presets`: names of the shipped presets. */
export function parsePresets(value: unknown): string[] {
  const known = [...PRESETS.keys()].join(", ");
  if (!Array.isArray(value)) {
    const hint = typeof value === "string"
      ? ` (write presets: ["${value}"])`
      : "";
    throw new MappingError(
      `expected a list of preset names (${known}), got ${
        typeName(value)
      }${hint}`,
      ["presets"],
    );
  }
  return value.map((name: unknown, index) => {
    if (typeof name !== "string" || !PRESETS.has(name)) {
      throw new MappingError(
        `unknown preset ${
          typeof name === "string" ? JSON.stringify(name) : typeName(name)
        }: expected one of ${known}`,
        ["presets", index],
      );
    }
    return name;
  });
}

/** Checks `annotations`: `{ readOnly?, destructive? }` of decisions. */
export function parseAnnotations(value: unknown): AnnotationDefaults {
  if (!isRecord(value)) {
    throw new MappingError(
      `expected { readOnly: allow, destructive: ask }, got ${typeName(value)}`,
      ["annotations"],
    );
  }
  const out: Partial<Record<(typeof HINTS)[number], Decision>> = {};
  for (const [key, decision] of Object.entries(value)) {
    if (!(HINTS as readonly string[]).includes(key)) {
      throw new MappingError(
        `unknown key: expected readOnly or destructive`,
        ["annotations", key],
      );
    }
    out[key as (typeof HINTS)[number]] = decisionAt(decision, [
      "annotations",
      key,
    ]);
  }
  return Object.freeze(out);
}

/**
 * File templates need a root to resolve against: the first one in the
 * file's own tools, then in a preset, is an error without `roots`.
 */
export function checkRoots(
  roots: readonly string[] | undefined,
  templates: ReadonlyMap<string, readonly Template[]>,
  presets: readonly string[],
): void {
  if (roots !== undefined && roots.length > 0) return;
  const expected = `expected roots: ["/absolute/dir"] in the policy file`;
  for (const [name, list] of templates) {
    const index = list.findIndex(namesFiles);
    if (index !== -1) {
      throw new MappingError(
        `a file pattern needs a root to resolve paths against: ${expected}`,
        ["tools", name, "patterns", index],
      );
    }
  }
  presets.forEach((preset, index) => {
    const tools = PRESETS.get(preset)?.tools ?? new Map();
    if ([...tools.values()].some((list) => list.some(namesFiles))) {
      throw new MappingError(
        `the ${preset} preset names files, which need a root to resolve paths against: ${expected}`,
        ["presets", index],
      );
    }
  });
}

export function decisionAt(
  value: unknown,
  path: readonly (string | number)[],
): Decision {
  if (DECISIONS.includes(value as Decision)) return value as Decision;
  throw new MappingError(
    `expected "allow", "ask" or "deny", got ${
      typeof value === "string" ? JSON.stringify(value) : typeName(value)
    }`,
    path,
  );
}
