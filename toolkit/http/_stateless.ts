// Internal: Streamable HTTP for the stateless revision (2026-07-28). A POST
// without Mcp-Session-Id whose MCP-Protocol-Version is not a session-era
// revision is one request, served on its own: the headers are checked
// against the body (SEP-2243), the message goes to a fresh server
// connection that knows it speaks per-request `_meta`, and the answer comes
// back as one JSON body, or as an SSE stream when notifications (progress,
// logs, a `subscriptions/listen` stream) come before it. Nothing is kept
// between requests, so any instance behind a load balancer can serve any
// request. Everything else goes on to the sessions layer unchanged.

import type {
  JsonRpcId,
  JsonRpcMessage,
  McpTransport,
  SessionHost,
  TransportSendOptions,
} from "../jsonrpc/types.ts";
import type { AuthInfo } from "../jsonrpc/types.ts";
import { RPC_ERROR } from "../jsonrpc/errors.ts";
import { checkMessage } from "../jsonrpc/_check.ts";
import {
  META,
  SESSION_PROTOCOL_VERSIONS,
  STATELESS_PROTOCOL_VERSIONS,
} from "../jsonrpc/_versions.ts";
import { isRecord } from "../_util/json_type.ts";
import { rpcError, SESSION_HEADER } from "./_response.ts";
import { authInfoOf } from "./_auth_info.ts";
import { readPostMessage } from "./_post.ts";

const VERSION_HEADER = "mcp-protocol-version";

/** The stateless layer: serves 2026-era requests, hands the rest to `next`. */
export interface StatelessLayer {
  (
    request: Request,
    next: (request: Request) => Promise<Response>,
  ): Promise<Response>;
  /** Ends every open response (listen streams among them). */
  close(): Promise<void>;
}

/**
 * Whether a request speaks the stateless revision: a POST with an
 * MCP-Protocol-Version that is not a session-era revision, and no session.
 * An unknown version counts, so that it is answered -32022 with the
 * versions this server speaks.
 */
export function isStatelessHttp(request: Request): boolean {
  if (request.method !== "POST") return false;
  if (request.headers.has(SESSION_HEADER)) return false;
  const version = request.headers.get(VERSION_HEADER)?.trim();
  return version !== undefined && version !== "" &&
    !SESSION_PROTOCOL_VERSIONS.includes(version);
}

/** Creates the stateless layer serving `host`. */
export function statelessHttp(
  host: SessionHost,
  options: { jsonResponse?: boolean } = {},
): StatelessLayer {
  const open = new Set<OneRequest>();
  const params = new ParamHeaders(host);

  async function serve(request: Request): Promise<Response> {
    const post = await readPostMessage(request, RPC_ERROR.INVALID_REQUEST);
    if (post.refusal !== undefined) return post.refusal;
    const message = post.message;
    if (Array.isArray(message)) {
      return rpcError(
        400,
        RPC_ERROR.INVALID_REQUEST,
        "Invalid Request: 2026-07-28 has no batches; send one JSON-RPC message per POST",
      );
    }
    const problem = checkMessage(message);
    if (problem !== undefined) {
      return rpcError(
        400,
        RPC_ERROR.INVALID_REQUEST,
        `Invalid Request: ${problem.problem}`,
        { id: problem.id },
      );
    }
    const rpc = message as JsonRpcMessage;
    // A notification or a response has nothing to answer: there is no session to apply it to.
    if (!("method" in rpc) || !("id" in rpc)) {
      return new Response(null, { status: 202 });
    }
    const mismatch = checkHeaders(request.headers, rpc.method, rpc.params) ??
      (rpc.method === "tools/call"
        ? await params.check(request.headers, rpc.params)
        : undefined);
    if (mismatch !== undefined) {
      return rpcError(400, RPC_ERROR.HEADER_MISMATCH, mismatch, {
        id: rpc.id,
      });
    }
    const one = new OneRequest(rpc.id, options.jsonResponse === true);
    open.add(one);
    one.ended.then(() => open.delete(one));
    try {
      await host.connect(one);
    } catch (error) {
      one.close();
      return rpcError(
        503,
        RPC_ERROR.CONNECTION_CLOSED,
        `Service Unavailable: the server cannot take the request: ${
          (error as Error).message
        }`,
        { id: rpc.id },
      );
    }
    one.deliver(rpc, authInfoOf(request));
    return await one.response;
  }

  const layer =
    ((request, next) =>
      isStatelessHttp(request)
        ? serve(request)
        : next(request)) as StatelessLayer;
  layer.close = async () => {
    params.close();
    await Promise.all([...open].map((one) => one.close()));
  };
  return layer;
}

