// Internal: the pins file. It holds, by tool name, the digest and the
// definition of each pinned tool, the changes the gate has seen and not
// had accepted (`pending`), and the `newTools` setting. A tool's
// definition is what the model reads and sends: name, title,
// description, input and output schema, annotations; its digest is the
// SHA-256 of its canonical JSON (keys sorted). The file is written
// atomically (a temporary file renamed over it), and always from its
// latest content: an edit made meanwhile (a `pins accept`, a hand edit) is
// read first and kept.

import { sha256Hex } from "../../../configreload/_sha256_hex.ts";
import type { Decision } from "../../policy/mod.ts";
import { isRecord, typeName } from "../../_util/json_type.ts";

/** The fields of a tool's definition that are pinned. */
export const PINNED_FIELDS = [
  "name",
  "title",
  "description",
  "inputSchema",
  "outputSchema",
  "annotations",
] as const;

/** A tool's pinned fields, as listed. */
export type ToolDefinition = Record<string, unknown>;

/** One pinned tool. */
export interface Pin {
  digest: string;
  definition: ToolDefinition;
}

/** A definition the gate saw that differs from its pin (or has none). */
export interface PendingPin extends Pin {
  /** `changed` for a pinned tool, `added` for one new since the pins. */
  change: "changed" | "added";
  /** The fields that differ (every field for an added tool). */
  fields: string[];
  /** When the gate first saw it, ISO 8601. */
  seen: string;
}

/** The content of a pins file. */
export interface PinData {
  version: 1;
  /** What the gate does with a tool that appears after the tools were pinned. */
  newTools?: Decision;
  tools: Record<string, Pin>;
  pending: Record<string, PendingPin>;
}

/** A pins file as read: its content, and its text to tell a later edit by. */
export interface PinSnapshot {
  data: PinData;
  /** The file's text; `undefined` when there is no file yet. */
  text: string | undefined;
}

/** The pinned fields of a listed tool. */
export function definitionOf(tool: Record<string, unknown>): ToolDefinition {
  const definition: ToolDefinition = {};
  for (const field of PINNED_FIELDS) {
    if (tool[field] !== undefined) definition[field] = tool[field];
  }
  return definition;
}

/** JSON with every object's keys sorted: the same definition, the same text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (isRecord(value)) {
    const keys = Object.keys(value).filter((key) => value[key] !== undefined)
      .sort();
    return `{${
      keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`)
        .join(",")
    }}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** The digest of a definition. */
export function digestOf(definition: ToolDefinition): Promise<string> {
  return sha256Hex(new TextEncoder().encode(canonicalJson(definition)));
}

/** The pinned fields that differ between two definitions. */
export function changedFields(
  before: ToolDefinition,
  after: ToolDefinition,
): string[] {
  return PINNED_FIELDS.filter((field) =>
    canonicalJson(before[field]) !== canonicalJson(after[field])
  );
}

/** An empty pins file's content. */
export function emptyPins(): PinData {
  return { version: 1, tools: {}, pending: {} };
}

/** Reads the pins file at `path`; no file is an empty one. */
export async function readPins(path: string): Promise<PinSnapshot> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      return { data: emptyPins(), text: undefined };
    }
    throw error;
  }
  return { data: parsePins(text, path), text };
}

/** Checks the text of a pins file. */
export function parsePins(text: string, path: string): PinData {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new TypeError(
      `Invalid pins file: ${path}: ${(error as Error).message}`,
    );
  }
  const wrong = (what: string, got: unknown) =>
    new TypeError(
      `Invalid pins file: ${path}: ${what}, got ${typeName(got)}`,
    );
  if (!isRecord(value) || value.version !== 1) {
    throw wrong("expected an object with version 1", value);
  }
  const newTools = value.newTools;
  if (
    newTools !== undefined && newTools !== "allow" && newTools !== "ask" &&
    newTools !== "deny"
  ) {
    throw wrong('newTools: expected "allow", "ask" or "deny"', newTools);
  }
  const tools = value.tools ?? {};
  const pending = value.pending ?? {};
  for (const [key, map] of [["tools", tools], ["pending", pending]] as const) {
    if (!isRecord(map)) throw wrong(`${key}: expected an object`, map);
    for (const [name, pin] of Object.entries(map)) {
      if (
        !isRecord(pin) || typeof pin.digest !== "string" ||
        !isRecord(pin.definition)
      ) {
        throw wrong(`${key}.${name}: expected a digest and a definition`, pin);
      }
    }
  }
  return {
    version: 1,
    ...(newTools === undefined ? {} : { newTools }),
    tools: tools as Record<string, Pin>,
    pending: pending as Record<string, PendingPin>,
  };
}

/** How often updatePins() starts over when the file changed under it. */
const UPDATE_ATTEMPTS = 5;

/**
 * Changes the pins file at `path` with `change`, applied to its content as
 * it is now, and writes it atomically; resolves with what was written. The
 * gate records pending changes while a user may run `pins accept` or edit
 * the file: the new file replaces the old one only if the old one is still
 * what `change` saw, and otherwise `change` runs again on the file as it is
 * then, so that nobody's edit is lost. `change` may therefore run more than
 * once, each time on fresh data.
 *
 * @throws {Error} When the file changed under every one of the attempts.
 */
export async function updatePins(
  path: string,
  change: (data: PinData) => void,
): Promise<PinSnapshot> {
  for (let attempt = 1; attempt <= UPDATE_ATTEMPTS; attempt++) {
    const { data, text: before } = await readPins(path);
    change(data);
    const text = JSON.stringify(data, null, 2) + "\n";
    const temporary = `${path}.${crypto.randomUUID()}.tmp`;
    let replaced = false;
    try {
      await Deno.writeTextFile(temporary, text);
      // Compare and swap: the check and the rename run back to back, with
      // no await between them, so what can slip in is one system call wide.
      if (textNow(path) === before) {
        Deno.renameSync(temporary, path);
        replaced = true;
      }
    } finally {
      if (!replaced) await Deno.remove(temporary).catch(() => {});
    }
    if (replaced) return { data, text };
  }
  throw new Error(
    `Cannot update the pins file: it changed under each of ${UPDATE_ATTEMPTS} attempts: ${path}`,
  );
}

/** The text of the file at `path` now, `undefined` when there is none. */
function textNow(path: string): string | undefined {
  try {
    return Deno.readTextFileSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}
