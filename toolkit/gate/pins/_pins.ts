// Internal: tool pins in a running gate. The first tools/list the gate
// sees (every page of it) pins each tool's definition; from then on a
// pinned tool whose definition changed is withheld: removed from the lists
// the host gets, its calls refused, the change audited, logged and kept in
// the pins file's `pending` for `pins review` and `pins accept`. A tool
// new since the pins is decided by `newTools`: allow pins it, deny
// withholds it, ask (the default) lists it and asks before each call. An
// accept made while the gate runs counts from the next list or call.
//
// The first list pins only once it has ended (a page without a next
// cursor): until then its tools are a draft, decided as new tools. A list
// that does not end within MAX_LIST_PAGES pages, or whose walk by the gate
// gives a cursor twice, is never pinned: its tools stay new tools, in
// this run and the next (the file holds them as pending). Pages
// are reviewed one at a time, and a call's check waits for the reviews
// under way, so a call right after a list sees that list's pins.

import { dirname, resolve } from "node:path";
import type { Decision } from "../../policy/mod.ts";
import { formatForPath } from "../../../validate/mod.ts";
import { isRecord } from "../../_util/json_type.ts";
import type { AuditSink } from "../audit/_audit.ts";
import type { Verdict } from "../policy/_decide.ts";
import { parsePolicyText } from "../policy/_policy_source.ts";
import { MAX_LIST_PAGES } from "./_tool_list.ts";
import {
  changedFields,
  definitionOf,
  digestOf,
  type PendingPin,
  type Pin,
  type PinData,
  PINNED_FIELDS,
  type ToolDefinition,
} from "./_pin_file.ts";
import { filePinStore, type PinStore } from "./_pin_store.ts";

/** What the pins say about a call of one tool. */
export type PinState =
  | { kind: "withheld"; refusal: string }
  | { kind: "ask"; why: string };

/** Options for {@linkcode Pins.open}. */
export interface PinsOptions {
  /** For a tool new since the pins, when the pins file does not say. */
  newTools?: Decision;
  /** Where each change is recorded. */
  audit: AuditSink | undefined;
  /** The gate's own lines. */
  log: (line: string) => void;
  /**
   * Where the pins are kept, when not in the file alone (Redis: shared by
   * the gate instances using it).
   */
  store?: PinStore;
}

/** A tool as last listed by the server. */
interface Seen {
  digest: string;
  definition: ToolDefinition;
}

/** The pins of one gate, and what it saw of the tools since. */
export class Pins {
  #store: PinStore;
  #data: PinData;
  #text: string | undefined;
  #options: PinsOptions;
  // The first list while it has not ended: from a file with no pins nor
  // changes pending, until a page without a next cursor (then pinned) or
  // the walk's bound (then dropped: its tools are new tools, pending).
  #draft: Map<string, Seen> | undefined;
  #draftPages = 0;
  #seen = new Map<string, Seen>();
  #states = new Map<string, PinState>();
  #writes: Promise<unknown> = Promise.resolve();
  // Reviews and checks, one at a time in the order they came.
  #queue: Promise<unknown> = Promise.resolve();

  private constructor(
    store: PinStore,
    snapshot: { data: PinData; text: string | undefined },
    options: PinsOptions,
  ) {
    this.#store = store;
    this.#data = snapshot.data;
    this.#text = snapshot.text;
    this.#options = options;
    // A file with changes pending is not fresh: its list was not pinned.
    const { tools, pending } = snapshot.data;
    if (Object.keys({ ...tools, ...pending }).length === 0) {
      this.#draft = new Map();
    }
  }

  /**
   * Reads the pins file at `path`, or the pins `options.store` keeps of it
   * (none yet: the first list pins).
   */
  static async open(path: string, options: PinsOptions): Promise<Pins> {
    const store = options.store ?? filePinStore(path);
    return new Pins(store, await store.read(), options);
  }

  /** The setting for new tools in force. */
  get newTools(): Decision {
    return this.#data.newTools ?? this.#options.newTools ?? "ask";
  }

  /**
   * Whether the first list is still to be pinned: the gate lists the
   * tools itself before it decides a call, to finish it.
   */
  get recording(): boolean {
    return this.#draft !== undefined;
  }

