// The tools of one server: definitions checked once at registration (so a
// mistake is a TypeError or RangeError at start-up, not at the first call),
// and the tools/list answer computed once per change.

import {
  isStandardSchema,
  type JsonSchema,
  type StandardSchema,
  toJsonSchema,
} from "../schema.ts";
import { jsonType } from "../_util/json_type.ts";
import { EXPOSED_NAME } from "../_util/mount_names.ts";
import { checkIcons } from "./_icons.ts";
import { answersProbes } from "../patterns/_probe_mark.ts";
import { META_SUPPORTS_PERMISSION_PATTERNS } from "../patterns/probe_meta.ts";
import type { RegistrySlotOps } from "./_registration_handle.ts";
import type { Connection } from "./_connection.ts";
import type { RequestExtra } from "./_session_types.ts";
import type { CallToolResult } from "../result/result.ts";
import type { ListedTool, ToolDefinition } from "./tool.ts";
import { checkTaskOption, type TaskMode } from "./_task_checks.ts";

const EMPTY_INPUT: JsonSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  properties: {},
};

/** A tool as the call pipeline needs it. */
export interface RegisteredTool {
  def: ToolDefinition;
  listed: ListedTool;
  /** The input's Standard Schema (zod), when it has one; else the JSON Schema is checked. */
  schema: StandardSchema | undefined;
  /** The output's Standard Schema, for checking `structuredContent`. */
  output: StandardSchema | undefined;
  /** How calls run as tasks; undefined when they never do. */
  task: TaskMode | undefined;
  /**
   * The entry a session-era (2025) client sees: without `execution`, since
   * tasks are a 2026-07-28 extension and 2025-11-25 reads `taskSupport` as
   * its own core tasks, which this server does not speak.
   */
  sessionListed: ListedTool;
  /**
   * Set for a tool of a mounted server: hands the call, after this server's
   * layers, to that server's own pipeline.
   */
  delegate?: (
    connection: Connection,
    params: Record<string, unknown>,
    extra: RequestExtra,
  ) => CallToolResult | Promise<CallToolResult>;
}

/**
 * One registration: its current definition (replaced whole by an update, so
 * a call in flight keeps the tool it started with), its place in the list,
 * and whether it is listed.
 */
class ToolSlot implements RegistrySlotOps<ToolDefinition> {
  current: RegisteredTool;
  readonly seq: number;
  enabled = true;
  removed = false;
  #registry: ToolRegistry;

  constructor(registry: ToolRegistry, current: RegisteredTool, seq: number) {
    this.#registry = registry;
    this.current = current;
    this.seq = seq;
  }

  get label(): string {
    return `tool ${JSON.stringify(this.current.def.name)}`;
  }

  setEnabled(enabled: boolean): boolean {
    if (this.enabled === enabled) return false;
    this.enabled = enabled;
    this.#registry.changed();
    return true;
  }

  update(patch: Partial<ToolDefinition>): void {
    this.#registry.replace(this, { ...this.current.def, ...patch });
  }

  remove(): boolean {
    if (this.removed) return false;
    this.#registry.delete(this);
    return true;
  }
}

/** The registered tools, by name. */
export class ToolRegistry {
  #tools = new Map<string, ToolSlot>();
  #seq = 0;
  #listed: ListedTool[] | undefined;
  #sessionListed: ListedTool[] | undefined;
  /**
   * Checks a new name against the names beside this registry (mounted
   * servers, the servers this one is mounted in); throws on a collision.
   */
  checkName: ((name: string, action: string) => void) | undefined;

