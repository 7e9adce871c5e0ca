/**
 * Prompts: what `prompts/list` and `prompts/get` answer, and argument
 * completion for prompts. The server wires these to the protocol.
 *
 * @module
 */

import type { Completer, RequestContext } from "./resources.ts";
import { ProtocolError, RPC_ERROR } from "../jsonrpc/errors.ts";
import type { Content } from "../result/result.ts";
import type { RegistrySlotOps } from "./_registration_handle.ts";
import { checkIcons } from "./_icons.ts";
import type { Icon } from "./icon.ts";

/**
 * One argument of a prompt; MCP prompt arguments are strings.
 *
 * @example A required argument whose values the client can complete
 * ```ts
 * import type { PromptArgument } from "@forge/toolkit/server";
 *
 * const LANGUAGES = ["go", "rust", "typescript"];
 * const language: PromptArgument = {
 *   name: "language",
 *   description: "The language of the code under review",
 *   required: true,
 *   complete: (typed) => LANGUAGES.filter((l) => l.startsWith(typed)),
 * };
 * ```
 */
export interface PromptArgument {
  /** The argument's name. */
  name: string;
  /** What it means. */
  description?: string;
  /**
   * Whether `prompts/get` must carry it.
   *
   * @default {false}
   */
  required?: boolean;
  /** Suggests values from what was typed so far. */
  complete?: Completer;
}

/**
 * One message of a rendered prompt.
 *
 * @example Seed a conversation with an example exchange
 * ```ts
 * import type { PromptMessage } from "@forge/toolkit/server";
 *
 * const messages: PromptMessage[] = [
 *   { role: "user", content: { type: "text", text: "Summarise: The build failed on step 3." } },
 *   { role: "assistant", content: { type: "text", text: "Step 3 of the build failed." } },
 *   { role: "user", content: { type: "text", text: "Summarise: Lint reports 2 warnings." } },
 * ];
 * ```
 */
export interface PromptMessage {
  /** Who speaks. */
  role: "user" | "assistant";
  /** What is said. */
  content: Content;
}

/**
 * What `prompts/get` answers.
 *
 * @example Render a prompt in a function of its own
 * ```ts
 * import type { PromptResult } from "@forge/toolkit/server";
 *
 * function commitMessage(diff: string): PromptResult {
 *   return {
 *     description: "Write a commit message for a diff",
 *     messages: [{ role: "user", content: { type: "text", text: `Commit message for:\n${diff}` } }],
 *   };
 * }
 * ```
 */
export interface PromptResult {
  /** A description of the rendered prompt. */
  description?: string;
  /** The messages. */
  messages: PromptMessage[];
  /** Extra metadata. */
  _meta?: Record<string, unknown>;
}

/**
 * A prompt, as `server.prompt()` takes it.
 *
 * @example Define a prompt apart from the server
 * ```ts
 * import { createServer } from "@forge/toolkit";
 * import { type PromptDefinition } from "@forge/toolkit/server";
 *
 * const explain: PromptDefinition = {
 *   name: "explain",
 *   description: "Explain a piece of code to a newcomer",
 *   arguments: [{ name: "code", required: true }],
 *   handler: ({ code }) => ({
 *     messages: [{ role: "user", content: { type: "text", text: `Explain simply:\n${code}` } }],
 *   }),
 * };
 * createServer({ name: "tutor", version: "1" }).prompt(explain);
 * ```
 */
export interface PromptDefinition {
  /** The prompt's name, unique in the server. */
  name: string;
  /** A human-readable title. */
  title?: string;
  /** What the prompt is for. */
  description?: string;
  /** Its arguments. */
  arguments?: PromptArgument[];
  /** Icons a client may show; each `src` an `https:` URL or a `data:` URI. */
  icons?: Icon[];
  /** Renders the prompt from its arguments. */
  handler: (
    args: Record<string, string>,
    ctx: RequestContext,
  ) => PromptResult | Promise<PromptResult>;
}

/** One registration of a prompt. */
class PromptSlot implements RegistrySlotOps<PromptDefinition> {
  def: PromptDefinition;
  readonly seq: number;
  enabled = true;
  removed = false;
  readonly #registry: PromptRegistry;

  constructor(registry: PromptRegistry, def: PromptDefinition, seq: number) {
    this.#registry = registry;
    this.def = def;
    this.seq = seq;
  }

  get label(): string {
    return `prompt ${JSON.stringify(this.def.name)}`;
  }

  setEnabled(enabled: boolean): boolean {
    if (this.enabled === enabled) return false;
    this.enabled = enabled;
    return true;
  }

  update(patch: Partial<PromptDefinition>): void {
    this.#registry.replace(this, { ...this.def, ...patch });
  }

  remove(): boolean {
    if (this.removed) return false;
    this.#registry.delete(this);
    return true;
  }
}

/** The prompts of one server. */
export class PromptRegistry {
  #prompts = new Map<string, PromptSlot>();
  #seq = 0;
  /**
   * Checks a new name against the names beside this registry (mounted
   * servers, the servers this one is mounted in); throws on a collision.
   */
  checkName: ((name: string, action: string) => void) | undefined;