/**
 * SEP-2243: MCP-Protocol-Version must equal the `_meta` version, Mcp-Method
 * the body's method, and Mcp-Name the tool or prompt name or the resource
 * URI. Header names are case-insensitive, values exact after trimming.
 */
function checkHeaders(
  headers: Headers,
  method: string,
  params: Record<string, unknown> | undefined,
): string | undefined {
  const version = headers.get(VERSION_HEADER)?.trim();
  const meta = isRecord(params?._meta) ? params._meta : undefined;
  const declared = meta?.[META.PROTOCOL_VERSION];
  if (typeof declared === "string" && declared !== version) {
    return `Header mismatch: MCP-Protocol-Version is ${
      JSON.stringify(version)
    } but _meta.${META.PROTOCOL_VERSION} is ${JSON.stringify(declared)}`;
  }
  const said = headers.get("mcp-method")?.trim();
  if (said !== method) {
    return said === undefined
      ? `Header mismatch: Mcp-Method is required and must be ${
        JSON.stringify(method)
      }`
      : `Header mismatch: Mcp-Method is ${
        JSON.stringify(said)
      } but the body's method is ${JSON.stringify(method)}`;
  }
  const field = method === "resources/read"
    ? "uri"
    : method === "tools/call" || method === "prompts/get"
    ? "name"
    : method === "tasks/get" || method === "tasks/update" ||
        method === "tasks/cancel"
    ? "taskId" // SEP-2663's routing header
    : undefined;
  const value = field === undefined ? undefined : params?.[field];
  if (typeof value !== "string") return undefined;
  const raw = headers.get("mcp-name");
  if (raw === null) {
    return `Header mismatch: Mcp-Name is required for ${method} and must be ${
      JSON.stringify(value)
    }`;
  }
  const named = decodeHeaderValue(raw.trim());
  if (named === undefined) {
    return `Header mismatch: Mcp-Name is not valid =?base64?…?= encoding: ${
      JSON.stringify(raw)
    }`;
  }
  if (named !== value) {
    return `Header mismatch: Mcp-Name is ${
      JSON.stringify(named)
    } but params.${field} is ${JSON.stringify(value)}`;
  }
  return undefined;
}

const BASE64 =
  /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * A header value as SEP-2243 encodes it: `=?base64?…?=` is Base64 of UTF-8
 * (undefined when that is malformed), anything else is literal.
 */
export function decodeHeaderValue(value: string): string | undefined {
  const match = /^=\?base64\?(.*)\?=$/.exec(value);
  if (match === null) return value;
  if (!BASE64.test(match[1])) return undefined;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(
      Uint8Array.from(atob(match[1]), (c) => c.charCodeAt(0)),
    );
  } catch {
    return undefined;
  }
}

/** Where a tool's argument is mirrored: its property and its type. */
type Mirrored = Map<string, { property: string; header: string }>;

/**
 * SEP-2243's custom headers: a tool's input property marked
 * `x-mcp-header: Name` is mirrored as `Mcp-Param-Name`, which must then
 * match the argument. The marks come from the server's own tools/list,
 * asked once through the host and again after each tools/list_changed,
 * which an internal `subscriptions/listen` reports.
 */
class ParamHeaders {
  readonly #host: SessionHost;
  #tools: Promise<Map<string, Mirrored>> | undefined;
  #listen: OneRequest | undefined;
  #closed = false;

