/**
 * Resources and resource templates: what `resources/list`,
 * `resources/templates/list`, `resources/read` and argument completion for
 * templates answer. The server wires these to the protocol.
 *
 * @module
 */

import type { ContentAnnotations, ResourceContents } from "../result/result.ts";
import { ProtocolError, RPC_ERROR } from "../jsonrpc/errors.ts";
import { UriTemplate } from "./_uri_template.ts";

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
 * import { createServer, type ResourceDefinition } from "@forge/toolkit";
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
 * import { createServer, type ResourceTemplateDefinition } from "@forge/toolkit";
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

interface Template {
  def: ResourceTemplateDefinition;
  matcher: UriTemplate;
}

/** The resources of one server. */
export class ResourceRegistry {
  #resources = new Map<string, ResourceDefinition>();
  #templates = new Map<string, Template>();

  /** Whether any resource or template is registered. */
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
  add(def: ResourceDefinition): void {
    if (typeof def?.read !== "function" || typeof def.name !== "string") {
      throw new TypeError(
        "Cannot register resource: expected { uri, name, read }",
      );
    }
    if (!URL.canParse(def.uri)) {
      throw new TypeError(
        `Cannot register resource: invalid URI: ${JSON.stringify(def.uri)}`,
      );
    }
    if (this.#resources.has(def.uri)) {
      throw new TypeError(
        `Cannot register resource: duplicate URI: ${def.uri}`,
      );
    }
    this.#resources.set(def.uri, def);
  }

  /** Adds a template; a duplicate template or name is a `TypeError`. */
  addTemplate(def: ResourceTemplateDefinition): void {
    if (
      typeof def?.read !== "function" || typeof def.uriTemplate !== "string"
    ) {
      throw new TypeError(
        "Cannot register resource template: expected { uriTemplate, name, read }",
      );
    }
    if ([...this.#templates.values()].some((t) => t.def.name === def.name)) {
      throw new TypeError(
        `Cannot register resource template: duplicate name: ${def.name}`,
      );
    }
    let matcher: UriTemplate;
    try {
      matcher = new UriTemplate(def.uriTemplate);
    } catch (cause) {
      throw new TypeError(
        `Cannot register resource template: invalid URI template ${
          JSON.stringify(def.uriTemplate)
        }: ${(cause as Error).message}`,
      );
    }
    this.#templates.set(def.uriTemplate, { def, matcher });
  }

  /** `resources/list`: the fixed resources, then those the templates list. */
  async list(ctx: RequestContext): Promise<ListedResource[]> {
    const listed: ListedResource[] = [...this.#resources.values()].map((
      { read: _, ...r },
    ) => r);
    for (const { def } of this.#templates.values()) {
      if (def.list !== undefined) listed.push(...await def.list(ctx));
    }
    return listed;
  }

  /** `resources/templates/list`. */
  templates(): Record<string, unknown>[] {
    return [...this.#templates.values()].map(({ def }) => {
      const { read: _r, list: _l, complete: _c, ...listed } = def;
      return listed;
    });
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
    if (fixed !== undefined) return contents(await fixed.read(url, ctx), uri);
    for (const { def, matcher } of this.#templates.values()) {
      const variables = matcher.match(uri);
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
    return this.#resources.has(uri) ||
      [...this.#templates.values()].some(({ matcher }) =>
        matcher.match(uri) !== null
      );
  }

  /** Completion for a template variable; `undefined` when the template is unknown. */
  completer(
    uriTemplate: string,
    variable: string,
  ): Completer | undefined | null {
    const template = this.#templates.get(uriTemplate);
    if (template === undefined) return null;
    return template.def.complete?.[variable];
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
