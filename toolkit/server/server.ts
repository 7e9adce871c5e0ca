/**
 * The server facade: {@linkcode createServer} and {@linkcode ToolServer},
 * which registers tools, resources and prompts, takes call layers, serves
 * sessions over stdio or any transport, and shuts down cleanly.
 *
 * The toolkit answers the protocol itself (no SDK server): a returned
 * `error()` or a thrown `ToolError` is a domain error (`isError`); anything
 * else thrown is a JSON-RPC error whose stack goes to stderr, never to the
 * peer. The work is done by the private modules beside this one: the tool
 * registry, the method table, the call pipeline and the session engine.
 *
 * @module
 */

import type { McpTransport, SessionListener } from "../jsonrpc/types.ts";
import { ProtocolError, RPC_ERROR } from "../jsonrpc/errors.ts";
import { StdioTransport, type StdioTransportOptions } from "../stdio/stdio.ts";
import { CallPipeline } from "./_call.ts";
import type { Connection } from "./_connection.ts";
import { redirectConsole } from "./_console.ts";
import type { CallLayer, RequestLayer } from "./layer.ts";
import { type PromptDefinition, PromptRegistry } from "./prompts.ts";
import {
  type ResourceDefinition,
  ResourceRegistry,
  type ResourceTemplateDefinition,
} from "./resources.ts";
import { ToolRegistry } from "./_registry.ts";
import { buildRouter } from "./_router.ts";
import { type ListKind, Mounts } from "./_mounts.ts";
import { checkPrefix } from "../_util/mount_names.ts";
import { RemoteMount } from "./_remote_mount.ts";
import { ClientConnection } from "../client/_connection.ts";
import type { McpClientConnection } from "../client/types.ts";
import { Session } from "./_session.ts";
import {
  type CacheHints,
  checkCacheHints,
  RequestStateSigner,
} from "./_era.ts";
import type { ListedTool, ToolDefinition } from "./tool.ts";
import type { Registration } from "./registration.ts";
import {
  RegistrationHandle,
  type RegistrySlotOps,
} from "./_registration_handle.ts";
import type { ToolSchema } from "../schema.ts";
import { checkIcons } from "./_icons.ts";
import type { Icon } from "./icon.ts";
import { SkillCatalog } from "./_skill_catalog.ts";
import type { Skill } from "../skills/skill.ts";
import { TASKS_EXTENSION } from "./_task_checks.ts";
import { TaskManager } from "./_tasks.ts";
import type { TaskStore } from "./tasks.ts";
import type { NotificationBus } from "./notification_bus.ts";
import { checkWholeNumber } from "../_util/whole_number.ts";
import { withResolvers } from "../_util/runtime.ts";

/** Microtask turns between a call settling and its answer reaching the transport, with room to spare. */
const ANSWER_TURNS = 16;

/**
 * The server's name and version, sent to the client at initialisation.
 *
 * @example Name the server once
 * ```ts
 * import { createServer } from "@forge/toolkit";
 * import { type ServerInfo } from "@forge/toolkit/server";
 *
 * const INFO: ServerInfo = { name: "notes", version: "1.4.0", title: "Team notes" };
 * const server = createServer(INFO);
 * server.info.title; // "Team notes"
 * ```
 */
export interface ServerInfo {
  /** A programmatic name, such as `hello`. */
  name: string;
  /** The server's version, such as `0.1.0`. */
  version: string;
  /** A human-readable name. */
  title?: string;
  /** What the server is for, shown by clients that list servers. */
  description?: string;
  /** The server's home page, an absolute URL. */
  websiteUrl?: string;
  /** Icons a client may show for the server; each `src` an `https:` URL or a `data:` URI. */
  icons?: Icon[];
}

/**
 * What {@linkcode ToolServer.onRootsChanged} listeners learn: which session's
 * client changed its roots.
 *
 * @example Forget a session's cached index when its roots change
 * ```ts
 * import { createServer } from "@forge/toolkit";
 * import type { RootsChange } from "@forge/toolkit/server";
 *
 * const indexes = new Map<string | undefined, string[]>();
 * function forget(change: RootsChange): void {
 *   indexes.delete(change.sessionId);
 * }
 * createServer({ name: "search", version: "1" }).onRootsChanged(forget);
 * ```
 */
export interface RootsChange {
  /** The transport session, on transports that have sessions (HTTP). */
  readonly sessionId: string | undefined;
}

/**
 * Options for {@linkcode createServer}.
 *
 * @example Limit every call's run time
 * ```ts
 * import { createServer, type ServerOptions } from "@forge/toolkit";
 *
 * const options: ServerOptions = {
 *   instructions: "Search before you create a note; notes are Markdown.",
 *   timeoutMs: 30_000, // no call runs longer than 30 s
 *   graceMs: 2_000, // on shutdown, calls in flight get 2 s to finish
 * };
 * const server = createServer({ name: "notes", version: "1" }, options);
 * ```
 */