  constructor(host: SessionHost) {
    this.#host = host;
  }

  async check(
    headers: Headers,
    params: Record<string, unknown> | undefined,
  ): Promise<string | undefined> {
    const mirrored = (await this.#marks()).get(String(params?.name));
    if (mirrored === undefined) return undefined;
    const args = isRecord(params?.arguments) ? params.arguments : {};
    for (const [lower, { property, header: name }] of mirrored) {
      const value = args[property];
      const raw = headers.get(`mcp-param-${lower}`);
      if (value === undefined || value === null) continue;
      if (raw === null) {
        return `Header mismatch: Mcp-Param-${name} is required when arguments.${property} is given`;
      }
      const decoded = decodeHeaderValue(raw.trim());
      if (decoded === undefined) {
        return `Header mismatch: Mcp-Param-${name} is not valid =?base64?…?= encoding: ${
          JSON.stringify(raw)
        }`;
      }
      if (decoded !== String(value)) {
        return `Header mismatch: Mcp-Param-${name} is ${
          JSON.stringify(decoded)
        } but arguments.${property} is ${JSON.stringify(value)}`;
      }
    }
    return undefined;
  }

  close(): void {
    this.#closed = true;
    this.#listen?.close();
  }

  #marks(): Promise<Map<string, Mirrored>> {
    if (this.#tools !== undefined) return this.#tools;
    if (!this.#closed && this.#listen === undefined) this.#watch();
    const loading = this.#load();
    this.#tools = loading;
    // A failed listing is asked again next time.
    loading.catch(() => {
      if (this.#tools === loading) this.#tools = undefined;
    });
    return loading;
  }

  #watch(): void {
    const listen = new OneRequest("forge-tools-watch", false, (message) => {
      if ("method" in message && message.method.endsWith("/list_changed")) {
        this.#tools = undefined;
      }
    });
    this.#listen = listen;
    listen.ended.then(() => {
      if (this.#listen === listen) this.#listen = undefined;
    });
    this.#host.connect(listen).then(() =>
      listen.deliver(internal("forge-tools-watch", "subscriptions/listen", {
        notifications: { toolsListChanged: true },
      }))
    ).catch(() => listen.close());
  }

  async #load(): Promise<Map<string, Mirrored>> {
    const marks = new Map<string, Mirrored>();
    let cursor: unknown;
    do {
      const one = new OneRequest("forge-tools-list", true);
      await this.#host.connect(one);
      one.deliver(
        internal(
          "forge-tools-list",
          "tools/list",
          cursor === undefined ? {} : { cursor },
        ),
      );
      const body = await (await one.response).json();
      if (!isRecord(body.result)) {
        throw new Error(`Cannot list tools: ${JSON.stringify(body.error)}`);
      }
      for (const tool of body.result.tools as Record<string, unknown>[]) {
        const mirrored = mirroredOf(tool.inputSchema);
        if (mirrored.size > 0) marks.set(String(tool.name), mirrored);
      }
      cursor = body.result.nextCursor;
    } while (typeof cursor === "string");
    return marks;
  }
}

/** The `x-mcp-header` marks of a tool's input schema, by lowercased header name. */
function mirroredOf(schema: unknown): Mirrored {
  const mirrored: Mirrored = new Map();
  const properties = isRecord(schema) ? schema.properties : undefined;
  if (!isRecord(properties)) return mirrored;
  for (const [property, definition] of Object.entries(properties)) {
    const name = isRecord(definition) ? definition["x-mcp-header"] : undefined;
    if (typeof name === "string" && name !== "") {
      mirrored.set(name.toLowerCase(), {
        property,
        header: name,
      });
    }
  }
  return mirrored;
}

/** A request the layer makes of its own server. */
function internal(
  id: string,
  method: string,
  params: Record<string, unknown>,
): JsonRpcMessage {
  return {
    jsonrpc: "2.0",
    id,
    method,
    params: {
      ...params,
      _meta: {
        [META.PROTOCOL_VERSION]: STATELESS_PROTOCOL_VERSIONS[0],
        [META.CLIENT_CAPABILITIES]: {},
      },
    },
  };
}

/** The HTTP status of a JSON-RPC error in 2026-07-28. */
function statusOf(code: number): number {
  switch (code) {
    case RPC_ERROR.METHOD_NOT_FOUND:
      return 404;
    case RPC_ERROR.PARSE_ERROR:
    case RPC_ERROR.INVALID_REQUEST:
    case RPC_ERROR.INVALID_PARAMS:
    case RPC_ERROR.HEADER_MISMATCH:
    case RPC_ERROR.MISSING_CLIENT_CAPABILITY:
    case RPC_ERROR.UNSUPPORTED_PROTOCOL_VERSION:
      return 400;
    case RPC_ERROR.INTERNAL_ERROR:
      return 500;
    default:
      return 200;
  }
}

const encoder = new TextEncoder();

/**
 * The transport of one stateless request: the server sees a connection
 * that carries one request with per-request `_meta`; what it sends becomes
 * the HTTP response.
 */
class OneRequest implements McpTransport {
  readonly stateless = true;
  readonly perRequestMeta = true;
  onmessage?: (
    message: JsonRpcMessage,
    extra?: Record<string, unknown>,
  ) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  /** Resolves with the HTTP response once its first message is known. */
  readonly response: Promise<Response>;
  /** Resolves once the transport has closed. */
  readonly ended: Promise<void>;
  readonly #id: JsonRpcId;
  readonly #json: boolean;
  readonly #listener: ((message: JsonRpcMessage) => void) | undefined;
  #respond!: (response: Response) => void;
  #end!: () => void;
  #stream: ReadableStreamDefaultController<Uint8Array> | undefined;
  #closed = false;

