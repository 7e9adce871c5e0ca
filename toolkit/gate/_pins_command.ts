// Internal: `gate pins review FILE` shows what changed since the tools
// were pinned; `gate pins accept FILE [TOOL...]` pins what the gate saw
// (all of it, or the tools named), or, with `-- COMMAND` or `--url URL`
// after them, what the server lists now (it is started, or connected to,
// once to list its tools). Exit 0 on
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
import { type ServerProcess, spawnServer } from "./_server_process.ts";
import { connectHttpServer } from "./_http_server.ts";
import { checkServerChoice, headerOf } from "./_cli.ts";

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
      `forge gate: Expected pins review FILE or pins accept FILE [TOOL...] [-- COMMAND | --url URL], got pins ${
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

/** Where `pins accept` lists the tools now: a command, a URL, or neither. */
interface AcceptArgs {
  names: string[];
  command: string[];
  url: string | undefined;
  headers: [string, string][];
}

/**
 * `[TOOL...] [-- COMMAND...]` or `[TOOL...] --url URL [--header LINE]...`.
 *
 * @throws {Error} Saying what was wrong and what was expected (a
 * `UsageError` for the server's URL, command and headers).
 */
function acceptArgs(rest: readonly string[]): AcceptArgs {
  const separator = rest.indexOf("--");
  const before = separator === -1 ? [...rest] : rest.slice(0, separator);
  const command = separator === -1 ? [] : rest.slice(separator + 1);
  if (separator !== -1 && command.length === 0) {
    throw new Error('Missing the server command after "--"');
  }
  const names: string[] = [];
  const headers: [string, string][] = [];
  let url: string | undefined;
  for (let i = 0; i < before.length; i++) {
    const arg = before[i];
    if (arg !== "--url" && arg !== "--header") {
      if (arg.startsWith("-")) {
        throw new Error(
          `Unknown option: ${arg}: expected tool names, then -- COMMAND or --url URL [--header 'Name: value']`,
        );
      }
      names.push(arg);
      continue;
    }
    const value = before[++i];
    if (value === undefined) throw new Error(`Missing the value of ${arg}`);
    if (arg === "--header") headers.push(headerOf(value));
    else if (url !== undefined) throw new Error("--url given twice");
    else url = value;
  }
  checkServerChoice(command, url, headers);
  return { names, command, url, headers };
}

/** Starts the server `command`, or connects to the one at `url`. */
async function openServer(
  { command, url, headers }: AcceptArgs,
  log: (line: string) => void,
): Promise<ServerProcess> {
  if (url !== undefined) return connectHttpServer(url, { headers, log });
  return await spawnServer(command, undefined).catch((error) => {
    throw new Error(`Cannot start the server: ${messageOf(error)}`);
  });
}

async function accept(path: string, rest: readonly string[]): Promise<number> {
  const args = acceptArgs(rest);
  const { names } = args;
  let live: Map<string, Pin> | undefined;
  if (args.command.length > 0 || args.url !== undefined) {
    const log = (line: string) => console.error(`forge gate: ${line}`);
    const child = await openServer(args, log);
    live = new Map();
    for (const tool of await listTools(child, log)) {
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
          ? "no change seen by the gate (give the server command after -- or its --url to pin what it lists now)"
          : "the server does not list it"
      }`,
    );
    return 1;
  }
  return 0;
}
