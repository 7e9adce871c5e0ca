// Internal: a client connection to another MCP server, as the servers it
// is mounted in see it (`server.mount(prefix, connection)`): the names its
// lists hold that the tree accepted, and calls, prompts, reads and
// completions forwarded to it with the mounting request's cancellation
// and progress. The server's own requests of what the connection declared
// (elicitation, sampling) go to the client of the call they came with (on
// HTTP, the call's answer stream), else of the one call under way: over
// stdio a server's request names no call, so with two under way it is
// refused.
// Names are checked when a list arrives: one that would collide with a
// name of the tree is left out with a line on stderr naming both (and
// checked again at the next change), since the server that listed it
// cannot be refused a change it already made.

import { isRecord } from "../_util/json_type.ts";
import type { ClientConnection } from "../client/_connection.ts";
import { ServerUnavailable } from "../client/_connection.ts";
import { RPC_ERROR } from "../jsonrpc/errors.ts";
import type { ListName } from "../client/types.ts";
import {
  type CallToolResult,
  error,
  type ResourceContents,
} from "../result/result.ts";
import type { RequestExtra } from "./_session_types.ts";
import { UriTemplate } from "./_uri_template.ts";
import type { PromptResult } from "./prompts.ts";
import type { Completer, ListedResource, RequestContext } from "./resources.ts";
import type { ListedTool } from "./tool.ts";

/**
 * The prefix of the `_meta` keys a 2026-07-28 request carries its era in:
 * the mounting server's client's, not for the 2025-11-25 session of the
 * connection, whose server would take the call for a 2026-07-28 one.
 */
const ERA_META_PREFIX = "io.modelcontextprotocol/";

/** The kinds of names a mount exposes under its prefix. */
export type NameKind = "tool" | "prompt";

/** What the server a connection is mounted in does for it. */
export interface RemoteHooks {
  /** Why a new name cannot be exposed (a collision), or `undefined` when it can. */
  refuse(kind: NameKind, name: string): string | undefined;
  /** One of its lists changed (announced once per tick by the server). */
  changed(list: ListName): void;
}

/** A template the connection listed, parsed for routing reads. */
interface Template {
  uriTemplate: string;
  parsed: UriTemplate | undefined;
}

