/**
 * Resources and resource templates: what `resources/list`,
 * `resources/templates/list`, `resources/read` and argument completion for
 * templates answer. The server wires these to the protocol.
 *
 * @module
 */

import type { ContentAnnotations, ResourceContents } from "../result/result.ts";
import { ProtocolError, RPC_ERROR } from "../jsonrpc/errors.ts";
import type { RegistrySlotOps } from "./_registration_handle.ts";
import { UriTemplate } from "./_uri_template.ts";
import { checkIcons } from "./_icons.ts";
import type { Icon } from "./icon.ts";
import type { ElicitationParams, ElicitationResult } from "./context.ts";

/**
 * What a resource or prompt callback knows about its request.
 *
 * @example Stop reading a large file when the client cancels
 * ```ts
 * import { createServer } from "@forge/toolkit";
 * import { type RequestContext } from "@forge/toolkit/server";
 *
 * async function readLog(uri: URL, ctx: RequestContext) {
 *   const text = await Deno.readTextFile("/var/log/app.log", { signal: ctx.signal });
 *   return { uri: uri.href, mimeType: "text/plain", text };
 * }
 * const server = createServer({ name: "logs", version: "1" });
 * server.resource({ uri: "logs://app", name: "app-log", read: readLog });
 * ```
 */
export interface RequestContext {
  /** Aborted when the client cancels the request. */
  readonly signal: AbortSignal;
  /** The transport session, on transports that have sessions. */
  readonly sessionId: string | undefined;
  /**
   * Asks the user a question through the client (`elicitation/create` in
   * form mode); over a 2026-07-28 request the question travels in an
   * input-required result and the callback runs again with the answer.
   */
  elicit(params: ElicitationParams): Promise<ElicitationResult>;
}

/**
 * A resource as `resources/list` shows it.
 *
 * @example List the concrete resources of a template
 * ```ts
 * import type { ListedResource } from "@forge/toolkit/server";
 *
 * async function listNotes(): Promise<ListedResource[]> {
 *   const notes: ListedResource[] = [];
 *   for await (const entry of Deno.readDir("./notes")) {
 *     notes.push({ uri: `notes://${entry.name}`, name: entry.name, mimeType: "text/markdown" });
 *   }
 *   return notes;
 * }
 * ```
 */
export interface ListedResource {
  /** The resource's URI. */
  uri: string;
  /** A programmatic name. */
  name: string;
  /** A human-readable title. */
  title?: string;
  /** What it is. */
  description?: string;
  /** Its MIME type. */
  mimeType?: string;
  /** Its size in bytes, if known. */
  size?: number;
  /** Hints for the client. */
  annotations?: ContentAnnotations;
  /** Icons a client may show; each `src` an `https:` URL or a `data:` URI. */
  icons?: Icon[];
  /** Extra metadata. */
  _meta?: Record<string, unknown>;
}

/**
 * What reading a resource returns: one or more contents.
 *
 * @example Answer one read with several contents
 * ```ts
 * import type { ReadResult } from "@forge/toolkit/server";
 *
 * function readBundle(uri: URL): ReadResult {
 *   return [
 *     { uri: `${uri.href}/manifest.json`, mimeType: "application/json", text: '{"files":1}' },
 *     { uri: `${uri.href}/logo.png`, mimeType: "image/png", blob: "iVBORw0KGgo=" },
 *   ];
 * }
 * ```
 */
export type ReadResult = ResourceContents | ResourceContents[];

/**
 * A fixed resource, as `server.resource()` takes it.
 *
 * @example Expose the server's settings as a resource
 * ```ts
 * import { createServer } from "@forge/toolkit";
 * import { type ResourceDefinition } from "@forge/toolkit/server";
 *
 * const settings: ResourceDefinition = {
 *   uri: "config://settings",
 *   name: "settings",
 *   description: "The settings the server runs with",
 *   mimeType: "application/json",
 *   read: (uri) => ({ uri: uri.href, text: JSON.stringify({ maxResults: 20 }) }),
 * };
 * createServer({ name: "search", version: "1" }).resource(settings);
 * ```
 */
export interface ResourceDefinition extends ListedResource {
  /** Reads the resource. */
  read: (uri: URL, ctx: RequestContext) => ReadResult | Promise<ReadResult>;
}