  /**
   * Reviews one page of a `tools/list` result: pins, withholds or marks
   * each tool; resolves with the page the host may see. Pages are reviewed
   * one at a time, in the order they came.
   */
  review(
    result: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    return this.#serially(() => this.#review(result));
  }

  /**
   * The gate's own walk of the list ended before its last page (`why`):
   * a first list not yet pinned never will be; its tools are new tools.
   */
  unfinished(why: string): Promise<void> {
    return this.#serially(() => this.#dropDraft(why));
  }

  /**
   * What the pins say about a call of `name`: withheld, asked, or nothing
   * (`undefined`). Waits for the reviews under way, and reads the file
   * again first, so an accept counts at once.
   */
  check(name: string): Promise<PinState | undefined> {
    return this.#serially(async () => {
      // Shared pins: another instance may have seen the tool change.
      if (!this.#states.has(name) && !this.#store.shared) return undefined;
      await this.#reload();
      return this.#states.get(name) ?? this.#sharedState(name);
    });
  }

  /** Waits for the reviews and file writes under way. */
  async close(): Promise<void> {
    await this.#queue;
    await this.#writes;
  }

  #serially<T>(task: () => Promise<T>): Promise<T> {
    const done = this.#queue.then(task);
    this.#queue = done.catch(() => {});
    return done;
  }

  async #review(
    result: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    if (!Array.isArray(result.tools)) return result;
    await this.#reload();
    if (this.#draft !== undefined && ++this.#draftPages > MAX_LIST_PAGES) {
      await this.#dropDraft(`it did not end within ${MAX_LIST_PAGES} pages`);
    }
    const pins: Record<string, { digest: string; definition: ToolDefinition }> =
      {};
    const pending: Record<string, PendingPin> = {};
    const shown: unknown[] = [];
    const resolved: string[] = [];
    for (const tool of result.tools) {
      if (!isRecord(tool) || typeof tool.name !== "string") {
        shown.push(tool);
        continue;
      }
      const name = tool.name;
      const definition = definitionOf(tool);
      const digest = await digestOf(definition);
      this.#seen.set(name, { digest, definition });
      const pin = this.#data.tools[name];
      if (pin === undefined && this.#draft !== undefined) {
        // Pinned once the list ends; until then, a new tool.
        this.#draft.set(name, { digest, definition });
        const state = this.#draftState(name);
        if (state === undefined) this.#states.delete(name);
        else this.#states.set(name, state);
        shown.push(tool);
        continue;
      }
      if (pin === undefined && this.newTools === "allow") {
        pins[name] = { digest, definition };
        this.#note(name, "added", [...fieldsOf(definition)], digest, "pinned");
        shown.push(tool);
        continue;
      }
      if (pin !== undefined && pin.digest === digest) {
        this.#states.delete(name);
        // Changed and changed back: nothing is left to accept.
        if (this.#data.pending[name] !== undefined) resolved.push(name);
        shown.push(tool);
        continue;
      }
      const change = pin === undefined ? "added" : "changed";
      const fields = pin === undefined
        ? fieldsOf(definition)
        : changedFields(pin.definition, definition);
      const action = change === "added" && this.newTools === "ask"
        ? "ask"
        : "withheld";
      this.#states.set(name, this.#stateOf(name, change, fields, action));
      if (action === "ask") shown.push(tool);
      if (this.#data.pending[name]?.digest !== digest) {
        pending[name] = {
          digest,
          definition,
          change,
          fields,
          seen: new Date().toISOString(),
        };
        this.#note(name, change, fields, digest, action);
      }
    }
    if (this.#draft !== undefined && typeof result.nextCursor !== "string") {
      // The first list has ended: all of it is pinned.
      for (const [name, seen] of this.#draft) {
        // One pinned meanwhile (pins accept) is reviewed at the next list.
        if (this.#data.tools[name] !== undefined) continue;
        pins[name] = seen;
        this.#states.delete(name);
      }
      this.#draft = undefined;
    }
    const lost = await this.#save(pins, pending, resolved);
    return {
      ...result,
      tools: shown.filter((tool) => !(isRecord(tool) && lost.has(tool.name))),
    };
  }

  /** A first list that will not end: its tools are new tools from now on. */
  async #dropDraft(why: string): Promise<void> {
    const draft = this.#draft;
    if (draft === undefined) return;
    this.#draft = undefined;
    this.#options.log(
      `the server's first tool list is not pinned: ${why}; its tools are new tools (newTools: ${this.newTools})`,
    );
    const pins: Record<string, Pin> = {};
    const pending: Record<string, PendingPin> = {};
    for (const [name, { digest, definition }] of draft) {
      if (this.#data.tools[name]?.digest === digest) continue;
      const fields = fieldsOf(definition);
      if (this.newTools === "allow") {
        pins[name] = { digest, definition };
        this.#states.delete(name);
        this.#note(name, "added", fields, digest, "pinned");
        continue;
      }
      const action = this.newTools === "ask" ? "ask" : "withheld";
      this.#states.set(name, this.#stateOf(name, "added", fields, action));
      pending[name] = {
        digest,
        definition,
        change: "added",
        fields,
        seen: new Date().toISOString(),
      };
      this.#note(name, "added", fields, digest, action);
    }
    await this.#save(pins, pending, []);
  }

  /**
   * Writes new pins and pending changes, and drops the pending changes
   * resolved; resolves with the names of the tools another gate sharing
   * the pins pinned first, as it saw them (withheld here from now on).
   */
  async #save(
    pins: Record<string, Pin>,
    pending: Record<string, PendingPin>,
    resolved: readonly string[],
  ): Promise<Set<unknown>> {
    const lost = new Set<unknown>();
    if (
      Object.keys(pins).length === 0 && Object.keys(pending).length === 0 &&
      resolved.length === 0
    ) {
      return lost;
    }
    await this.#write((data) => {
      for (const name of resolved) delete data.pending[name];
      Object.assign(data.pending, pending);
      for (const [name, pin] of Object.entries(pins)) {
        const held = data.tools[name];
        // A tool is pinned once: one seen otherwise is a change of it.
        if (held !== undefined && held.digest !== pin.digest) {
          if (data.pending[name]?.digest !== pin.digest) {
            data.pending[name] = {
              ...pin,
              change: "changed",
              fields: changedFields(held.definition, pin.definition),
              seen: new Date().toISOString(),
            };
          }
          continue;
        }
        data.tools[name] = pin;
        delete data.pending[name];
      }
    });
    for (const [name, pin] of Object.entries(pins)) {
      const held = this.#data.tools[name];
      if (held === undefined || held.digest === pin.digest) continue;
      lost.add(name);
      const fields = changedFields(held.definition, pin.definition);
      this.#states.set(
        name,
        this.#stateOf(name, "changed", fields, "withheld"),
      );
      this.#note(name, "changed", fields, pin.digest, "withheld");
    }
    return lost;
  }

  /** Reads the file again when it changed, and what it accepts is let through. */
  async #reload(): Promise<void> {
    await this.#writes;
    let snapshot;
    try {
      snapshot = await this.#store.read();
    } catch (error) {
      this.#options.log(
        `${(error as Error).message} (keeping the pins read before)`,
      );
      return;
    }
    if (snapshot.text === this.#text) return;
    this.#data = snapshot.data;
    this.#text = snapshot.text;
    const { tools, pending } = this.#data;
    if (
      this.#store.shared && this.#draft?.size === 0 &&
      Object.keys({ ...tools, ...pending }).length > 0
    ) {
      // Another instance pinned the first list before this one saw it.
      this.#draft = undefined;
    }
    for (const [name, seen] of this.#seen) {
      if (this.#data.tools[name]?.digest === seen.digest) {
        this.#states.delete(name);
        this.#draft?.delete(name);
      }
    }
  }

  async #write(change: (data: PinData) => void): Promise<void> {
    const written = this.#writes.then(async () => {
      try {
        const snapshot = await this.#store.update(change);
        this.#data = snapshot.data;
        this.#text = snapshot.text;
      } catch (error) {
        this.#options.log(
          `cannot write the pins ${this.#store.name}: ${
            (error as Error).message
          }`,
        );
      }
    });
    this.#writes = written;
    await written;
  }

  /** Logs and audits a change seen for the first time. */
  #note(
    name: string,
    change: "changed" | "added",
    fields: readonly string[],
    digest: string,
    action: "withheld" | "ask" | "pinned",
  ): void {
    const what = change === "changed"
      ? `changed since it was pinned (${fields.join(", ")})`
      : "is new since the tools were pinned";
    const done = action === "pinned"
      ? "pinned (newTools: allow)"
      : action === "ask"
      ? `each call is asked until it is accepted (review: deno task gate pins review ${this.#store.name})`
      : `withheld until it is accepted (review: deno task gate pins review ${this.#store.name})`;
    this.#options.log(`the tool ${name} ${what}: ${done}`);
    this.#options.audit?.write({
      time: new Date().toISOString(),
      event: change === "changed" ? "tool-changed" : "tool-added",
      tool: name,
      fields,
      action,
      digest,
    });
  }

  /**
   * Shared pins: a change another instance saw (pending) of a tool this
   * one has no state for holds here too, until it is accepted.
   */
  #sharedState(name: string): PinState | undefined {
    const seen = this.#data.pending[name];
    if (!this.#store.shared || seen === undefined) return undefined;
    if (seen.change === "changed") {
      return this.#stateOf(name, "changed", seen.fields, "withheld");
    }
    if (this.newTools === "allow") return undefined;
    return this.#stateOf(
      name,
      "added",
      seen.fields,
      this.newTools === "ask" ? "ask" : "withheld",
    );
  }

  /** A call of a tool of the first list before that list has ended. */
  #draftState(name: string): PinState | undefined {
    const why =
      `The tool "${name}" is not pinned yet: the server's tool list has not ended, and the gate pins a whole list (newTools: ${this.newTools}).`;
    if (this.newTools === "allow") return undefined;
    if (this.newTools === "ask") return { kind: "ask", why };
    return {
      kind: "withheld",
      refusal: `The gate withholds the tool ${name}: ${why} Nothing was run.`,
    };
  }

  #stateOf(
    name: string,
    change: "changed" | "added",
    fields: readonly string[],
    action: "withheld" | "ask",
  ): PinState {
    const accept =
      `Review it with "deno task gate pins review ${this.#store.name}" and accept it with "deno task gate pins accept ${this.#store.name} ${name}@DIGEST" (the digest the review shows).`;
    if (action === "ask") {
      return {
        kind: "ask",
        why:
          `The tool "${name}" is new since the server's tools were pinned (newTools: ask). ${accept}`,
      };
    }
    const what = change === "changed"
      ? `changed since it was pinned (${fields.join(", ")})`
      : `is new since the server's tools were pinned (newTools: ${this.newTools})`;
    return {
      kind: "withheld",
      refusal:
        `The gate withholds the tool ${name}: it ${what}, and a changed tool is not run until the user accepts it. Nothing was run. ${accept}`,
    };
  }
}

/** The fields a new tool has. */
function fieldsOf(definition: ToolDefinition): string[] {
  return PINNED_FIELDS.filter((field) => definition[field] !== undefined);
}

/** An allowed verdict turned into an asked one: the tool is new since the pins. */
export function askedAsNew(verdict: Verdict, why: string): Verdict {
  if (verdict.decision !== "allow") return verdict;
  return {
    ...verdict,
    // A probed verdict's words are getters, which a spread leaves out.
    denied: verdict.denied,
    decision: "ask",
    rule: "newTools",
    question: `${why}\n${verdict.question}`,
    cannotAsk:
      `This call needs the user's approval, and this host cannot ask for it (it did not declare the elicitation capability): ${why} Nothing was run.`,
  };
}

/**
 * The pins file a policy file names (`pins: FILE`), resolved against the
 * policy file's folder; `undefined` when it names none.
 */
export async function pinsInPolicy(
  policyPath: string,
): Promise<string | undefined> {
  const format = formatForPath(policyPath);
  if (format === undefined) return undefined;
  const { pins } = parsePolicyText(await Deno.readTextFile(policyPath), format);
  return pins === undefined ? undefined : resolve(dirname(policyPath), pins);
}