export interface ServerOptions {
  /**
   * Instructions for the model on how to use the server's tools.
   *
   * @default {undefined}
   */
  instructions?: string;
  /**
   * How long in-flight calls may run after shutdown begins (stdin EOF,
   * SIGINT, SIGTERM, `close()`), in milliseconds; then their signals abort.
   *
   * @default {5000}
   */
  graceMs?: number;
  /**
   * A time limit for every tool call that sets none itself, in milliseconds.
   *
   * @default {undefined}
   */
  timeoutMs?: number;
  /**
   * Caching hints (SEP-2549) on the results 2026-07-28 clients may cache:
   * `server/discover`, the four lists and `resources/read`. `ttlMs` is how
   * long a client may reuse one; `cacheScope: "public"` lets shared caches
   * serve it across users, so keep `"private"` when results depend on who
   * asks. Session-era (2025) clients get no hints.
   *
   * @default {{ ttlMs: 0, cacheScope: "private" }}
   */
  cache?: { ttlMs?: number; cacheScope?: "public" | "private" };
  /**
   * The HMAC key that signs the `requestState` of 2026-07-28 input-required
   * results (at least 32 bytes). Give every instance behind a load balancer
   * the same key, so that any of them can resume a request another began;
   * without one, each process makes its own.
   *
   * @default {undefined}
   */
  requestStateKey?: Uint8Array;
  /**
   * Items per page of `tools/list`, `resources/list`,
   * `resources/templates/list` and `prompts/list`: a longer list answers
   * `nextCursor`, an opaque cursor the client sends back for the next page
   * (a cursor this server did not issue for that list is -32602). Without
   * it every list is one page, answered from a cache, which suits all but
   * servers whose lists run into the thousands.
   *
   * @default {undefined}
   */
  pageSize?: number;
  /**
   * Where tasks are kept (tools with `task`): your own store lets a task
   * outlive the process and be read by every instance behind a load
   * balancer; each task's handler runs on the instance that created it.
   * Without one, this server's memory.
   *
   * @default {undefined}
   */
  taskStore?: TaskStore;
  /**
   * Carries the notifications this instance's changes cause (list changes,
   * `resources/updated`, task status) to the other instances behind a load
   * balancer, and theirs to this one's clients. Without one, a client hears
   * only the changes made on the instance it listens to.
   *
   * @default {undefined}
   */
  notificationBus?: NotificationBus;
}

/**
 * Options for {@linkcode ToolServer.serve}.
 *
 * @example Serve HTTP when asked to, else stdio
 * ```ts ignore
 * import { createServer, type ServeOptions } from "@forge/toolkit";
 * import { streamableHttp } from "@forge/toolkit/http";
 *
 * const server = createServer({ name: "notes", version: "1" });
 * const options: ServeOptions = Deno.env.get("NOTES_HTTP") === "1"
 *   ? { transport: streamableHttp({ port: 8080 }) }
 *   : { maxMessageBytes: 1024 * 1024 };
 * await server.serve(options);
 * ```
 */
export interface ServeOptions extends StdioTransportOptions {
  /**
   * Serve this instead of stdio: one session over an {@linkcode McpTransport},
   * or many over a {@linkcode SessionListener} such as `streamableHttp()`
   * from `@forge/toolkit/http`.
   *
   * @default {undefined}
   */
  transport?: McpTransport | SessionListener;
  /**
   * Exit the process with status 0 once the server has shut down.
   *
   * @default {true}
   */
  exit?: boolean;
  /**
   * Stop on SIGINT and SIGTERM (where the platform has them).
   *
   * @default {true}
   */
  handleSignals?: boolean;
}

/**
 * An MCP server built from tool definitions. Make one with
 * {@linkcode createServer}.
 *
 * @example
 * ```ts
 * import { createServer, text } from "@forge/toolkit";
 * import { z } from "zod";
 *
 * const server = createServer({ name: "hello", version: "0.1.0" });
 * server.tool({
 *   name: "hello",
 *   description: "Greets someone",
 *   input: z.object({ name: z.string() }),
 *   handler: ({ name }) => text(`Hello, ${name}!`),
 * });
 * // await server.serve();
 * ```
 */