/**
 * Completes one template variable or prompt argument from what was typed so far.
 *
 * @example Complete a branch name within the repository already chosen
 * ```ts
 * import type { Completer } from "@forge/toolkit/server";
 *
 * const BRANCHES: Record<string, string[]> = { api: ["main", "next"], web: ["main", "redesign"] };
 * const branch: Completer = (typed, { arguments: chosen }) =>
 *   (BRANCHES[chosen.repo] ?? []).filter((name) => name.startsWith(typed));
 * branch("n", { arguments: { repo: "api" } }); // ["next"]
 * ```
 */
export type Completer = (
  value: string,
  context: { arguments: Record<string, string> },
) => string[] | Promise<string[]>;

/**
 * A family of resources named by an RFC 6570 URI template.
 *
 * @example One resource per user, listed and completed
 * ```ts
 * import { createServer } from "@forge/toolkit";
 * import { type ResourceTemplateDefinition } from "@forge/toolkit/server";
 *
 * const USERS = ["ada", "grace"];
 * const profile: ResourceTemplateDefinition = {
 *   uriTemplate: "users://{id}/profile",
 *   name: "profile",
 *   list: () => USERS.map((id) => ({ uri: `users://${id}/profile`, name: `${id}-profile` })),
 *   complete: { id: (typed) => USERS.filter((id) => id.startsWith(typed)) },
 *   read: (uri, { id }) => ({ uri: uri.href, text: JSON.stringify({ id }) }),
 * };
 * createServer({ name: "users", version: "1" }).resourceTemplate(profile);
 * ```
 */
export interface ResourceTemplateDefinition {
  /** The template, such as `file:///notes/{name}`. */
  uriTemplate: string;
  /** A programmatic name. */
  name: string;
  /** A human-readable title. */
  title?: string;
  /** What the resources are. */
  description?: string;
  /** Their MIME type. */
  mimeType?: string;
  /** Hints for the client. */
  annotations?: ContentAnnotations;
  /** Icons a client may show; each `src` an `https:` URL or a `data:` URI. */
  icons?: Icon[];
  /** Extra metadata. */
  _meta?: Record<string, unknown>;
  /** Lists the concrete resources, shown in `resources/list` too. */
  list?: (ctx: RequestContext) => ListedResource[] | Promise<ListedResource[]>;
  /** Completers for the template's variables, by variable name. */
  complete?: Record<string, Completer>;
  /** Reads one resource; `variables` are the values the URI matched. */
  read: (
    uri: URL,
    variables: Record<string, string | string[]>,
    ctx: RequestContext,
  ) => ReadResult | Promise<ReadResult>;
}

/** Where the templates' lists start in `resources/list` order: past any fixed resource's place. */
const TEMPLATE_PLACE = 2 ** 40;

/** One registration of a fixed resource or a template. */
class Slot<D> implements RegistrySlotOps<D> {
  def: D;
  readonly seq: number;
  enabled = true;
  removed = false;
  /** The template's matcher (templates only). */
  matcher: UriTemplate | undefined;
  readonly #kind: "resource" | "resource template";
  readonly #registry: ResourceRegistry;

  constructor(
    registry: ResourceRegistry,
    kind: "resource" | "resource template",
    def: D,
    seq: number,
  ) {
    this.#registry = registry;
    this.#kind = kind;
    this.def = def;
    this.seq = seq;
  }

  /** The URI of a resource, the URI template of a template. */
  get key(): string {
    const def = this.def as Partial<
      ResourceDefinition & ResourceTemplateDefinition
    >;
    return (this.#kind === "resource" ? def.uri : def.uriTemplate) as string;
  }

  get label(): string {
    return `${this.#kind} ${JSON.stringify(this.key)}`;
  }

  setEnabled(enabled: boolean): boolean {
    if (this.enabled === enabled) return false;
    this.enabled = enabled;
    return true;
  }

  update(patch: Partial<D>): void {
    this.#registry.replace(this, { ...this.def, ...patch });
  }

  remove(): boolean {
    if (this.removed) return false;
    this.#registry.delete(this);
    return true;
  }
}

type ResourceSlot = Slot<ResourceDefinition>;
type TemplateSlot = Slot<ResourceTemplateDefinition>;

/** A listed item and where it sits: its registration's place, then its index in that registration's list. */
export interface Placed<T> {
  /** The registration's place: fixed resources first, then templates, each in registration order. */
  seq: number;
  /** Lists the registration's items. */
  items: () => T[] | Promise<T[]>;
}

/** The resources of one server. */
export class ResourceRegistry {
  #resources = new Map<string, ResourceSlot>();
  #templates = new Map<string, TemplateSlot>();
  #seq = 0;

