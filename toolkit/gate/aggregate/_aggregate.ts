// Internal: the gate of many servers (`servers:` in the policy). The host
// sees one server: the aggregate answers its initialize (or
// server/discover) with the servers' answers merged, lists every server's
// tools and prompts under `<prefix>_<name>` and their resources under
// their URIs, and routes each request to the server that holds what it
// names. Each server runs behind a gate of its own (_member.ts), which
// decides its calls with its policy view, pins and fence; the aggregate
// decides nothing. Requests of the servers' (an approval question, a
// sampling request, roots/list) reach the host under ids of the
// aggregate's own, and their answers go back to the server that asked.

import type { JsonRpcId, JsonRpcMessage } from "../../jsonrpc/mod.ts";
import { RPC_ERROR } from "../../jsonrpc/mod.ts";
import { META } from "../../jsonrpc/_versions.ts";
import type { MessageTransport } from "../../jsonrpc/_message_channel.ts";
import { StdioTransport } from "../../stdio/mod.ts";
import { isRecord } from "../../_util/json_type.ts";
import {
  findCollision,
  type NameGroup,
  routeName,
  splitName,
} from "../../_util/mount_names.ts";
import { messageOf } from "../_log.ts";
import {
  type Answered,
  exposeItems,
  type ListMethod,
  LISTS,
  mergeDiscover,
  mergeInitialize,
} from "./_merge.ts";
import {
  Member,
  type MemberGate,
  RequestCancelled,
  type ServerNotification,
  type ServerRequest,
} from "./_member.ts";
import { eraMeta, isStateless, refusal } from "../_era.ts";

/** How long a server may take to answer one page of a list the host asked for. */
const LIST_TIMEOUT_MS = 5000;
/** The most pages of one server's list the aggregate follows. */
const MAX_PAGES = 100;
/** Ids of the aggregate's own requests to the host. */
const OWN_ID_PREFIX = "forge-gate:s";

/** One server of the aggregate, as `startAggregate` is given it. */
export interface AggregateServer {
  name: string;
  prefix: string;
  /** How long to wait after an answered ping before the next one; 0: never ping. */
  pingIntervalMs: number;
  /** Starts the server behind a gate of its own, its host side `host`. */
  start(host: MessageTransport): Promise<MemberGate>;
}

/** What an {@linkcode Aggregate} runs with. */
export interface AggregateOptions {
  /** The gate's own lines. */
  log: (line: string) => void;
  /** The host's messages; this process's stdin when absent. */
  readable?: ReadableStream<Uint8Array>;
  /** The host's answers; this process's stdout when absent. */
  writable?: WritableStream<Uint8Array>;
  /** The host as a connection of parsed messages, instead of the streams. */
  host?: MessageTransport;
  /** How long a server may take to answer `initialize`. */
  startTimeoutMs: number;
  /** How long a server that is up may take to answer a ping before it counts as hung. */
  pingTimeoutMs: number;
  /** Called once the gate has ended (closes what the servers share). */
  ended?: () => Promise<void>;
}

type HostRequest = Extract<JsonRpcMessage, { method: string; id: JsonRpcId }>;

/** A host request routed to one member: where it went, to cancel it. */
interface Routed {
  member: Member;
  id: number;
}

/** The gate in front of many servers; what `startGate()` returns for them. */
export class Aggregate {
  readonly finished: Promise<number>;

  #host: MessageTransport;
  #members: Member[];
  #log: (line: string) => void;
  #hostInit: Record<string, unknown> | undefined;
  #routed = new Map<JsonRpcId, Routed>();
  #ownToHost = new Map<string, { member: Member; id: JsonRpcId }>();
  #nextOwn = 0;
  #listens = new Map<JsonRpcId, ListenState>();
  #changed = new Set<string>();
  #closing: Promise<number> | undefined;
  #resolveFinished!: (code: number) => void;
  #ended: (() => Promise<void>) | undefined;
  #capabilities: Record<string, unknown> | undefined;
  #startTimeoutMs: number;

