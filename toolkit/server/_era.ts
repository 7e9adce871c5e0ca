// The two eras of MCP a session speaks. Through 2025-11-25 a client opens a
// session with `initialize` and the server remembers what it said; from
// 2026-07-28 every request carries its protocol version and the client's
// capabilities in `_meta`, and nothing is remembered between requests. This
// file decides which era a request belongs to and holds what the stateless
// era needs: the `_meta` check, the result decoration (`resultType`, caching
// hints) and the signed `requestState` of input-required results.

import { isRecord, jsonType } from "../_util/json_type.ts";
import { ProtocolError, RPC_ERROR } from "../jsonrpc/errors.ts";
import {
  META,
  SESSION_PROTOCOL_VERSIONS,
  STATELESS_PROTOCOL_VERSIONS,
} from "../jsonrpc/_versions.ts";

export {
  META,
  SESSION_PROTOCOL_VERSIONS,
  STATELESS_PROTOCOL_VERSION,
  STATELESS_PROTOCOL_VERSIONS,
} from "../jsonrpc/_versions.ts";
import { LOG_LEVELS } from "./_log_levels.ts";
import { TASKS_EXTENSION } from "./_task_checks.ts";

export {
  loadRequestSigning,
  requestSigningLoaded,
  RequestStateSigner,
} from "../jsonrpc/_request_state.ts";
import type { LogLevel } from "./context.ts";
import { checkWholeNumber } from "../_util/whole_number.ts";

/** Methods only the stateless revision has. */
const STATELESS_ONLY = new Set(["server/discover", "subscriptions/listen"]);

/** Methods the stateless revision removed: -32601 there. */
export const REMOVED_METHODS: ReadonlySet<string> = new Set([
  "initialize",
  "ping",
  "logging/setLevel",
  "resources/subscribe",
  "resources/unsubscribe",
]);

/**
 * Extensions defined for the stateless revision only: a session-era client
 * is not offered them. The tasks extension answers `resultType: "task"`,
 * which 2025-11-25 clients take for a final result, and its
 * `execution.taskSupport` reads to them as 2025-11-25's own core tasks.
 */
const STATELESS_EXTENSIONS: ReadonlySet<string> = new Set([TASKS_EXTENSION]);

/** The capabilities `initialize` answers: without the stateless-only extensions. */
export function sessionCapabilities(
  capabilities: Record<string, unknown>,
): Record<string, unknown> {
  const extensions = capabilities.extensions;
  if (!isRecord(extensions)) return capabilities;
  const kept = Object.fromEntries(
    Object.entries(extensions).filter(([id]) => !STATELESS_EXTENSIONS.has(id)),
  );
  const { extensions: _, ...rest } = capabilities;
  return Object.keys(kept).length === 0 ? rest : { ...rest, extensions: kept };
}

/** Methods whose results carry `ttlMs` and `cacheScope` (SEP-2549). */
const CACHEABLE = new Set([
  "server/discover",
  "tools/list",
  "prompts/list",
  "resources/list",
  "resources/templates/list",
  "resources/read",
]);

/** Methods that may answer an input-required result (SEP-2322). */
export const INPUT_METHODS: ReadonlySet<string> = new Set([
  "tools/call",
  "prompts/get",
  "resources/read",
]);

/** How a server wants its list and read results cached by clients (SEP-2549). */
export interface CacheHints {
  /** How long a client may reuse a result, in milliseconds. */
  ttlMs: number;
  /** Whether a shared cache may serve it across users. */
  cacheScope: "public" | "private";
}

/** Nothing is cached unless the server says so. */
export const DEFAULT_CACHE_HINTS: CacheHints = {
  ttlMs: 0,
  cacheScope: "private",
};

/** What a stateless request's `_meta` says. */
export interface RequestMeta {
  protocolVersion: string;
  clientCapabilities: Record<string, unknown>;
  clientInfo: Record<string, unknown> | undefined;
  logLevel: string | undefined;
}

/**
 * Whether a request is of the stateless era: it names its protocol version
 * in `_meta`, uses a method only that era has, or came over a transport
 * that said so (`perRequestMeta`).
 */
export function isStatelessRequest(
  method: string,
  params: unknown,
  perRequestMeta: boolean,
): boolean {
  if (perRequestMeta || STATELESS_ONLY.has(method)) return true;
  const meta = isRecord(params) ? params._meta : undefined;
  return isRecord(meta) && META.PROTOCOL_VERSION in meta;
}