  /** How many resources and templates are registered (enabled or not). */
  get size(): number {
    return this.#resources.size + this.#templates.size;
  }

  /** Whether any template has completers. */
  get completes(): boolean {
    return [...this.#templates.values()].some((t) =>
      t.def.complete !== undefined
    );
  }

  /** Adds a fixed resource; a bad or duplicate URI is a `TypeError`. */
  add(def: ResourceDefinition): RegistrySlotOps<ResourceDefinition> {
    checkResource(def, "Cannot register resource");
    if (this.#resources.has(def.uri)) {
      throw new TypeError(
        `Cannot register resource: duplicate URI: ${def.uri}`,
      );
    }
    const slot: ResourceSlot = new Slot(
      this,
      "resource",
      def,
      this.#seq++,
    );
    this.#resources.set(def.uri, slot);
    return slot;
  }

  /** Adds a template; a duplicate template or name is a `TypeError`. */
  addTemplate(
    def: ResourceTemplateDefinition,
  ): RegistrySlotOps<ResourceTemplateDefinition> {
    const matcher = checkTemplate(def, "Cannot register resource template");
    if (this.#templates.has(def.uriTemplate)) {
      throw new TypeError(
        `Cannot register resource template: duplicate URI template: ${def.uriTemplate}`,
      );
    }
    if ([...this.#templates.values()].some((t) => t.def.name === def.name)) {
      throw new TypeError(
        `Cannot register resource template: duplicate name: ${def.name}`,
      );
    }
    const slot: TemplateSlot = new Slot(
      this,
      "resource template",
      def,
      this.#seq++,
    );
    slot.matcher = matcher;
    this.#templates.set(def.uriTemplate, slot);
    return slot;
  }

  /** Replaces a slot's definition with `def`, checked whole first. */
  replace<D>(slot: Slot<D>, def: D): void {
    const action = `Cannot update ${slot.label}`;
    const from = slot.key;
    if (this.#resources.get(from) === (slot as unknown)) {
      const resource = def as ResourceDefinition;
      checkResource(resource, action);
      if (resource.uri !== from && this.#resources.has(resource.uri)) {
        throw new TypeError(`${action}: duplicate URI: ${resource.uri}`);
      }
      slot.def = def;
      this.#rekey(this.#resources, from, slot as unknown as ResourceSlot);
      return;
    }
    const template = def as ResourceTemplateDefinition;
    const matcher = checkTemplate(template, action);
    if (
      template.uriTemplate !== from && this.#templates.has(template.uriTemplate)
    ) {
      throw new TypeError(
        `${action}: duplicate URI template: ${template.uriTemplate}`,
      );
    }
    if (
      [...this.#templates.values()].some((t) =>
        t !== (slot as unknown) && t.def.name === template.name
      )
    ) {
      throw new TypeError(`${action}: duplicate name: ${template.name}`);
    }
    slot.def = def;
    slot.matcher = matcher;
    this.#rekey(this.#templates, from, slot as unknown as TemplateSlot);
  }

  /** Removes a slot. */
  delete<D>(slot: Slot<D>): void {
    slot.removed = true;
    slot.enabled = false;
    const key = slot.key;
    if (this.#resources.get(key) === (slot as unknown)) {
      this.#resources.delete(key);
    } else this.#templates.delete(key);
  }

  #rekey<D>(map: Map<string, Slot<D>>, from: string, slot: Slot<D>): void {
    if (slot.key === from) return;
    map.delete(from);
    map.set(slot.key, slot);
  }

  /** `resources/list`: the fixed resources, then those the templates list. */
  async list(ctx: RequestContext): Promise<ListedResource[]> {
    const listed: ListedResource[] = [];
    for (const { items } of this.placed(ctx)) listed.push(...await items());
    return listed;
  }