  constructor(servers: readonly AggregateServer[], options: AggregateOptions) {
    this.#log = options.log;
    this.#ended = options.ended;
    this.#startTimeoutMs = options.startTimeoutMs;
    this.finished = new Promise((resolve) => this.#resolveFinished = resolve);
    this.#host = options.host ?? new StdioTransport({
      readable: options.readable,
      writable: options.writable,
    });
    this.#members = servers.map((server) =>
      new Member(server.name, server.prefix, {
        start: server.start,
        hostInit: () => this.#hostInit,
        log: options.log,
        startTimeoutMs: options.startTimeoutMs,
        pingIntervalMs: server.pingIntervalMs,
        pingTimeoutMs: options.pingTimeoutMs,
        request: (member, message) => this.#serverRequest(member, message),
        notification: (member, message) =>
          this.#serverNotification(member, message),
        changed: (member) => this.#memberChanged(member),
      })
    );
  }

  /** 0: an aggregate has many servers and stands for none of them. */
  get pid(): number {
    return 0;
  }

  /** Starts every server and begins reading the host. */
  async start(): Promise<void> {
    await Promise.all(this.#members.map((member) => member.start()));
    this.#host.onmessage = (message) => this.#fromHost(message);
    this.#host.onerror = (error) =>
      this.#log(`host connection: ${error.message}`);
    this.#host.onend = () => {
      this.close().catch((error) => this.#log(messageOf(error)));
    };
    await this.#host.start();
  }

  /** Stops every server; resolves with 0 once all have stopped. */
  close(): Promise<number> {
    this.#closing ??= (async () => {
      await Promise.all(this.#members.map((member) => member.close()));
      await this.#host.close().catch(() => {});
      await this.#ended?.();
      this.#resolveFinished(0);
      return 0;
    })();
    return this.#closing;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  // ---- from the host ---------------------------------------------------

  #fromHost(message: JsonRpcMessage): void {
    if (!("method" in message)) {
      this.#hostAnswer(message);
      return;
    }
    if (!("id" in message)) {
      this.#hostNotification(message);
      return;
    }
    this.#hostRequest(message as HostRequest).catch((error) =>
      this.#answer(message.id, {
        error: { code: RPC_ERROR.INTERNAL_ERROR, message: messageOf(error) },
      })
    );
  }

  async #hostRequest(message: HostRequest): Promise<void> {
    if (this.#closing !== undefined) {
      this.#answer(message.id, {
        error: {
          code: RPC_ERROR.INTERNAL_ERROR,
          message: "The gate is shutting down",
        },
      });
      return;
    }
    const { method, params } = message;
    switch (method) {
      case "initialize":
        return await this.#initialize(message);
      case "server/discover":
        return await this.#discover(message);
      case "ping":
        return this.#answer(message.id, { result: {} });
      case "tools/list":
      case "prompts/list":
      case "resources/list":
      case "resources/templates/list":
        return await this.#list(message, method);
      case "logging/setLevel":
        return await this.#everyone(message);
      case "subscriptions/listen":
        return await this.#listen(message);
      case "tools/call":
        return await this.#byName(message, "tools");
      case "prompts/get":
        return await this.#byName(message, "prompts");
      case "resources/read":
      case "resources/subscribe":
      case "resources/unsubscribe":
        return await this.#byUri(message, params?.uri);
      case "completion/complete": {
        const ref = isRecord(params?.ref) ? params.ref : {};
        if (ref.type === "ref/prompt") {
          return await this.#byName(message, "prompts", ref);
        }
        return await this.#byUri(message, ref.uri);
      }
    }
    this.#answer(message.id, {
      error: {
        code: RPC_ERROR.METHOD_NOT_FOUND,
        message:
          `Method not found: ${method}: a gate of many servers routes initialize, ping, the lists, tools/call, prompts/get, resources/*, completion/complete and logging/setLevel`,
      },
    });
  }

  async #initialize(message: HostRequest): Promise<void> {
    this.#hostInit = message.params ?? {};
    await Promise.all(this.#members.map((member) => member.ready));
    // A server that does not answer in time, or refuses, is down: it is
    // started again and given this initialize then.
    const answers = await this.#askEveryone(
      "initialize",
      () => this.#hostInit,
      {
        timeoutMs: this.#startTimeoutMs,
        failed: (member, why) => member.fail(why),
      },
    );
    const result = mergeInitialize(message.params?.protocolVersion, answers);
    this.#capabilities = result.capabilities as Record<string, unknown>;
    this.#answer(message.id, { result });
  }

  async #discover(message: HostRequest): Promise<void> {
    await Promise.all(this.#members.map((member) => member.ready));
    const answers = await this.#askEveryone(
      "server/discover",
      () => message.params,
    );
    this.#answer(message.id, {
      result: mergeDiscover(answers, META.SERVER_INFO),
    });
  }

  /**
   * Asks every member that is up; resolves with the answers of those that
   * gave a result (a member that fails or is down is left out, and said).
   */
  async #askEveryone(
    method: string,
    params: () => Record<string, unknown> | undefined,
    options: {
      timeoutMs?: number;
      failed?: (member: Member, why: string) => void;
    } = {},
  ): Promise<Answered[]> {
    const answers = await Promise.all(
      this.#members.filter((m) => m.state === "up").map(async (member) => {
        try {
          const answer = await member.request(method, params(), {
            timeoutMs: options.timeoutMs,
          });
          if ("result" in answer && isRecord(answer.result)) {
            return {
              name: member.name,
              prefix: member.prefix,
              result: answer.result,
            };
          }
          const why = "error" in answer
            ? `it answered ${method} with an error: ${answer.error.message}`
            : `it answered ${method} without a result`;
          this.#log(`server "${member.name}": ${why}`);
          options.failed?.(member, why);
        } catch (error) {
          // "it did not answer initialize within 10000 ms", or down.
          const why = messageOf(error);
          this.#log(`server "${member.name}": ${method}: ${why}`);
          options.failed?.(member, why);
        }
        return undefined;
      }),
    );
    return answers.filter((a): a is Answered => a !== undefined);
  }

  /** A list: every member's pages, merged into one page under the host's names. */
  async #list(message: HostRequest, method: ListMethod): Promise<void> {
    if (message.params?.cursor !== undefined) {
      this.#answer(message.id, {
        error: {
          code: RPC_ERROR.INVALID_PARAMS,
          message:
            "Invalid params: cursor: the gate answers each list in one page and gave no cursor",
        },
      });
      return;
    }
    const meta = isRecord(message.params?._meta)
      ? message.params._meta
      : undefined;
    const items = await Promise.all(
      this.#members.filter((m) => m.state === "up").map((member) =>
        this.#memberList(member, method, meta)
      ),
    );
    const kind = LISTS[method];
    const merged = items.flat();
    if (kind.named) {
      // Two servers may only share a name where the host would not see it:
      // the later one's is left out, and said.
      const seen = new Set<string>();
      const kept = merged.filter((item) => {
        const name = item.name as string;
        if (!seen.has(name)) return seen.add(name);
        this.#log(
          `${method}: two servers list ${
            JSON.stringify(name)
          }: the later one's is left out (give the servers prefixes)`,
        );
        return false;
      });
      merged.length = 0;
      merged.push(...kept);
    }
    this.#answer(message.id, {
      result: {
        [kind.key]: merged,
        ...(isStateless(eraMeta(meta)) ? { resultType: "complete" } : {}),
      },
    });
  }

  /** One member's whole list under the host's names; remembered for routing. */
  async #memberList(
    member: Member,
    method: ListMethod,
    meta: Record<string, unknown> | undefined,
  ): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    const own: Record<string, unknown>[] = [];
    let cursor: unknown;
    try {
      for (let page = 0; page < MAX_PAGES; page++) {
        const answer = await member.request(method, {
          ...(meta === undefined ? {} : { _meta: meta }),
          ...(cursor === undefined ? {} : { cursor }),
        }, { timeoutMs: LIST_TIMEOUT_MS });
        if (!("result" in answer) || !isRecord(answer.result)) {
          if ("error" in answer) {
            this.#log(
              `server "${member.name}" answered ${method} with an error: ${answer.error.message}`,
            );
          }
          break;
        }
        items.push(...exposeItems(method, member.prefix, answer.result));
        const list = answer.result[LISTS[method].key];
        if (Array.isArray(list)) own.push(...list.filter(isRecord));
        cursor = answer.result.nextCursor;
        if (typeof cursor !== "string") break;
      }
    } catch (error) {
      this.#log(
        `server "${member.name}" is left out of ${method}: ${messageOf(error)}`,
      );
      return [];
    }
    remember(member, method, own);
    return items;
  }

  /** `logging/setLevel`: every member is told; the host gets one answer. */
  async #everyone(message: HostRequest): Promise<void> {
    await this.#askEveryone(message.method, () => message.params);
    this.#answer(message.id, { result: {} });
  }

  /** A tool or prompt call, routed by the name's prefix to its server. */
  async #byName(
    message: HostRequest,
    kind: "tools" | "prompts",
    ref?: Record<string, unknown>,
  ): Promise<void> {
    const exposed = (ref ?? message.params)?.name;
    if (typeof exposed !== "string") {
      // The member's gate answers a malformed call as it would alone.
      const first = this.#members.find((m) => m.state === "up");
      if (first !== undefined) return await this.#route(message, first);
    }
    const found = typeof exposed === "string"
      ? await this.#owner(kind, exposed)
      : undefined;
    if (found === undefined) {
      this.#unknown(message, kind, String(exposed));
      return;
    }
    const { member, name } = found;
    const params = ref === undefined
      ? { ...message.params, name }
      : { ...message.params, ref: { ...ref, name } };
    await this.#route(message, member, params);
  }

  /** The member whose list holds `exposed` (its lists fetched when unknown), and its own name for it. */
  async #owner(
    kind: "tools" | "prompts",
    exposed: string,
  ): Promise<{ member: Member; name: string } | undefined> {
    const fits = this.#members.filter((m) =>
      splitName(m.prefix, exposed) !== undefined
    );
    // One server's prefix fits: its gate decides the call, listed or not
    // (a server may hide a tool from its list; its gate says so).
    if (fits.length === 1 && fits[0].prefix !== "") {
      return { member: fits[0], name: splitName(fits[0].prefix, exposed)! };
    }
    const method = kind === "tools" ? "tools/list" : "prompts/list";
    for (const member of fits) {
      if (member.listed[kind] === undefined && member.state === "up") {
        await this.#memberList(member, method, undefined);
      }
    }
    const routed = routeName(
      fits.map((member) => ({ ...this.#group(member, kind), member })),
      exposed,
      (group, name) => group.member.listed[kind]?.has(name) === true,
    );
    if (routed !== undefined) {
      return { member: routed.group.member, name: routed.name };
    }
    // Listed by none: the first server that fits decides it as unlisted.
    return fits.length === 0
      ? undefined
      : { member: fits[0], name: splitName(fits[0].prefix, exposed)! };
  }

  /** A resource request, routed by its URI to the server that listed it. */
  async #byUri(message: HostRequest, uri: unknown): Promise<void> {
    const member = typeof uri === "string"
      ? await this.#uriOwner(uri)
      : undefined;
    if (member === undefined) {
      this.#answer(message.id, {
        error: {
          code: RESOURCE_NOT_FOUND,
          message: `Resource not found: ${
            typeof uri === "string" ? uri : "no uri"
          }: no server of the gate lists it`,
          ...(typeof uri === "string" ? { data: { uri } } : {}),
        },
      });
      return;
    }
    await this.#route(message, member);
  }

  async #uriOwner(uri: string): Promise<Member | undefined> {
    const find = () =>
      this.#members.find((m) => m.listed.resources?.has(uri)) ??
        this.#members.find((m) =>
          m.listed.templates?.some((t) => templateMatches(t, uri))
        );
    const known = find();
    if (known !== undefined) return known;
    await Promise.all(
      this.#members.filter((m) => m.state === "up").flatMap((m) => [
        this.#memberList(m, "resources/list", undefined),
        this.#memberList(m, "resources/templates/list", undefined),
      ]),
    );
    return find();
  }

  /** Forwards a host request to `member` (with `params`), and its answer back. */
  async #route(
    message: HostRequest,
    member: Member,
    params: Record<string, unknown> | undefined = message.params,
  ): Promise<void> {
    if (member.state !== "up") {
      this.#unavailable(message, member);
      return;
    }
    let answer: JsonRpcMessage;
    try {
      answer = await member.request(message.method, params, {
        sent: (id) => this.#routed.set(message.id, { member, id }),
      });
    } catch (error) {
      this.#routed.delete(message.id);
      // Cancelled by the host: it gets no answer.
      if (error instanceof RequestCancelled) return;
      this.#unavailable(message, member);
      return;
    }
    this.#routed.delete(message.id);
    this.#host.send({ ...answer, id: message.id } as JsonRpcMessage).catch(
      () => {},
    );
  }

  /** A request for a member that is down: a tool's error, or a JSON-RPC error. */
  #unavailable(message: HostRequest, member: Member): void {
    const text = member.downMessage();
    if (message.method === "tools/call") {
      this.#answer(message.id, {
        result: refusal(text, eraMeta(metaOf(message))),
      });
      return;
    }
    this.#answer(message.id, {
      error: { code: RPC_ERROR.INTERNAL_ERROR, message: text },
    });
  }

  #unknown(message: HostRequest, kind: "tools" | "prompts", name: string) {
    const what = kind === "tools" ? "tool" : "prompt";
    const prefixes = this.#members.map((m) => m.prefix).filter((p) => p !== "");
    this.#answer(message.id, {
      error: {
        code: RPC_ERROR.INVALID_PARAMS,
        message: `Unknown ${what}: ${name}: no server of the gate has it${
          prefixes.length === 0
            ? ""
            : ` (names start with ${prefixes.map((p) => `${p}_`).join(", ")})`
        }`,
      },
    });
  }

  /** `subscriptions/listen` (2026-07-28): opened on every member, acknowledged once, ended once. */
  async #listen(message: HostRequest): Promise<void> {
    const state: ListenState = { params: message.params, ids: new Map() };
    this.#listens.set(message.id, state);
    await Promise.all(
      this.#members.filter((m) => m.state === "up").map((member) =>
        this.#listenOn(member, state)
      ),
    );
    if (!this.#listens.delete(message.id)) return;
    this.#answer(message.id, {
      result: {
        resultType: "complete",
        _meta: { [META.SUBSCRIPTION_ID]: message.id },
      },
    });
  }

  async #listenOn(member: Member, state: ListenState): Promise<void> {
    try {
      await member.request("subscriptions/listen", state.params, {
        sent: (id) => state.ids.set(member, id),
      });
    } catch {
      // Down, or cancelled with the host's listen: nothing to pass on.
    }
    state.ids.delete(member);
  }

  #hostNotification(message: Extract<JsonRpcMessage, { method: string }>) {
    if (message.method === "notifications/cancelled") {
      const requestId = message.params?.requestId as JsonRpcId;
      const routed = this.#routed.get(requestId);
      if (routed !== undefined) {
        routed.member.cancel(routed.id, message.params?.reason);
        return;
      }
      const listen = this.#listens.get(requestId);
      if (listen !== undefined) {
        this.#listens.delete(requestId);
        for (const [member, id] of listen.ids) {
          member.cancel(id, message.params?.reason);
        }
      }
      return;
    }
    // initialized, roots/list_changed and the like: every server hears it.
    for (const member of this.#members) member.notify(message);
  }

  #hostAnswer(message: Exclude<JsonRpcMessage, { method: string }>): void {
    if (typeof message.id !== "string") return;
    const own = this.#ownToHost.get(message.id);
    if (own === undefined) return;
    this.#ownToHost.delete(message.id);
    own.member.answer(own.id, message);
  }

  // ---- from the servers -------------------------------------------------

  #serverRequest(member: Member, message: ServerRequest): void {
    const id = `${OWN_ID_PREFIX}${++this.#nextOwn}`;
    this.#ownToHost.set(id, { member, id: message.id });
    this.#host.send({ ...message, id }).catch(() => {});
  }

  #serverNotification(member: Member, message: ServerNotification): void {
    const { method } = message;
    if (LIST_CHANGED[method] !== undefined) {
      forget(member, LIST_CHANGED[method]);
      this.#announce(method);
      return;
    }
    if (method === "notifications/cancelled") {
      // The server gave up a request of its own to the host.
      const requestId = message.params?.requestId;
      for (const [id, own] of this.#ownToHost) {
        if (own.member === member && own.id === requestId) {
          this.#ownToHost.delete(id);
          this.#host.send({
            ...message,
            params: { ...message.params, requestId: id },
          }).catch(() => {});
        }
      }
      return;
    }
    const subscription = (message.params?._meta as Record<string, unknown>)
      ?.[META.SUBSCRIPTION_ID];
    if (subscription !== undefined) {
      // A listen stream's notification: under the host's listen id.
      for (const [hostId, state] of this.#listens) {
        if (state.ids.get(member) !== subscription) continue;
        if (method === "notifications/subscriptions/acknowledged") {
          if (state.acknowledged) return;
          state.acknowledged = true;
        }
        this.#host.send({
          ...message,
          params: {
            ...message.params,
            _meta: {
              ...message.params?._meta as Record<string, unknown>,
              [META.SUBSCRIPTION_ID]: hostId,
            },
          },
        }).catch(() => {});
      }
      return;
    }
    this.#host.send(message).catch(() => {});
  }

  /** A member went down or came back: its lists changed for the host. */
  #memberChanged(member: Member): void {
    for (
      const kind of ["tools", "prompts", "resources", "templates"] as const
    ) {
      forget(member, kind);
    }
    if (this.#hostInit === undefined && this.#listens.size === 0) return;
    if (member.state === "up") {
      // A listen the host holds is opened on the server that came back.
      for (const state of this.#listens.values()) {
        if (!state.ids.has(member)) this.#listenOn(member, state);
      }
    }
    const capabilities = this.#capabilities ?? {};
    for (const [method, kind] of Object.entries(LIST_CHANGED)) {
      if (kind === "templates") continue;
      if (this.#hostInit === undefined || kind in capabilities) {
        this.#announce(method);
      }
    }
  }

  /**
   * Says a list changed, once per turn of the event loop however many
   * servers changed it: to a 2025 host as it is, and on each listen
   * stream of a 2026-07-28 host, under its id.
   */
  #announce(method: string): void {
    if (this.#changed.has(method)) return;
    this.#changed.add(method);
    setTimeout(() => {
      this.#changed.delete(method);
      if (this.#closing !== undefined) return;
      if (this.#hostInit !== undefined) {
        this.#host.send({ jsonrpc: "2.0", method }).catch(() => {});
      }
      for (const hostId of this.#listens.keys()) {
        this.#host.send({
          jsonrpc: "2.0",
          method,
          params: { _meta: { [META.SUBSCRIPTION_ID]: hostId } },
        }).catch(() => {});
      }
    }, 0);
  }

  #answer(
    id: JsonRpcId,
    reply:
      | { result: Record<string, unknown> }
      | { error: { code: number; message: string; data?: unknown } },
  ): void {
    this.#host.send({ jsonrpc: "2.0", id, ...reply } as JsonRpcMessage).catch(
      () => {},
    );
  }

  /** A member's names of `kind` as a group of mount_names. */
  #group(member: Member, kind: "tools" | "prompts"): NameGroup {
    return {
      label: `server "${member.name}"`,
      prefix: member.prefix,
      names: () => member.listed[kind] ?? [],
    };
  }

  /**
   * Lists every server's tools and prompts and throws a `TypeError` naming
   * both sides when two would be shown under one name (servers under the
   * empty prefix).
   */
  async checkNames(): Promise<void> {
    if (!this.#members.some((m) => m.prefix === "")) return;
    await Promise.all(
      this.#members.filter((m) => m.state === "up").flatMap(
        (member) => [
          this.#memberList(member, "tools/list", undefined),
          this.#memberList(member, "prompts/list", undefined),
        ],
      ),
    );
    for (const kind of ["tools", "prompts"] as const) {
      const collision = findCollision(
        this.#members.map((member) => this.#group(member, kind)),
      );
      if (collision === undefined) continue;
      const { exposed, first, second } = collision;
      throw new TypeError(
        `Cannot start the gate: ${
          kind === "tools" ? "tool" : "prompt"
        } name collision on ${
          JSON.stringify(exposed)
        }: ${first.label} and ${second.label} both list it: give one of them a prefix`,
      );
    }
  }
}