/**
 * Checks a stateless request's `_meta`: -32602 naming what is missing or
 * malformed, -32022 with the supported versions for a version this server
 * does not speak statelessly.
 */
export function checkRequestMeta(method: string, params: unknown): RequestMeta {
  const meta = isRecord(params) ? params._meta : undefined;
  if (!isRecord(meta)) {
    throw new ProtocolError(
      RPC_ERROR.INVALID_PARAMS,
      `Invalid params for ${method}: _meta: expected an object with ${META.PROTOCOL_VERSION} and ${META.CLIENT_CAPABILITIES}, got ${
        meta === undefined ? "nothing" : jsonType(meta)
      }`,
    );
  }
  const version = meta[META.PROTOCOL_VERSION];
  if (typeof version !== "string") {
    throw new ProtocolError(
      RPC_ERROR.INVALID_PARAMS,
      `Invalid params for ${method}: _meta.${META.PROTOCOL_VERSION}: expected string, got ${
        version === undefined ? "nothing" : jsonType(version)
      }`,
    );
  }
  const capabilities = meta[META.CLIENT_CAPABILITIES];
  if (!isRecord(capabilities)) {
    throw new ProtocolError(
      RPC_ERROR.INVALID_PARAMS,
      `Invalid params for ${method}: _meta.${META.CLIENT_CAPABILITIES}: expected object, got ${
        capabilities === undefined ? "nothing" : jsonType(capabilities)
      }`,
    );
  }
  if (!STATELESS_PROTOCOL_VERSIONS.includes(version)) {
    throw unsupportedVersion(version);
  }
  const info = meta[META.CLIENT_INFO];
  const level = meta[META.LOG_LEVEL];
  checkLogLevel(method, level);
  return {
    protocolVersion: version,
    clientCapabilities: capabilities,
    clientInfo: isRecord(info) ? info : undefined,
    logLevel: typeof level === "string" ? level : undefined,
  };
}

/** -32022, with the versions a client may retry with and the one it asked for. */
export function unsupportedVersion(requested: string): ProtocolError {
  const supported = [...STATELESS_PROTOCOL_VERSIONS];
  return new ProtocolError(
    RPC_ERROR.UNSUPPORTED_PROTOCOL_VERSION,
    `Unsupported protocol version: ${
      JSON.stringify(requested)
    }; this server speaks ${supported.join(", ")} per request, and ${
      SESSION_PROTOCOL_VERSIONS[0]
    } and older after initialize`,
    { data: { supported, requested } },
  );
}

/** -32021, naming the capability as a ClientCapabilities object. */
export function missingCapability(
  capability: string,
  method: string,
): ProtocolError {
  return new ProtocolError(
    RPC_ERROR.MISSING_CLIENT_CAPABILITY,
    `Missing client capability: ${method} needs ${capability}, which the request's _meta.${META.CLIENT_CAPABILITIES} does not declare`,
    { data: { requiredCapabilities: { [capability]: {} } } },
  );
}

/** A stateless result: `resultType`, and caching hints where the revision wants them. */
export function statelessResult(
  method: string,
  result: unknown,
  hints: CacheHints,
): Record<string, unknown> {
  const base = isRecord(result) ? result : {};
  const decorated: Record<string, unknown> = {
    ...base,
    resultType: typeof base.resultType === "string"
      ? base.resultType
      : "complete",
  };
  if (CACHEABLE.has(method)) {
    decorated.ttlMs ??= hints.ttlMs;
    decorated.cacheScope ??= hints.cacheScope;
  }
  return decorated;
}

/** Checks a server author's cache hints. */
export function checkCacheHints(
  hints: Partial<CacheHints> | undefined,
): CacheHints {
  if (hints === undefined) return DEFAULT_CACHE_HINTS;
  if (!isRecord(hints)) {
    throw new TypeError(
      `Cannot create server: cache must be an object { ttlMs, cacheScope }, got ${
        jsonType(hints)
      }`,
    );
  }
  const ttlMs = hints.ttlMs ?? DEFAULT_CACHE_HINTS.ttlMs;
  checkWholeNumber("Cannot create server", "cache.ttlMs", ttlMs, {
    unit: "milliseconds",
  });
  const cacheScope = hints.cacheScope ?? DEFAULT_CACHE_HINTS.cacheScope;
  if (cacheScope !== "public" && cacheScope !== "private") {
    throw new TypeError(
      `Cannot create server: cache.cacheScope must be "public" or "private", got ${
        JSON.stringify(cacheScope)
      }`,
    );
  }
  return { ttlMs, cacheScope };
}