  /** Checks and adds a definition; throws on a mistake. */
  add(def: ToolDefinition): RegistrySlotOps<ToolDefinition> {
    const registered = prepare(def);
    const name = registered.def.name;
    if (this.#tools.has(name)) {
      throw new TypeError(`Cannot register tool: duplicate name: ${name}`);
    }
    this.checkName?.(name, `Cannot register tool ${name}`);
    const slot = new ToolSlot(this, registered, this.#seq++);
    this.#tools.set(name, slot);
    this.changed();
    return slot;
  }

  /** The enabled tool called `name`, if there is one. */
  get(name: string): RegisteredTool | undefined {
    const slot = this.#tools.get(name);
    return slot?.enabled ? slot.current : undefined;
  }

  /**
   * The enabled tools as `tools/list` shows them, in registration order:
   * to a 2026-07-28 request (`tasks`), or without `execution` to a session.
   */
  list(tasks = true): ListedTool[] {
    if (tasks) {
      return this.#listed ??= this.entries(true).map((entry) => entry.item);
    }
    return this.#sessionListed ??= this.entries(false).map((e) => e.item);
  }

  /** The enabled tools with their places, for paging (`tasks` as for `list`). */
  entries(tasks = true): { seq: number; item: ListedTool }[] {
    return [...this.#tools.values()]
      .filter((slot) => slot.enabled)
      .sort((a, b) => a.seq - b.seq)
      .map((slot) => ({
        seq: slot.seq,
        item: tasks ? slot.current.listed : slot.current.sessionListed,
      }));
  }

  /** The names of the enabled tools. */
  names(): string[] {
    return [...this.#tools.values()]
      .filter((slot) => slot.enabled)
      .map((slot) => slot.current.def.name);
  }

  /** Whether a tool is registered as `name`, enabled or not. */
  hasName(name: string): boolean {
    return this.#tools.has(name);
  }

  /** The names of every tool, enabled or not (a disabled one may come back). */
  allNames(): IterableIterator<string> {
    return this.#tools.keys();
  }

  /** Forgets the cached lists (an entry was added, changed, enabled or disabled). */
  changed(): void {
    this.#listed = undefined;
    this.#sessionListed = undefined;
  }

  /** Replaces a slot's definition with `def`, checked whole first. */
  replace(slot: ToolSlot, def: ToolDefinition): void {
    const registered = prepare(def, slot.current.def.name);
    const from = slot.current.def.name;
    const to = registered.def.name;
    if (to !== from && this.#tools.has(to)) {
      throw new TypeError(
        `Cannot update tool ${JSON.stringify(from)}: duplicate name: ${to}`,
      );
    }
    if (to !== from) {
      this.checkName?.(to, `Cannot update tool ${JSON.stringify(from)}`);
    }
    slot.current = registered;
    if (to !== from) {
      this.#tools.delete(from);
      this.#tools.set(to, slot);
    }
    this.changed();
  }

  /** Removes a slot. */
  delete(slot: ToolSlot): void {
    slot.removed = true;
    slot.enabled = false;
    this.#tools.delete(slot.current.def.name);
    this.changed();
  }
}

/**
 * Checks a definition and converts its schemas; throws on a mistake.
 * `updating` names the tool a patch was for, so its errors say so.
 */
function prepare(def: ToolDefinition, updating?: string): RegisteredTool {
  const action = updating === undefined
    ? "Cannot register tool"
    : `Cannot update tool ${JSON.stringify(updating)}`;
  if (typeof def !== "object" || def === null) {
    throw new TypeError(
      `${action}: expected a definition object, got ${jsonType(def)}`,
    );
  }
  const name = def.name;
  if (typeof name !== "string" || !EXPOSED_NAME.test(name)) {
    throw new TypeError(
      `${action}: invalid name ${
        JSON.stringify(name)
      }: expected 1-128 characters of A-Z a-z 0-9 . _ -`,
    );
  }
  const named = updating === undefined ? `${action} ${name}` : action;
  if (typeof def.description !== "string") {
    throw new TypeError(`${named}: expected a description string`);
  }
  if (typeof def.handler !== "function") {
    throw new TypeError(`${named}: expected a handler function`);
  }
  if (def.timeoutMs !== undefined && !(def.timeoutMs > 0)) {
    throw new RangeError(
      `${named}: timeoutMs must be > 0, got ${def.timeoutMs}`,
    );
  }
  const probe = answersProbes(def.handler);
  if (def._meta?.[META_SUPPORTS_PERMISSION_PATTERNS] === true && !probe) {
    // A probe must never act: only handlers made by wrapProbe guarantee that.
    throw new TypeError(
      `${named}: _meta claims probe support but the handler does not answer probes (use registerPatternTool or wrapProbe)`,
    );
  }
  const icons = checkIcons(def.icons, named);
  const task = checkTaskOption(def.task, named);
  let listed = listing(def, probe, named);
  if (icons !== undefined) listed.icons = icons;
  const sessionListed = listed;
  if (task !== undefined) {
    listed = { ...listed, execution: { taskSupport: task.support } };
  }
  return {
    def,
    listed,
    sessionListed,
    schema: isStandardSchema(def.input) ? def.input : undefined,
    output: isStandardSchema(def.output) ? def.output : undefined,
    task,
  };
}

/** The `tools/list` entry of a definition; its schemas converted once, here. */
function listing(
  def: ToolDefinition,
  probe: boolean,
  action: string,
): ListedTool {
  let inputSchema: JsonSchema;
  let outputSchema: JsonSchema | undefined;
  try {
    inputSchema = def.input === undefined
      ? structuredClone(EMPTY_INPUT)
      : toJsonSchema(def.input);
    outputSchema = def.output === undefined
      ? undefined
      : toJsonSchema(def.output, { io: "output" });
  } catch (cause) {
    throw new TypeError(`${action}: ${(cause as Error).message}`, {
      cause,
    });
  }
  const listed: ListedTool = {
    name: def.name,
    description: def.description,
    inputSchema,
  };
  if (def.title !== undefined) listed.title = def.title;
  if (outputSchema !== undefined) listed.outputSchema = outputSchema;
  if (def.annotations !== undefined) {
    listed.annotations = { ...def.annotations };
  }
  if (def._meta !== undefined || probe) {
    listed._meta = {
      ...def._meta,
      ...(probe ? { [META_SUPPORTS_PERMISSION_PATTERNS]: true } : {}),
    };
  }
  return listed;
}