/** What a host's `subscriptions/listen` is, across the members. */
interface ListenState {
  params: Record<string, unknown> | undefined;
  /** The id it went to each member under. */
  ids: Map<Member, number>;
  acknowledged?: boolean;
}

const RESOURCE_NOT_FOUND = -32002;

/** The list each change notification is about. */
const LIST_CHANGED: Record<
  string,
  "tools" | "prompts" | "resources" | "templates"
> = {
  "notifications/tools/list_changed": "tools",
  "notifications/prompts/list_changed": "prompts",
  "notifications/resources/list_changed": "resources",
};

function metaOf(message: HostRequest): Record<string, unknown> | undefined {
  const meta = message.params?._meta;
  return isRecord(meta) ? meta : undefined;
}

/** Remembers what a member's list holds, for routing by name or URI. */
function remember(
  member: Member,
  method: ListMethod,
  items: readonly Record<string, unknown>[],
): void {
  const listed = member.listed as Record<string, unknown>;
  const values = (key: string) =>
    items.map((item) => item[key]).filter((v): v is string =>
      typeof v === "string"
    );
  if (method === "tools/list") listed.tools = new Set(values("name"));
  if (method === "prompts/list") listed.prompts = new Set(values("name"));
  if (method === "resources/list") listed.resources = new Set(values("uri"));
  if (method === "resources/templates/list") {
    listed.templates = values("uriTemplate");
  }
}

function forget(
  member: Member,
  kind: "tools" | "prompts" | "resources" | "templates",
): void {
  delete (member.listed as Record<string, unknown>)[kind];
}

/** Whether `uri` fits an RFC 6570 level-1 template: each `{var}` stands for one or more characters. */
function templateMatches(template: string, uri: string): boolean {
  const pattern = template.split(/\{[^}]*\}/).map((part) =>
    part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
  ).join(".+");
  return new RegExp(`^${pattern}$`).test(uri);
}