/**
 * Whether a log message at `level` may go to a stateless request that asked
 * for `wanted` (its `_meta` log level): none when it asked for none.
 */
export function logWanted(wanted: string | undefined, level: unknown): boolean {
  if (wanted === undefined) return false;
  return LOG_LEVELS.indexOf(String(level) as LogLevel) >=
    LOG_LEVELS.indexOf(wanted as LogLevel);
}

/** Checks `_meta`'s log level. */
export function checkLogLevel(method: string, level: unknown): void {
  if (level !== undefined && !LOG_LEVELS.includes(level as LogLevel)) {
    throw new ProtocolError(
      RPC_ERROR.INVALID_PARAMS,
      `Invalid params for ${method}: _meta.${META.LOG_LEVEL}: expected one of ${
        LOG_LEVELS.join(", ")
      }, got ${JSON.stringify(level)}`,
    );
  }
}

/** The subscription filter of `subscriptions/listen`. */
export interface ListenFilter {
  toolsListChanged: boolean;
  promptsListChanged: boolean;
  resourcesListChanged: boolean;
  resourceSubscriptions: string[];
  /** Tasks whose `notifications/tasks` the stream wants (SEP-2663). */
  taskIds: string[];
}

/** Checks `subscriptions/listen`'s `notifications` filter. */
export function checkListenFilter(
  params: Record<string, unknown>,
): ListenFilter {
  const filter = params.notifications;
  if (!isRecord(filter)) {
    throw new ProtocolError(
      RPC_ERROR.INVALID_PARAMS,
      `Invalid params for subscriptions/listen: notifications: expected an object such as { toolsListChanged: true }, got ${
        filter === undefined ? "nothing" : jsonType(filter)
      }`,
    );
  }
  const flag = (key: string): boolean => {
    const value = filter[key];
    if (value !== undefined && typeof value !== "boolean") {
      throw new ProtocolError(
        RPC_ERROR.INVALID_PARAMS,
        `Invalid params for subscriptions/listen: notifications.${key}: expected boolean, got ${
          jsonType(value)
        }`,
      );
    }
    return value === true;
  };
  const uris = filter.resourceSubscriptions ?? [];
  if (!Array.isArray(uris) || uris.some((uri) => typeof uri !== "string")) {
    throw new ProtocolError(
      RPC_ERROR.INVALID_PARAMS,
      "Invalid params for subscriptions/listen: notifications.resourceSubscriptions: expected an array of URI strings",
    );
  }
  const taskIds = filter.taskIds ?? [];
  if (!Array.isArray(taskIds) || taskIds.some((id) => typeof id !== "string")) {
    throw new ProtocolError(
      RPC_ERROR.INVALID_PARAMS,
      "Invalid params for subscriptions/listen: notifications.taskIds: expected an array of task id strings",
    );
  }
  return {
    toolsListChanged: flag("toolsListChanged"),
    promptsListChanged: flag("promptsListChanged"),
    resourcesListChanged: flag("resourcesListChanged"),
    resourceSubscriptions: uris as string[],
    taskIds: taskIds as string[],
  };
}

/** Whether a listen stream with `filter` wants this notification. */
export function wants(
  filter: ListenFilter,
  method: string,
  params: Record<string, unknown> | undefined,
): boolean {
  switch (method) {
    case "notifications/tools/list_changed":
      return filter.toolsListChanged;
    case "notifications/prompts/list_changed":
      return filter.promptsListChanged;
    case "notifications/resources/list_changed":
      return filter.resourcesListChanged;
    case "notifications/resources/updated":
      return filter.resourceSubscriptions.includes(String(params?.uri));
    case "notifications/tasks":
      return filter.taskIds.includes(String(params?.taskId));
    default:
      return false;
  }
}

/** The filter as the acknowledgement echoes it: only what was asked for. */
export function acknowledged(filter: ListenFilter): Record<string, unknown> {
  const echo: Record<string, unknown> = {};
  if (filter.toolsListChanged) echo.toolsListChanged = true;
  if (filter.promptsListChanged) echo.promptsListChanged = true;
  if (filter.resourcesListChanged) echo.resourcesListChanged = true;
  if (filter.resourceSubscriptions.length > 0) {
    echo.resourceSubscriptions = [...filter.resourceSubscriptions];
  }
  if (filter.taskIds.length > 0) echo.taskIds = [...filter.taskIds];
  return echo;
}