  constructor(
    id: JsonRpcId,
    json: boolean,
    listener?: (message: JsonRpcMessage) => void,
  ) {
    this.#id = id;
    this.#json = json;
    this.#listener = listener;
    this.response = new Promise((resolve) => (this.#respond = resolve));
    this.ended = new Promise((resolve) => (this.#end = resolve));
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  /** Hands the server the request, with its verified token (OAuth), if any. */
  deliver(message: JsonRpcMessage, authInfo?: AuthInfo): void {
    this.onmessage?.(
      message,
      authInfo === undefined ? undefined : { authInfo },
    );
  }

  send(
    message: JsonRpcMessage,
    _options?: TransportSendOptions,
  ): Promise<void> {
    if (this.#closed) return Promise.resolve();
    const final = !("method" in message) && message.id === this.#id;
    if (this.#listener !== undefined && !final) {
      // The layer's own listen stream: heard here, sent nowhere.
      this.#listener(message);
      return Promise.resolve();
    }
    if (this.#stream === undefined) {
      if (final) {
        const status = "error" in message ? statusOf(message.error.code) : 200;
        this.#respond(Response.json(message, { status }));
        this.close();
        return Promise.resolve();
      }
      // JSON answers drop what comes before the result.
      if (this.#json) return Promise.resolve();
      this.#open();
    }
    this.#stream!.enqueue(
      encoder.encode(`event: message\ndata: ${JSON.stringify(message)}\n\n`),
    );
    if (final) this.close();
    return Promise.resolve();
  }

  #open(): void {
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#stream = controller;
      },
      cancel: () => {
        this.#stream = undefined;
        this.close();
      },
    });
    this.#respond(
      new Response(body, {
        status: 200,
        headers: {
          "content-type": "text/event-stream",
          "cache-control": "no-cache",
        },
      }),
    );
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    try {
      this.#stream?.close();
    } catch {
      // Already cancelled by the client.
    }
    // A request the server never answered (it closed first) still gets a response.
    this.#respond(
      rpcError(
        503,
        RPC_ERROR.CONNECTION_CLOSED,
        "Service Unavailable: the server closed before answering",
        { id: this.#id },
      ),
    );
    this.onclose?.();
    this.#end();
    return Promise.resolve();
  }
}