  /** How many prompts are registered (enabled or not). */
  get size(): number {
    return this.#prompts.size;
  }

  /** Whether any argument has a completer. */
  get completes(): boolean {
    return [...this.#prompts.values()].some((p) =>
      p.def.arguments?.some((a) => a.complete !== undefined)
    );
  }

  /** Adds a prompt; a duplicate or malformed one is a `TypeError`. */
  add(def: PromptDefinition): RegistrySlotOps<PromptDefinition> {
    checkPrompt(def, "Cannot register prompt");
    if (this.#prompts.has(def.name)) {
      throw new TypeError(
        `Cannot register prompt: duplicate name: ${def.name}`,
      );
    }
    this.checkName?.(def.name, `Cannot register prompt ${def.name}`);
    const slot = new PromptSlot(this, def, this.#seq++);
    this.#prompts.set(def.name, slot);
    return slot;
  }

  /** Replaces a slot's definition with `def`, checked whole first. */
  replace(slot: PromptSlot, def: PromptDefinition): void {
    const action = `Cannot update ${slot.label}`;
    checkPrompt(def, action);
    const from = slot.def.name;
    if (def.name !== from && this.#prompts.has(def.name)) {
      throw new TypeError(`${action}: duplicate name: ${def.name}`);
    }
    if (def.name !== from) this.checkName?.(def.name, action);
    slot.def = def;
    if (def.name !== from) {
      this.#prompts.delete(from);
      this.#prompts.set(def.name, slot);
    }
  }

  /** Removes a slot. */
  delete(slot: PromptSlot): void {
    slot.removed = true;
    slot.enabled = false;
    this.#prompts.delete(slot.def.name);
  }

  /** Whether a prompt is registered as `name`, enabled or not. */
  hasName(name: string): boolean {
    return this.#prompts.has(name);
  }

  /** The names of every prompt, enabled or not. */
  allNames(): IterableIterator<string> {
    return this.#prompts.keys();
  }

  /** Whether `name` is an enabled prompt. */
  has(name: string): boolean {
    return this.#enabled(name) !== undefined;
  }

  /** `prompts/list`. */
  list(): Record<string, unknown>[] {
    return this.entries().map((entry) => entry.item);
  }

  /** `prompts/list` with each prompt's place, for paging. */
  entries(): { seq: number; item: Record<string, unknown> }[] {
    return [...this.#prompts.values()]
      .filter((slot) => slot.enabled)
      .sort((a, b) => a.seq - b.seq)
      .map(({ seq, def }) => ({ seq, item: listedPrompt(def) }));
  }

  #enabled(name: string): PromptDefinition | undefined {
    const slot = this.#prompts.get(name);
    return slot?.enabled ? slot.def : undefined;
  }

  /** `prompts/get`: checks the arguments, then renders. */
  async get(
    name: string,
    args: Record<string, unknown> | undefined,
    ctx: RequestContext,
  ): Promise<PromptResult> {
    const prompt = this.#enabled(name);
    if (prompt === undefined) {
      throw new ProtocolError(
        RPC_ERROR.INVALID_PARAMS,
        `Unknown prompt: ${JSON.stringify(name)}`,
      );
    }
    const given = args ?? {};
    const problems: string[] = [];
    const declared = prompt.arguments ?? [];
    for (const arg of declared) {
      const value = given[arg.name];
      if (value === undefined) {
        if (arg.required) problems.push(`${arg.name}: required`);
      } else if (typeof value !== "string") {
        problems.push(`${arg.name}: expected string, got ${typeof value}`);
      }
    }
    for (const key of Object.keys(given)) {
      if (!declared.some((a) => a.name === key)) {
        problems.push(`${key}: unknown argument`);
      }
    }
    if (problems.length > 0) {
      throw new ProtocolError(
        RPC_ERROR.INVALID_PARAMS,
        `Invalid arguments for prompt ${JSON.stringify(name)}: ${
          problems.join("; ")
        }`,
      );
    }
    return await prompt.handler(given as Record<string, string>, ctx);
  }

  /** The completer of a prompt argument; `null` when the prompt is unknown. */
  completer(name: string, argument: string): Completer | undefined | null {
    const prompt = this.#enabled(name);
    if (prompt === undefined) return null;
    return prompt.arguments?.find((a) => a.name === argument)?.complete;
  }
}

function listedPrompt(def: PromptDefinition): Record<string, unknown> {
  const { handler: _, arguments: args, ...prompt } = def;
  return {
    ...prompt,
    ...(args === undefined ? {} : {
      arguments: args.map(({ complete: _c, ...a }) => ({
        ...a,
        required: a.required === true,
      })),
    }),
  };
}

function checkPrompt(def: PromptDefinition, action: string): void {
  if (typeof def?.name !== "string" || typeof def.handler !== "function") {
    throw new TypeError(`${action}: expected { name, handler }`);
  }
  if (def.arguments !== undefined && !Array.isArray(def.arguments)) {
    throw new TypeError(
      `${action}: arguments: expected an array of { name }, got ${typeof def
        .arguments}`,
    );
  }
  checkIcons(def.icons, action);
}
