// Internal: `gate pins review FILE` shows what changed since the tools
// were pinned; `gate pins accept FILE [TOOL...]` pins what the gate saw
// (all of it, or the tools named), or, with `-- COMMAND` after them, what
// the server lists now (it is started once to list its tools). Exit 0 on
// success, 1 when a named tool has nothing to accept, 2 for a bad command
// line or a file that cannot be read or written.

import { messageOf } from "./_log.ts";
import { listTools } from "./_list_tools.ts";
import {
  canonicalJson,
  changedFields,
  definitionOf,
  digestOf,
  type PendingPin,
  type Pin,
  readPins,
  updatePins,
} from "./_pin_file.ts";
import { spawnServer } from "./_server_process.ts";

/** How much of a changed field is shown. */
const SHOWN = 300;

/** Runs `pins <args>`; resolves with the exit status. */
export async function pinsCommand(args: readonly string[]): Promise<number> {
  const [action, path, ...rest] = args;
  if (
    (action !== "review" && action !== "accept") || path === undefined ||
    (action === "review" && rest.length > 0)
  ) {
    console.error(
      `forge gate: Expected pins review FILE or pins accept FILE [TOOL...] [-- COMMAND], got pins ${
        args.join(" ")
      }`,
    );
    return 2;
  }
  try {
    return action === "review" ? await review(path) : await accept(path, rest);
  } catch (error) {
    console.error(`forge gate: ${messageOf(error)}`);
    return 2;
  }
}

async function review(path: string): Promise<number> {
  const { data, text } = await readPins(path);
  if (text === undefined) throw new Error(`No pins file: ${path}`);
  const pending = Object.entries(data.pending);
  if (pending.length === 0) {
    console.log(
      `${path}: ${
        Object.keys(data.tools).length
      } tools pinned, no changes to review`,
    );
    return 0;
  }
  for (const [name, seen] of pending) {
    console.log(describe(name, seen, data.tools[name]));
  }
  console.log(
    `\nAccept with: deno task gate pins accept ${path} ${
      pending.map(([name]) => name).join(" ")
    }`,
  );
  return 0;
}

/** One pending change, field by field. */
function describe(
  name: string,
  seen: PendingPin,
  pin: Pin | undefined,
): string {
  const lines = [
    seen.change === "added"
      ? `${name}: new since the tools were pinned (seen ${seen.seen})`
      : `${name}: changed since it was pinned: ${
        seen.fields.join(", ")
      } (seen ${seen.seen})`,
  ];
  const fields = pin === undefined
    ? Object.keys(seen.definition)
    : changedFields(pin.definition, seen.definition);
  for (const field of fields) {
    if (pin !== undefined) {
      lines.push(`  ${field} was: ${shown(pin.definition[field])}`);
    }
    lines.push(
      `  ${field}${pin === undefined ? "" : " now"}: ${
        shown(seen.definition[field])
      }`,
    );
  }
  return lines.join("\n");
}

function shown(value: unknown): string {
  if (value === undefined) return "(none)";
  const text = typeof value === "string"
    ? JSON.stringify(value)
    : canonicalJson(value);
  return text.length <= SHOWN
    ? text
    : `${text.slice(0, SHOWN)}… (${text.length} characters)`;
}

async function accept(path: string, rest: readonly string[]): Promise<number> {
  const separator = rest.indexOf("--");
  const names = separator === -1 ? [...rest] : rest.slice(0, separator);
  const command = separator === -1 ? [] : rest.slice(separator + 1);
  if (separator !== -1 && command.length === 0) {
    throw new Error('Missing the server command after "--"');
  }
  let live: Map<string, Pin> | undefined;
  if (command.length > 0) {
    const child = await spawnServer(command, undefined).catch((error) => {
      throw new Error(`Cannot start the server: ${messageOf(error)}`);
    });
    live = new Map();
    for (
      const tool of await listTools(
        child,
        (line) => console.error(`forge gate: ${line}`),
      )
    ) {
      if (typeof tool.name !== "string") continue;
      const definition = definitionOf(tool);
      live.set(tool.name, { digest: await digestOf(definition), definition });
    }
  }
  const accepted: string[] = [];
  const missing: string[] = [];
  await updatePins(path, (data) => {
    // Runs again when the file changed meanwhile: only the last run counts.
    accepted.length = 0;
    missing.length = 0;
    const source: Map<string, Pin> = live ??
      new Map(
        Object.entries(data.pending).map((
          [name, { digest, definition }],
        ) => [name, { digest, definition }]),
      );
    const wanted = names.length > 0 ? names : [...source.keys()];
    for (const name of wanted) {
      const pin = source.get(name);
      if (pin === undefined) {
        missing.push(name);
        continue;
      }
      delete data.pending[name];
      if (data.tools[name]?.digest === pin.digest) continue;
      data.tools[name] = pin;
      accepted.push(name);
    }
  });
  for (const name of accepted) console.log(`accepted ${name}`);
  if (accepted.length === 0 && missing.length === 0) {
    console.log(`${path}: nothing to accept`);
  }
  if (missing.length > 0) {
    console.error(
      `forge gate: Nothing to accept for ${missing.join(", ")}: ${
        live === undefined
          ? "no change seen by the gate (give the server command after -- to pin what it lists now)"
          : "the server does not list it"
      }`,
    );
    return 1;
  }
  return 0;
}