export class ToolServer {
  /** The name and version the server reports. */
  readonly info: ServerInfo;
  #options: ServerOptions;
  #cache: CacheHints;
  #signer: RequestStateSigner | undefined;
  #tools = new ToolRegistry();
  #resources = new ResourceRegistry();
  #prompts = new PromptRegistry();
  #skills = new SkillCatalog();
  #calls: CallPipeline;
  /** Request layers, shared with every session (so later additions count). */
  #requestLayers: RequestLayer[] = [];
  #routes: ReturnType<typeof buildRouter>;
  /** This server's registries with the servers mounted in it. */
  #mounts: Mounts;
  #connections = new Set<Connection>();
  /** The client connections mounted here, closed with this server. */
  #mountedConnections = new Set<ClientConnection>();
  #rootsListeners = new Set<(change: RootsChange) => void>();
  /** The lists changed this tick, announced at its end. */
  #changedLists = new Set<ListKind>();
  #closed: Promise<void> | undefined;
  /** Resolved by `close()`, which `serve()` waits for beside its transport's end. */
  #stopRequested = withResolvers<void>();
  #bus: NotificationBus | undefined;
  #unsubscribe: (() => void) | undefined;

  /**
   * Use {@linkcode createServer} instead.
   *
   * @param info The server's name and version.
   * @param options Server-wide settings.
   */
  constructor(info: ServerInfo, options: ServerOptions = {}) {
    if (typeof info?.name !== "string" || typeof info?.version !== "string") {
      throw new TypeError(
        "Cannot create server: expected info { name: string, version: string }",
      );
    }
    if (options.graceMs !== undefined && !(options.graceMs >= 0)) {
      throw new RangeError(
        `Cannot create server: graceMs must be >= 0, got ${options.graceMs}`,
      );
    }
    if (options.pageSize !== undefined) {
      if (typeof options.pageSize !== "number") {
        throw new TypeError(
          `Cannot create server: pageSize must be a number, got ${typeof options
            .pageSize}`,
        );
      }
      checkWholeNumber("Cannot create server", "pageSize", options.pageSize, {
        min: 1,
      });
    }
    checkIcons(info.icons, "Cannot create server");
    if (info.websiteUrl !== undefined && !URL.canParse(info.websiteUrl)) {
      throw new TypeError(
        `Cannot create server: websiteUrl: expected an absolute URL, got ${
          JSON.stringify(info.websiteUrl)
        }`,
      );
    }
    this.info = { ...info };
    this.#options = { ...options };
    this.#cache = checkCacheHints(options.cache);
    const key = options.requestStateKey;
    if (key !== undefined && !(key instanceof Uint8Array)) {
      throw new TypeError(
        "Cannot create server: requestStateKey must be a Uint8Array",
      );
    }
    if (key !== undefined && key.length < 32) {
      throw new RangeError(
        `Cannot create server: requestStateKey must be at least 32 bytes, got ${key.length}`,
      );
    }
    this.#signer = key === undefined ? undefined : new RequestStateSigner(key);
    const tasks = new TaskManager(
      checkTaskStore(options.taskStore),
      (params) => this.#taskChanged(params),
    );
    this.#calls = new CallPipeline(this.#tools, this.#options.timeoutMs, tasks);
    this.#mounts = new Mounts(JSON.stringify(this.info.name), {
      tools: this.#tools,
      calls: this.#calls,
      prompts: this.#prompts,
      resources: this.#resources,
    }, {
      listChanged: (list) => {
        this.#offer();
        this.#listChanged(list);
      },
      resourceUpdated: (uri) => void this.resourceUpdated(uri),
    });
    this.#routes = buildRouter({
      tools: this.#tools,
      calls: this.#calls,
      tasks,
      resources: this.#resources,
      prompts: this.#prompts,
      pageSize: this.#options.pageSize,
      skills: this.#skills,
      mounts: this.#mounts,
    });
    this.#bus = checkBus(options.notificationBus);
    this.#unsubscribe = this.#bus?.subscribe((n) => this.#fromBus(n));
  }

  /**
   * Registers a tool. Names, schemas and time limits are checked here, so a
   * mistake is a `TypeError` or `RangeError` at start-up, not at the first call.
   * Returns the tool's {@linkcode Registration}: `disable()`, `enable()`,
   * `update(patch)` and `remove()` change it while the server runs, and
   * connected clients hear `notifications/tools/list_changed` (one per tick).
   *
   * @example Register, then change the tool while serving
   * ```ts
   * import { createServer, text } from "@forge/toolkit";
   *
   * const server = createServer({ name: "s", version: "1" });
   * const ping = server.tool({
   *   name: "ping",
   *   description: "Answers pong",
   *   handler: () => text("pong"),
   * });
   * ping.update({ description: "Answers pong, to check the server is up" });
   * ping.disable(); // unlisted; a call answers as for an unknown tool
   * ```
   */
  tool<S extends ToolSchema | undefined>(
    def: ToolDefinition<S>,
  ): Registration<ToolDefinition<S>> {
    const slot = this.#tools.add(def as ToolDefinition);
    return this.#registered(slot, "tools") as Registration<ToolDefinition<S>>;
  }

  /**
   * Adds a call layer: middleware that runs around every `tools/call`, in
   * the order added, before the arguments are decoded. A layer returns
   * `next()`'s result, changed or not, or answers by itself; the
   * permission-pattern probe check always runs after the last layer, right
   * before the tool.
   *
   * @example Count the calls of each tool
   * ```ts
   * import { createServer, text } from "@forge/toolkit";
   *
   * const calls = new Map<string, number>();
   * const server = createServer({ name: "s", version: "1" });
   * server.use((call, next) => {
   *   calls.set(call.name, (calls.get(call.name) ?? 0) + 1);
   *   return next();
   * });
   * server.tool({ name: "ping", description: "Answers pong", handler: () => text("pong") });
   * ```
   *
   * Give `{ request, call }` to add a {@linkcode RequestLayer}, which runs
   * around every request of every method (tracing, metrics), with or
   * without a call layer; `@forge/toolkit/otel`'s `otel()` is one.
   */
  use(layer: CallLayer | { request?: RequestLayer; call?: CallLayer }): this {
    if (typeof layer === "function") {
      this.#calls.use(layer);
      return this;
    }
    if (typeof layer !== "object" || layer === null) {
      throw new TypeError(
        `Cannot use layer: expected a function (call, next) => result, got ${
          layer === null ? "null" : typeof layer
        }`,
      );
    }
    const { request, call } = layer;
    if (
      (request ?? call) === undefined ||
      (request !== undefined && typeof request !== "function") ||
      (call !== undefined && typeof call !== "function")
    ) {
      throw new TypeError(
        "Cannot use layers: expected { request?, call? } with at least one function",
      );
    }
    if (request !== undefined) this.#requestLayers.push(request);
    if (call !== undefined) this.#calls.use(call);
    return this;
  }

  /**
   * The tools as `tools/list` shows them, computed once per change.
   *
   * @example
   * ```ts
   * import { createServer, text } from "@forge/toolkit";
   *
   * const server = createServer({ name: "s", version: "1" });
   * server.tool({ name: "ping", description: "pong", handler: () => text("pong") });
   * server.listTools()[0].inputSchema.type; // "object"
   * ```
   */
  listTools(): ListedTool[] {
    return this.#mounts.listTools(true);
  }

  /**
   * Mounts another server in this one, in process: its tools and prompts
   * are listed here as `<prefix>_<name>` (as they are, with the prefix
   * `""`), its resources and templates keep their URIs. A call of
   * `<prefix>_<name>` runs this server's call layers, then `other`'s own
   * pipeline (its layers, its probe check, its argument decoding and time
   * limits), in the context of this server's request: its cancellation,
   * progress, logging and elicitation reach this server's client. What
   * `other` registers, changes or removes later changes this server's lists
   * and its clients hear one `list_changed` per tick.
   *
   * A mounted name that equals a name here or another mount's is a
   * `TypeError` naming both, now or at the later registration that would
   * cause it; so is a mount that would contain itself. Task tools of a
   * mounted server run to completion, and its skills stay its own.
   *
   * `other` may also be a client connection to any MCP server, made by
   * `connectServer()` from `@forge/toolkit/client` (a stdio command it
   * starts, a Streamable HTTP URL, or a transport). Its tools, prompts, resources and templates
   * are listed here as above, and a call, `prompts/get`, `resources/read`
   * or completion is forwarded to it after this server's layers: the
   * client's cancellation reaches it as `notifications/cancelled`, its
   * progress reaches the client under the client's token, and its
   * `list_changed` becomes this server's (one per tick). A name it lists
   * later that would collide with a name here is left out, with a line on
   * stderr naming both. A connection is mounted once, and closes (its
   * process stopped) when this server closes; once it has ended, its lists
   * are empty and a call of one of its tools answers a tool error naming
   * it.
   *
   * @example Compose a server from two
   * ```ts
   * import { createServer, text } from "@forge/toolkit";
   *
   * const files = createServer({ name: "files", version: "1" });
   * files.tool({ name: "read", description: "Reads a file", handler: () => text("…") });
   *
   * const app = createServer({ name: "app", version: "1" });
   * app.mount("files", files);
   * app.listTools().map((tool) => tool.name); // ["files_read"]
   * ```
   *
   * @example Mount a server that runs as its own process
   * ```ts ignore
   * import { createServer } from "@forge/toolkit";
   * import { connectServer } from "@forge/toolkit/client";
   *
   * const app = createServer({ name: "app", version: "1" });
   * app.mount("memory", await connectServer({
   *   command: ["npx", "-y", "@modelcontextprotocol/server-memory"],
   * }));
   * app.listTools().map((tool) => tool.name); // ["memory_create_entities", …]
   * ```
   *
   * @param prefix What the mounted names start with, joined by `_`; `""` for none.
   * @param other The server to mount, or a client connection to one.
   */
  mount(prefix: string, other: ToolServer | McpClientConnection): this {
    const action = "Cannot mount server";
    checkPrefix(prefix, action);
    if (other instanceof ClientConnection) {
      if (other.mounted) {
        throw new TypeError(
          `${action}: the connection to server ${
            JSON.stringify(other.name)
          } is mounted already`,
        );
      }
      const remote = new RemoteMount(other);
      this.#mounts.mount(prefix, remote);
      other.mounted = true;
      this.#mountedConnections.add(other);
      this.#mounted(remote);
      return this;
    }
    if (!(other instanceof ToolServer)) {
      throw new TypeError(
        `${action}: expected a server made by createServer() or a connection made by connectServer(), got ${
          other === null ? "null" : typeof other
        }`,
      );
    }
    this.#mounts.mount(prefix, other.#mounts);
    this.#mounted(other.#mounts);
    return this;
  }

  /** Offers and announces what a new mount brings. */
  #mounted(child: Pick<Mounts, "offers">): void {
    this.#offer();
    this.#listChanged("tools");
    if (child.offers("prompts")) this.#listChanged("prompts");
    if (child.offers("resources")) this.#listChanged("resources");
  }

  /**
   * Serves one MCP session over `transport` until it closes. `serve()` and
   * the test client use this; call it yourself for a custom transport.
   *
   * @example
   * ```ts ignore
   * await server.connect(myTransport);
   * ```
   */
  async connect(transport: McpTransport): Promise<void> {
    // One object for the session's answer and the router's checks, so a
    // kind registered before initialize is both offered and served.
    const capabilities = this.#capabilities();
    const connection: Connection = {
      session: undefined!,
      subscriptions: new Set(),
      logLevel: undefined,
      capabilities,
      roots: undefined,
      rootsVersion: 0,
      elicitations: new Set(),
    };
    connection.session = new Session(transport, {
      cache: this.#cache,
      signer: this.#signer,
      info: { ...this.info },
      capabilities,
      handlers: this.#routes,
      requestLayers: this.#requestLayers,
      context: connection,
      ...(this.#options.instructions === undefined
        ? {}
        : { instructions: this.#options.instructions }),
      onclose: () => this.#connections.delete(connection),
    });
    this.#connections.add(connection);
    // The session needs no answer to a client notification; the server
    // listens for the one it acts on. Set before start(), which chains it.
    const { onmessage } = transport;
    transport.onmessage = (message, extra) => {
      onmessage?.(message, extra);
      if (
        "method" in message && !("id" in message) &&
        message.method === "notifications/roots/list_changed"
      ) this.#rootsChanged(connection);
    };
    await connection.session.start();
  }

  /**
   * Tells the client that a URL-mode elicitation is done
   * (`notifications/elicitation/complete`), so it can stop waiting and retry
   * what needed it. The elicitation must have been sent by `ctx.elicit()` in
   * URL mode and accepted, or named in `ctx.urlElicitationRequired()`;
   * resolves `false` when no connected session has it (unknown, completed
   * already, declined, or its session has closed).
   *
   * @example Complete an elicitation from the page the user visited
   * ```ts
   * import { createServer } from "@forge/toolkit";
   *
   * const server = createServer({ name: "crm", version: "1" });
   * async function onSignedIn(request: Request): Promise<Response> {
   *   const state = new URL(request.url).searchParams.get("state") ?? "";
   *   const told = await server.completeElicitation(state);
   *   return new Response(told ? "Signed in: return to your chat" : "This link has expired");
   * }
   * ```
   */
  async completeElicitation(elicitationId: string): Promise<boolean> {
    if (typeof elicitationId !== "string") {
      throw new TypeError(
        `Cannot complete elicitation: expected an elicitationId string, got ${typeof elicitationId}`,
      );
    }
    for (const connection of this.#connections) {
      if (!connection.elicitations.delete(elicitationId)) continue;
      await connection.session.notify("notifications/elicitation/complete", {
        elicitationId,
      });
      return true;
    }
    return false;
  }

  /**
   * Calls `listener` each time a client says its roots changed
   * (`notifications/roots/list_changed`); the next `ctx.roots()` in that
   * session asks the client again either way. Returns a function that
   * stops the listening.
   *
   * @example Re-index when the user opens another folder
   * ```ts
   * import { createServer } from "@forge/toolkit";
   *
   * const server = createServer({ name: "search", version: "1" });
   * const stale = new Set<string | undefined>();
   * const stop = server.onRootsChanged(({ sessionId }) => stale.add(sessionId));
   * // … later, when no longer needed:
   * stop();
   * ```
   */
  onRootsChanged(listener: (change: RootsChange) => void): () => void {
    if (typeof listener !== "function") {
      throw new TypeError(
        `Cannot listen for roots changes: expected a function, got ${typeof listener}`,
      );
    }
    // A wrapper per call, so the same function added twice is removed once per stop().
    const entry = (change: RootsChange) => listener(change);
    this.#rootsListeners.add(entry);
    return () => this.#rootsListeners.delete(entry);
  }

  #rootsChanged(connection: Connection): void {
    connection.roots = undefined;
    connection.rootsVersion++;
    const change: RootsChange = { sessionId: connection.session.sessionId };
    for (const listener of this.#rootsListeners) {
      try {
        listener(change);
      } catch (error) {
        // One listener's bug must not stop the others or the session.
        console.error("A roots-changed listener failed:", error);
      }
    }
  }

  /**
   * Registers a fixed resource, listed by `resources/list` and read by
   * `resources/read`. The returned {@linkcode Registration} changes or
   * removes it later (`notifications/resources/list_changed` follows).
   *
   * @example
   * ```ts
   * import { createServer } from "@forge/toolkit";
   *
   * createServer({ name: "s", version: "1" }).resource({
   *   uri: "config://app",
   *   name: "app-config",
   *   mimeType: "application/json",
   *   read: (uri) => ({ uri: uri.href, text: "{}" }),
   * });
   * ```
   */
  resource(def: ResourceDefinition): Registration<ResourceDefinition> {
    return this.#registered(this.#resources.add(def), "resources");
  }

  /**
   * Registers a family of resources named by a URI template, with optional
   * listing and completion of its variables. The returned
   * {@linkcode Registration} changes or removes it later.
   *
   * @example
   * ```ts
   * import { createServer } from "@forge/toolkit";
   *
   * createServer({ name: "s", version: "1" }).resourceTemplate({
   *   uriTemplate: "notes://{name}",
   *   name: "note",
   *   complete: { name: (typed) => ["todo", "ideas"].filter((n) => n.startsWith(typed)) },
   *   read: (uri, { name }) => ({ uri: uri.href, text: `# ${name}` }),
   * });
   * ```
   */
  resourceTemplate(
    def: ResourceTemplateDefinition,
  ): Registration<ResourceTemplateDefinition> {
    return this.#registered(this.#resources.addTemplate(def), "resources");
  }

  /**
   * Registers a prompt, listed by `prompts/list` and rendered by `prompts/get`.
   * The returned {@linkcode Registration} changes or removes it later
   * (`notifications/prompts/list_changed` follows).
   *
   * @example
   * ```ts
   * import { createServer } from "@forge/toolkit";
   *
   * createServer({ name: "s", version: "1" }).prompt({
   *   name: "review",
   *   arguments: [{ name: "code", required: true }],
   *   handler: ({ code }) => ({
   *     messages: [{ role: "user", content: { type: "text", text: `Review:\n${code}` } }],
   *   }),
   * });
   * ```
   */
  prompt(def: PromptDefinition): Registration<PromptDefinition> {
    return this.#registered(this.#prompts.add(def), "prompts");
  }

  /**
   * Serves a skill (the MCP skills extension, SEP-2640) made by `defineSkill()`,
   * `loadSkill()` or `loadSkills()` from `@forge/toolkit/skills`: listed by
   * `skills/list`, described by `skills/get`, its files read with
   * `resources/read` at their `skill://` URIs and its directories with
   * `resources/directory/read`; the server declares the extension. A second
   * skill with the same URI or name is a `TypeError`.
   *
   * @example
   * ```ts
   * import { createServer } from "@forge/toolkit";
   * import { defineSkill } from "@forge/toolkit/skills";
   *
   * createServer({ name: "s", version: "1" }).skill(defineSkill({
   *   files: { "SKILL.md": "---\nname: greet\ndescription: Greets people politely\n---\nSay hello.\n" },
   * }));
   * ```
   */
  skill(skill: Skill): void {
    this.#skills.add(skill, (def) => this.resourceTemplate(def));
    this.#offer();
  }

  /**
   * Tells every session subscribed to `uri` that the resource changed.
   *
   * @example
   * ```ts ignore
   * await server.resourceUpdated("config://app");
   * ```
   */
  async resourceUpdated(uri: string): Promise<void> {
    this.#publish("notifications/resources/updated", { uri });
    this.#mounts.resourceUpdated(uri);
    await this.#resourceUpdatedHere(uri);
  }

  #resourceUpdatedHere(uri: string): Promise<unknown> {
    return Promise.all(
      [...this.#connections].filter((c) => c.subscriptions.has(uri)).map((c) =>
        c.session.notify("notifications/resources/updated", { uri }).catch(
          () => {},
        )
      ),
    );
  }

  /** Announces a new registration and makes its handle, which announces each change. */
  #registered<D>(slot: RegistrySlotOps<D>, list: ListKind): Registration<D> {
    this.#offer();
    const changed = () => this.#listChanged(list);
    changed();
    return new RegistrationHandle(slot, changed);
  }

  /**
   * Offers a kind that appeared after sessions connected to those not yet
   * initialised; an initialised client keeps the capabilities it was told.
   */
  #offer(): void {
    for (const connection of this.#connections) {
      if (connection.session.clientCapabilities !== undefined) continue;
      Object.assign(connection.capabilities, this.#capabilities());
    }
  }

  /**
   * Queues a list-changed notification: changes made in the same tick (a
   * burst of registrations, an update and an enable) send one per list.
   */
  #listChanged(list: ListKind): void {
    // The servers this one is mounted in change with it, in the same tick.
    this.#mounts.changed(list);
    if (this.#changedLists.size === 0) {
      queueMicrotask(() => this.#sendListChanged());
    }
    this.#changedLists.add(list);
  }

  #sendListChanged(): void {
    const lists = [...this.#changedLists];
    this.#changedLists.clear();
    for (const list of lists) {
      this.#publish(`notifications/${list}/list_changed`);
    }
    this.#listChangedHere(lists);
  }

  #listChangedHere(lists: readonly ListKind[]): void {
    for (const connection of this.#connections) {
      // Only a client told it may hear this: initialised, and offered the list.
      if (connection.session.clientCapabilities === undefined) continue;
      for (const list of lists) {
        if (connection.capabilities[list]?.listChanged !== true) continue;
        connection.session.notify(`notifications/${list}/list_changed`).catch(
          () => {},
        );
      }
    }
  }

  /** A task's change reaches the 2026-07-28 listen streams that name its id. */
  #taskChanged(params: Record<string, unknown>): void {
    this.#publish("notifications/tasks", params);
    this.#taskChangedHere(params);
  }

  #taskChangedHere(params: Record<string, unknown>): void {
    for (const connection of this.#connections) {
      if (!connection.session.stateless) continue;
      connection.session.notify("notifications/tasks", params).catch(() => {});
    }
  }

  /** Tells the other instances, if there is a bus; its failures are its own to report. */
  #publish(method: string, params?: Record<string, unknown>): void {
    if (this.#bus === undefined) return;
    try {
      Promise.resolve(
        this.#bus.publish(
          params === undefined ? { method } : { method, params },
        ),
      ).catch(() => {});
    } catch {
      // A bus that throws loses this notification, not the change.
    }
  }

  /** Another instance's notification, for this instance's clients only. */
  #fromBus(
    { method, params }: { method: string; params?: Record<string, unknown> },
  ): void {
    const list = /^notifications\/(tools|prompts|resources)\/list_changed$/
      .exec(method)?.[1] as ListKind | undefined;
    if (list !== undefined) this.#listChangedHere([list]);
    else if (
      method === "notifications/resources/updated" &&
      typeof params?.uri === "string"
    ) {
      this.#resourceUpdatedHere(params.uri);
    } else if (method === "notifications/tasks" && params !== undefined) {
      this.#taskChangedHere(params);
    }
  }

  /** The capabilities a session is offered, from what is registered now. */
  #capabilities(): Record<string, Record<string, unknown>> {
    const capabilities: Record<string, Record<string, unknown>> = {
      tools: { listChanged: true },
    };
    const mounts = this.#mounts;
    if (mounts.offers("resources")) {
      capabilities.resources = { subscribe: true, listChanged: true };
    }
    if (mounts.offers("prompts")) capabilities.prompts = { listChanged: true };
    if (mounts.offers("completions")) capabilities.completions = {};
    capabilities.logging = {};
    if (this.#tools.list().some((tool) => tool.execution !== undefined)) {
      capabilities.extensions = {
        ...capabilities.extensions,
        [TASKS_EXTENSION]: {},
      };
    }
    this.#skills.declare(capabilities);
    return capabilities;
  }

  /**
   * Serves over stdio (or `options.transport`): JSON-RPC on stdout only
   * (`console.log` and friends are sent to stderr while serving), until
   * stdin ends or SIGINT/SIGTERM arrive.
   * Then it takes no new calls, lets in-flight calls finish for `graceMs`,
   * aborts the rest, writes every answer, and exits with status 0.
   *
   * @example
   * ```ts ignore
   * await server.serve();
   * ```
   */
  async serve(options: ServeOptions = {}): Promise<void> {
    if (this.#closed !== undefined) {
      // Closed before it served: nothing to open, nothing to wait for.
      await this.#closed;
      if (options.exit !== false) Deno.exit(0);
      return;
    }
    const { transport } = options;
    if (transport !== undefined && "listen" in transport) {
      const listening = transport.listen(this, {
        handleSignals: options.handleSignals,
      });
      // close() from user code stops the listener too.
      await Promise.race([listening.finished, this.#stopRequested.promise]);
      await listening.shutdown();
      await this.close();
      if (options.exit !== false) Deno.exit(0);
      return;
    }
    const restoreConsole = transport === undefined
      ? redirectConsole()
      : () => {};
    const channel = transport ?? new StdioTransport(options);
    const stop = () => this.close();
    const signals: Deno.Signal[] =
      options.handleSignals === false || Deno.build.os === "windows"
        ? []
        : ["SIGINT", "SIGTERM"];
    for (const signal of signals) Deno.addSignalListener(signal, stop);
    // Stdio ends at stdin EOF (its close comes later, from the shutdown);
    // any other transport ends when it closes.
    const ended = new Promise<void>((resolve) => {
      if (channel instanceof StdioTransport) {
        channel.onend = () => resolve(this.close());
        return;
      }
      const onclose = channel.onclose;
      channel.onclose = () => {
        onclose?.();
        resolve(this.close());
      };
    });
    try {
      await this.connect(channel);
      await Promise.race([ended, this.#stopRequested.promise]);
      await this.close();
    } finally {
      for (const signal of signals) Deno.removeSignalListener(signal, stop);
      restoreConsole();
    }
    if (options.exit !== false) Deno.exit(0);
  }

  /**
   * Shuts down: no new calls, in-flight calls get `graceMs` to finish, then
   * their signals abort; every answer is written and every session closed.
   *
   * @example
   * ```ts ignore
   * await server.close();
   * ```
   */
  close(): Promise<void> {
    this.#closed ??= this.#shutdown();
    this.#stopRequested.resolve();
    return this.#closed;
  }

  async #shutdown(): Promise<void> {
    this.#unsubscribe?.();
    const calls = this.#calls;
    calls.drain();
    if (calls.inFlight > 0) {
      // Only then a timer: the usual EOF has nothing in flight, and Deno's
      // first timer costs about 9 ms.
      let timer: ReturnType<typeof setTimeout> | undefined;
      const graceOver = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, this.#options.graceMs ?? 5000);
      });
      await Promise.race([calls.whenIdle(), graceOver]);
      clearTimeout(timer);
      calls.abortAll(
        new ProtocolError(
          RPC_ERROR.INTERNAL_ERROR,
          "Server shut down before the tool finished",
        ),
      );
      // Aborted calls answer at once (their answers race the abort).
      await calls.whenIdle();
    }
    // An answer reaches the transport a few microtask turns after its call
    // settles; closing the session then flushes what was sent.
    for (let turn = 0; turn < ANSWER_TURNS; turn++) await undefined;
    await Promise.all(
      [...this.#connections].map((c) => c.session.close().catch(() => {})),
    );
    await Promise.all([...this.#mountedConnections].map((c) => c.close()));
  }
}
/**
 * Creates a server. Register tools with `server.tool(def)` (or
 * `registerPatternTool` for side-effecting tools), then `await server.serve()`.
 *
 * @example
 * ```ts
 * import { createServer, text } from "@forge/toolkit";
 * import { z } from "zod";
 *
 * const server = createServer({ name: "hello", version: "0.1.0" });
 * server.tool({
 *   name: "hello",
 *   description: "Greets someone",
 *   input: z.object({ name: z.string().describe("Who to greet") }),
 *   annotations: { readOnlyHint: true },
 *   handler: ({ name }) => text(`Hello, ${name}!`),
 * });
 * ```
 */
export function createServer(
  info: ServerInfo,
  options: ServerOptions = {},
): ToolServer {
  return new ToolServer(info, options);
}

function checkBus(bus: unknown): NotificationBus | undefined {
  if (bus === undefined) return undefined;
  if (
    typeof bus !== "object" || bus === null ||
    typeof (bus as NotificationBus).publish !== "function" ||
    typeof (bus as NotificationBus).subscribe !== "function"
  ) {
    throw new TypeError(
      "Cannot create server: notificationBus must be an object with publish(notification) and subscribe(deliver) methods",
    );
  }
  return bus as NotificationBus;
}

function checkTaskStore(store: unknown): TaskStore | undefined {
  if (store === undefined) return undefined;
  const methods = ["put", "get", "delete"] as const;
  if (
    typeof store !== "object" || store === null ||
    methods.some((m) => typeof (store as TaskStore)[m] !== "function")
  ) {
    throw new TypeError(
      "Cannot create server: taskStore must be an object with put(task), get(taskId) and delete(taskId) methods",
    );
  }
  return store as TaskStore;
}