  /** The registrations `resources/list` shows, in order, each listing lazily. */
  placed(ctx: RequestContext): Placed<ListedResource>[] {
    const placed: Placed<ListedResource>[] = enabled(this.#resources).map((
      slot,
    ) => ({ seq: slot.seq, items: () => [listedResource(slot.def)] }));
    for (const slot of enabled(this.#templates)) {
      const list = slot.def.list;
      if (list !== undefined) {
        // Templates after every fixed resource, whenever each was registered.
        placed.push({ seq: TEMPLATE_PLACE + slot.seq, items: () => list(ctx) });
      }
    }
    return placed;
  }

  /** `resources/templates/list`, with each template's place. */
  templateEntries(): { seq: number; item: Record<string, unknown> }[] {
    return enabled(this.#templates).map(({ seq, def }) => {
      const { read: _r, list: _l, complete: _c, ...listed } = def;
      return { seq, item: listed };
    });
  }

  /** `resources/templates/list`. */
  templates(): Record<string, unknown>[] {
    return this.templateEntries().map((entry) => entry.item);
  }

  /** `resources/read`: a fixed resource first, else the first template that matches. */
  async read(uri: string, ctx: RequestContext): Promise<ResourceContents[]> {
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      throw new ProtocolError(
        RPC_ERROR.INVALID_PARAMS,
        `Invalid resource URI: ${JSON.stringify(uri)}`,
      );
    }
    const fixed = this.#resources.get(uri);
    if (fixed?.enabled) return contents(await fixed.def.read(url, ctx), uri);
    for (const { def, matcher } of enabled(this.#templates)) {
      const variables = matcher!.match(uri);
      if (variables !== null) {
        return contents(await def.read(url, variables, ctx), uri);
      }
    }
    throw new ProtocolError(
      RPC_ERROR.RESOURCE_NOT_FOUND,
      `Resource not found: ${uri}`,
    );
  }

  /** Whether `uri` names a resource this registry can read. */
  has(uri: string): boolean {
    return this.#resources.get(uri)?.enabled === true ||
      enabled(this.#templates).some(({ matcher }) =>
        matcher!.match(uri) !== null
      );
  }

  /** Completion for a template variable; `null` when the template is unknown. */
  completer(
    uriTemplate: string,
    variable: string,
  ): Completer | undefined | null {
    const template = this.#templates.get(uriTemplate);
    if (template === undefined || !template.enabled) return null;
    return template.def.complete?.[variable];
  }
}

/** The enabled slots of a map, in registration order. */
function enabled<D>(map: Map<string, Slot<D>>): Slot<D>[] {
  return [...map.values()].filter((s) => s.enabled).sort((a, b) =>
    a.seq - b.seq
  );
}

function listedResource(def: ResourceDefinition): ListedResource {
  const { read: _, ...listed } = def;
  return listed;
}

function checkResource(def: ResourceDefinition, action: string): void {
  if (typeof def?.read !== "function" || typeof def.name !== "string") {
    throw new TypeError(`${action}: expected { uri, name, read }`);
  }
  if (typeof def.uri !== "string" || !URL.canParse(def.uri)) {
    throw new TypeError(`${action}: invalid URI: ${JSON.stringify(def.uri)}`);
  }
  checkIcons(def.icons, action);
}

function checkTemplate(
  def: ResourceTemplateDefinition,
  action: string,
): UriTemplate {
  if (
    typeof def?.read !== "function" || typeof def.uriTemplate !== "string" ||
    typeof def.name !== "string"
  ) {
    throw new TypeError(`${action}: expected { uriTemplate, name, read }`);
  }
  checkIcons(def.icons, action);
  try {
    return new UriTemplate(def.uriTemplate);
  } catch (cause) {
    throw new TypeError(
      `${action}: invalid URI template ${JSON.stringify(def.uriTemplate)}: ${
        (cause as Error).message
      }`,
    );
  }
}

function contents(result: ReadResult, uri: string): ResourceContents[] {
  const list = Array.isArray(result) ? result : [result];
  for (const item of list) {
    if (
      typeof item?.uri !== "string" || (!("text" in item) && !("blob" in item))
    ) {
      throw new Error(
        `Resource ${uri} returned invalid contents: expected { uri, text } or { uri, blob }`,
      );
    }
  }
  return list;
}
