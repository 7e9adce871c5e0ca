// Internal: `gate pins review FILE` shows what changed since the tools
// were pinned, each change with its digest; `gate pins accept FILE
// TOOL@DIGEST...` pins a change the gate saw, and only the one reviewed:
// when the pending change's digest is no longer DIGEST (the server changed
// the tool again since the review), nothing is accepted. With `-- COMMAND`
// or `--url URL` after the tools, it pins what the server lists now (it is
// started, or connected to, once to list its tools): the tools named with
// a digest only if they still have it, the others (all of them when none
// is named) as listed, each printed with its digest. Exit 0 on success, 1
// when a named tool has nothing to accept or changed since the review, 2
// for a bad command line or a file that cannot be read or written. With
// `--redis URL` (before any `--`), both work on the pins the gate instances
// using that Redis share, kept there under the file's absolute path.

import { messageOf } from "../_log.ts";
import { listTools } from "./_list_tools.ts";
import {
  canonicalJson,
  changedFields,
  definitionOf,
  digestOf,
  type PendingPin,
  type Pin,
} from "./_pin_file.ts";
import { filePinStore, type PinStore, redisPinStore } from "./_pin_store.ts";
import { openLink, redacted } from "../../redis/_link.ts";
import {
  type ServerProcess,
  spawnServer,
} from "../upstream/_server_process.ts";
import { connectHttpServer } from "../upstream/_http_server.ts";
import { checkServerChoice, headerOf } from "../_cli.ts";

/** How much of a changed field is shown. */
const SHOWN = 300;

/** A tool named with the digest its review showed: `TOOL@DIGEST`. */
const WITH_DIGEST = /^(.+)@([0-9a-f]{64})$/;

/** Runs `pins <args>`; resolves with the exit status. */
export async function pinsCommand(
  args: readonly string[],
): Promise<number> {
  const { redis, others } = redisOption(args);
  const [action, path, ...rest] = others;
  if (
    redis === null ||
    (action !== "review" && action !== "accept") || path === undefined ||
    (action === "review" && rest.length > 0)
  ) {
    console.error(
      `forge gate: Expected pins review FILE or pins accept FILE TOOL@DIGEST... or pins accept FILE [TOOL[@DIGEST]...] (-- COMMAND | --url URL), each with --redis URL for pins in Redis, got pins ${
        args.join(" ")
      }`,
    );
    return 2;
  }
  let link;
  try {
    let store = filePinStore(path);
    if (redis !== undefined) {
      if (!/^rediss?:\/\//.test(redis)) {
        throw new TypeError(
          `Expected a redis:// or rediss:// URL after --redis, got ${
            JSON.stringify(redis)
          }`,
        );
      }
      link = await openLink(redis, {
        timeoutMs: 1_000,
        connectTimeoutMs: 5_000,
        onError: (line) => console.error(`forge gate: ${line}`),
      });
      store = redisPinStore(link, path, { url: redacted(redis) });
    }
    return action === "review"
      ? await review(store)
      : await accept(store, rest);
  } catch (error) {
    console.error(`forge gate: ${messageOf(error)}`);
    return 2;
  } finally {
    await link?.close();
  }
}

/**
 * `--redis URL` taken out of the arguments before any `--` (`null`: given
 * without its URL, or twice).
 */
function redisOption(
  args: readonly string[],
): { redis: string | undefined | null; others: string[] } {
  const end = args.indexOf("--");
  const head = end === -1 ? [...args] : args.slice(0, end);
  const tail = end === -1 ? [] : args.slice(end);
  const others: string[] = [];
  let redis: string | undefined | null;
  for (let i = 0; i < head.length; i++) {
    if (head[i] !== "--redis") {
      others.push(head[i]);
      continue;
    }
    const url = head[++i];
    redis = redis !== undefined || url === undefined ? null : url;
  }
  return { redis, others: [...others, ...tail] };
}