/** A client connection mounted in a server. */
export class RemoteMount {
  readonly connection: ClientConnection;
  /** How errors name it: the server's name, quoted. */
  readonly label: string;
  #hooks: RemoteHooks | undefined;
  #names: Record<NameKind, Set<string>> = {
    tool: new Set(),
    prompt: new Set(),
  };
  /** Names left out, said once each until they are listed no more. */
  #refused: Record<NameKind, Set<string>> = {
    tool: new Set(),
    prompt: new Set(),
  };
  #tools: ListedTool[] | undefined;
  /** The calls forwarded and not yet answered: whose clients its requests may reach. */
  #underWay = new Set<RequestExtra>();
  #uris = new Set<string>();
  #templates: Template[] = [];

  constructor(connection: ClientConnection) {
    this.connection = connection;
    this.label = JSON.stringify(connection.name);
    this.#sync("tool");
    this.#sync("prompt");
    this.#syncResources();
  }

  /** Mounted: from now on new names are checked, and changes reach the server. */
  attach(hooks: RemoteHooks): void {
    this.#hooks = hooks;
    this.connection.onServerRequest((method, params, context) =>
      this.#fromServer(method, params, context as RequestExtra | undefined)
    );
    this.connection.onListChanged((list) => {
      if (list === "tools") this.#sync("tool");
      else if (list === "prompts") this.#sync("prompt");
      else this.#syncResources();
      hooks.changed(list);
    });
  }

  /** Every name of `kind` it exposes (under its own names). */
  names(kind: NameKind): Iterable<string> {
    return this.#names[kind];
  }

  /** Whether it exposes `name` as a `kind`. */
  has(kind: NameKind, name: string): boolean {
    return this.#names[kind].has(name);
  }

  /** Whether the server offers `kind`. */
  offers(kind: "resources" | "prompts" | "completions"): boolean {
    return this.connection.capabilities[kind] !== undefined;
  }

  /** Keeps the names listed now: those exposed already, and new ones the tree accepts. */
  #sync(kind: NameKind): void {
    const listed = kind === "tool"
      ? this.connection.tools
      : this.connection.prompts;
    const kept = new Set<string>();
    const refused = new Set<string>();
    for (const item of listed) {
      const name = item.name;
      if (typeof name !== "string" || kept.has(name)) continue;
      const why = this.#names[kind].has(name)
        ? undefined
        : this.#hooks?.refuse(kind, name);
      if (why === undefined) {
        kept.add(name);
        continue;
      }
      if (!this.#refused[kind].has(name)) {
        console.error(`${why}: it is left out of the lists`);
      }
      refused.add(name);
    }
    this.#names[kind] = kept;
    this.#refused[kind] = refused;
    if (kind === "tool") this.#tools = undefined;
  }

  #syncResources(): void {
    this.#uris = new Set(
      this.connection.resources.map((r) => r.uri).filter((uri) =>
        typeof uri === "string"
      ) as string[],
    );
    this.#templates = this.connection.resourceTemplates.flatMap((t) => {
      if (typeof t.uriTemplate !== "string") return [];
      let parsed: UriTemplate | undefined;
      try {
        parsed = new UriTemplate(t.uriTemplate);
      } catch {
        // A template the toolkit cannot parse routes no read.
      }
      return [{ uriTemplate: t.uriTemplate, parsed }];
    });
  }

  // --- tools ---

  /** Its exposed tools under their own names, without `execution`: calls run to completion. */
  listTools(): ListedTool[] {
    if (this.#tools !== undefined) return this.#tools;
    const names = this.#names.tool;
    const seen = new Set<string>();
    const tools: ListedTool[] = [];
    for (const item of this.connection.tools) {
      const name = item.name as string;
      if (!names.has(name) || seen.has(name)) continue;
      seen.add(name);
      const { execution: _, ...tool } = item;
      tools.push(tool as unknown as ListedTool);
    }
    return this.#tools = tools;
  }

  /**
   * Forwards a `tools/call` (its params as the mounting server got them,
   * `name` its own): the request's abort cancels it, and its progress
   * reaches the requester under the requester's token. A server that is
   * gone answers a tool error naming it.
   */
  async callTool(
    name: string,
    params: Record<string, unknown>,
    extra: RequestExtra,
  ): Promise<CallToolResult> {
    const token = isRecord(params._meta)
      ? params._meta.progressToken
      : undefined;
    this.#underWay.add(extra);
    try {
      return await this.connection.request(
        "tools/call",
        forwarded(params, name),
        {
          context: extra,
          signal: extra.signal,
          onprogress: token === undefined ? undefined : (progress) => {
            extra.sendNotification({
              method: "notifications/progress",
              params: { ...progress, progressToken: token },
            }).catch(() => {});
          },
        },
      ) as unknown as CallToolResult;
    } catch (cause) {
      if (cause instanceof ServerUnavailable) return error(cause.message);
      throw cause;
    } finally {
      this.#underWay.delete(extra);
    }
  }

  /**
   * The server's request, passed on to the client of the call it came
   * with (`extra`), else of the one call under way; its answer goes back
   * to the server.
   */
  #fromServer(
    method: string,
    params: Record<string, unknown>,
    extra: RequestExtra | undefined,
  ): Promise<Record<string, unknown>> {
    if (extra !== undefined && this.#underWay.has(extra)) {
      return extra.sendRequest({ method, params });
    }
    if (this.#underWay.size !== 1) {
      const why = this.#underWay.size === 0
        ? "no call to it is under way"
        : `${this.#underWay.size} calls to it are under way, and a request names none`;
      return Promise.reject(
        Object.assign(
          new Error(
            `Cannot pass ${method} on to a client: ${why}`,
          ),
          { code: RPC_ERROR.INTERNAL_ERROR },
        ),
      );
    }
    const [only] = this.#underWay;
    return only.sendRequest({ method, params });
  }

  // --- prompts ---

  /** Its exposed prompts under their own names. */
  prompts(): Record<string, unknown>[] {
    const names = new Set(this.#names.prompt);
    return this.connection.prompts.filter((p) =>
      names.delete(p.name as string)
    );
  }

  /** Forwards `prompts/get`. */
  async getPrompt(
    name: string,
    args: Record<string, unknown> | undefined,
    ctx: RequestContext,
  ): Promise<PromptResult> {
    return await this.connection.request("prompts/get", {
      name,
      ...(args === undefined ? {} : { arguments: args }),
    }, { signal: ctx.signal }) as unknown as PromptResult;
  }

  /** The completer of a prompt's argument; `null` when it has no such prompt. */
  promptCompleter(
    name: string,
    argument: string,
  ): Completer | undefined | null {
    if (!this.#names.prompt.has(name)) return null;
    return this.#completer({ type: "ref/prompt", name }, argument);
  }

  // --- resources ---

  /** Its resources, URIs as they are. */
  resources(): ListedResource[] {
    return this.connection.resources as unknown as ListedResource[];
  }

  /** Its resource templates. */
  templates(): Record<string, unknown>[] {
    return [...this.connection.resourceTemplates];
  }

  /** Whether it listed `uri`, or a template that matches it. */
  canRead(uri: string): boolean {
    return this.#uris.has(uri) ||
      this.#templates.some((t) => t.parsed?.match(uri) != null);
  }

  /** Forwards `resources/read`. */
  async read(uri: string, ctx: RequestContext): Promise<ResourceContents[]> {
    const result = await this.connection.request("resources/read", { uri }, {
      signal: ctx.signal,
    });
    return Array.isArray(result.contents)
      ? result.contents as ResourceContents[]
      : [];
  }

  /** The completer of a template's variable; `null` when it has no such template. */
  templateCompleter(
    uriTemplate: string,
    variable: string,
  ): Completer | undefined | null {
    if (!this.#templates.some((t) => t.uriTemplate === uriTemplate)) {
      return null;
    }
    return this.#completer(
      { type: "ref/resource", uri: uriTemplate },
      variable,
    );
  }

  /** Forwards `completion/complete`; none when the server does not complete. */
  #completer(
    ref: Record<string, unknown>,
    argument: string,
  ): Completer | undefined {
    if (!this.offers("completions")) return undefined;
    return async (value, context) => {
      const args = context.arguments;
      const result = await this.connection.request("completion/complete", {
        ref,
        argument: { name: argument, value },
        ...(Object.keys(args).length === 0
          ? {}
          : { context: { arguments: args } }),
      });
      const completion = result.completion;
      return isRecord(completion) && Array.isArray(completion.values)
        ? completion.values.filter((v): v is string => typeof v === "string")
        : [];
    };
  }
}

/** A call's params as the connection sends them: its own name, no era keys in `_meta`. */
function forwarded(
  params: Record<string, unknown>,
  name: string,
): Record<string, unknown> {
  const { _meta: meta, ...rest } = params;
  if (!isRecord(meta)) return { ...rest, name };
  const kept = Object.entries(meta).filter(([key]) =>
    !key.startsWith(ERA_META_PREFIX)
  );
  return kept.length === 0
    ? { ...rest, name }
    : { ...rest, name, _meta: Object.fromEntries(kept) };
}