async function review(store: PinStore): Promise<number> {
  const path = store.name;
  const { data, text } = await store.read();
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
  // The digests name what was shown here: an accept of them refuses a
  // definition that changed after this review.
  console.log(
    `\nAccept what is shown with: deno task gate pins accept ${path} ${
      pending.map(([name, seen]) => `${name}@${seen.digest}`).join(" ")
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
    `  digest: ${seen.digest}`,
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
  /** Each tool named, with the digest it was named with, if any. */
  names: { name: string; digest: string | undefined }[];
  command: string[];
  url: string | undefined;
  headers: [string, string][];
}

/**
 * `TOOL@DIGEST...`, `[TOOL[@DIGEST]...] -- COMMAND...` or
 * `[TOOL[@DIGEST]...] --url URL [--header LINE]...`.
 *
 * @throws {Error} Saying what was wrong and what was expected (a
 * `UsageError` for the server's URL, command and headers).
 */
function acceptArgs(path: string, rest: readonly string[]): AcceptArgs {
  const separator = rest.indexOf("--");
  const before = separator === -1 ? [...rest] : rest.slice(0, separator);
  const command = separator === -1 ? [] : rest.slice(separator + 1);
  if (separator !== -1 && command.length === 0) {
    throw new Error('Missing the server command after "--"');
  }
  const names: AcceptArgs["names"] = [];
  const headers: [string, string][] = [];
  let url: string | undefined;
  for (let i = 0; i < before.length; i++) {
    const arg = before[i];
    if (arg !== "--url" && arg !== "--header") {
      if (arg.startsWith("-")) {
        throw new Error(
          `Unknown option: ${arg}: expected tool names (TOOL@DIGEST as pins review shows), then -- COMMAND or --url URL [--header 'Name: value']`,
        );
      }
      const named = WITH_DIGEST.exec(arg);
      names.push(
        named === null
          ? { name: arg, digest: undefined }
          : { name: named[1], digest: named[2] },
      );
      continue;
    }
    const value = before[++i];
    if (value === undefined) throw new Error(`Missing the value of ${arg}`);
    if (arg === "--header") headers.push(headerOf(value));
    else if (url !== undefined) throw new Error("--url given twice");
    else url = value;
  }
  checkServerChoice(command, url, headers);
  const bare = names.filter(({ digest }) => digest === undefined);
  if (command.length === 0 && url === undefined) {
    // What the gate saw is accepted only as reviewed: by its digest.
    if (names.length === 0 || bare.length > 0) {
      throw new Error(
        `Expected each tool with the digest "pins review" shows, as TOOL@DIGEST, got ${
          names.length === 0
            ? "no tool"
            : bare.map(({ name }) => name).join(", ")
        }: run "deno task gate pins review ${path}" and accept what it shows (or give the server after -- or --url to pin what it lists now)`,
      );
    }
  }
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

async function accept(
  store: PinStore,
  rest: readonly string[],
): Promise<number> {
  const path = store.name;
  const args = acceptArgs(path, rest);
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
  let accepted: [string, Pin][] = [];
  let refused: string[] = [];
  await store.update((data) => {
    // Runs again when the file changed meanwhile: only the last run counts.
    accepted = [];
    refused = [];
    const settled: string[] = [];
    const wanted = args.names.length > 0
      ? args.names
      : [...(live?.keys() ?? [])].map((name) => ({
        name,
        digest: undefined,
      }));
    for (const { name, digest } of wanted) {
      const pin = live !== undefined ? live.get(name) : data.pending[name];
      // Accepted before, as reviewed: nothing left to do.
      if (
        pin === undefined && digest !== undefined &&
        data.tools[name]?.digest === digest
      ) continue;
      if (pin === undefined) {
        refused.push(
          `Nothing to accept for ${name}: ${
            live === undefined
              ? "no change seen by the gate"
              : "the server does not list it"
          }`,
        );
        continue;
      }
      if (digest !== undefined && pin.digest !== digest) {
        refused.push(
          `Not accepted: ${name}: its definition is not the one with digest ${digest} (${
            live === undefined
              ? "it changed after the review; review it again"
              : "the server lists another one now"
          })`,
        );
        continue;
      }
      if (data.tools[name]?.digest === pin.digest) {
        settled.push(name);
        continue;
      }
      accepted.push([name, {
        digest: pin.digest,
        definition: pin.definition,
      }]);
    }
    // All or nothing: a refused tool leaves the file as it was.
    if (refused.length > 0) return;
    for (const name of settled) delete data.pending[name];
    for (const [name, pin] of accepted) {
      delete data.pending[name];
      data.tools[name] = pin;
    }
  });
  if (refused.length > 0) {
    for (const line of refused) console.error(`forge gate: ${line}`);
    console.error("forge gate: Nothing was accepted");
    return 1;
  }
  for (const [name, pin] of accepted) {
    console.log(
      `accepted ${name}@${pin.digest}${
        live === undefined
          ? ""
          : `: ${shown(pin.definition.description)} (as listed now)`
      }`,
    );
  }
  if (accepted.length === 0) console.log(`${path}: nothing to accept`);
  return 0;
}
