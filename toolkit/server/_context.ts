// The `ctx` a tool handler receives: one object per call, its methods on the
// prototype, its signal and logger made only when a handler uses them.

import type { LazyAbort } from "../_util/abort.ts";
import { isRecord, jsonType } from "../_util/json_type.ts";
import { ProtocolError } from "../jsonrpc/errors.ts";
import type { Connection } from "./_connection.ts";
import { undeclared } from "./_client_requests.ts";
import { META } from "../jsonrpc/_versions.ts";
import { LOG_LEVELS } from "./_log_levels.ts";
import type {
  AuthInfo,
  ElicitationParams,
  ElicitationResult,
  LogLevel,
  Root,
  SamplingParams,
  SamplingResult,
  ToolContext,
  ToolLogger,
  UrlElicitationParams,
} from "./context.ts";
import type { RequestExtra } from "./_session_types.ts";

// Internal state of a call context, under a symbol so that the context can be
// the prototype of the probe wrapper's `{ ...ctx, access }` object and its
// methods still find it (private fields would not be reachable from there).
const CALL = Symbol("call");

interface CallState {
  connection: Connection;
  abort: LazyAbort;
  extra: RequestExtra;
  logger: ToolLogger | undefined;
  /** Set by the pipeline for a tool that may run as a task. */
  detach: (() => Promise<void>) | undefined;
  /** The task the call runs as, once it does. */
  taskId: string | undefined;
}

/**
 * Lets a call become a task: `detach` is what `ctx.detach()` runs (once;
 * `null` when the call cannot be a task, so `ctx.detach()` does nothing).
 */
export function allowDetach(
  ctx: CallContext,
  detach: (() => Promise<void>) | null,
): void {
  ctx[CALL].detach = detach ?? (() => Promise.resolve());
}

/** The call now runs as task `taskId`: what it asks of the client goes through `extra`. */
export function runAsTask(
  ctx: CallContext,
  taskId: string,
  extra: RequestExtra,
): void {
  const call = ctx[CALL];
  call.taskId = taskId;
  call.extra = extra;
}

/** Logs a call's message to stderr and, at the client's level, as a notification. */
function sendLog(
  call: CallState,
  toolName: string,
  level: LogLevel,
  message: string,
  data: unknown,
): void {
  console.error(
    `[${toolName}] ${level}: ${message}`,
    ...(data === undefined ? [] : [data]),
  );
  const wanted = call.connection.logLevel;
  if (
    wanted !== undefined &&
    LOG_LEVELS.indexOf(level) < LOG_LEVELS.indexOf(wanted)
  ) {
    return;
  }
  call.extra.sendNotification({
    method: "notifications/message",
    params: {
      level,
      logger: toolName,
      data: data === undefined ? message : { message, data },
    },
  }).catch(() => {});
}

/**
 * The `ctx` a handler receives. One object per call with its methods on the
 * prototype: a call allocates no closures, and the signal and the logger are
 * made only when a handler uses them.
 */
export class CallContext implements ToolContext {
  readonly meta: Readonly<Record<string, unknown>>;
  readonly requestId: string | number;
  readonly sessionId: string | undefined;
  readonly toolName: string;
  readonly auth: AuthInfo | undefined;
  readonly [CALL]: CallState;

  constructor(
    connection: Connection,
    toolName: string,
    meta: Record<string, unknown>,
    abort: LazyAbort,
    extra: RequestExtra,
  ) {
    this.meta = meta;
    this.requestId = extra.requestId;
    this.sessionId = extra.sessionId;
    this.toolName = toolName;
    this.auth = extra.authInfo;
    this[CALL] = {
      connection,
      abort,
      extra,
      logger: undefined,
      detach: undefined,
      taskId: undefined,
    };
  }

  get taskId(): string | undefined {
    return this[CALL].taskId;
  }

  detach(): Promise<void> {
    const { detach, taskId } = this[CALL];
    if (taskId !== undefined) return Promise.resolve();
    if (detach === undefined) {
      return Promise.reject(
        new Error(
          `Cannot detach: tool ${this.toolName} does not run as a task (set task in its definition)`,
        ),
      );
    }
    return detach();
  }

  get signal(): AbortSignal {
    return this[CALL].abort.signal;
  }

  get log(): ToolLogger {
    const call = this[CALL];
    if (call.logger !== undefined) return call.logger;
    const toolName = this.toolName;
    const log = (level: LogLevel, message: string, data?: unknown) =>
      sendLog(call, toolName, level, message, data);
    call.logger = {
      debug: (m, d) => log("debug", m, d),
      info: (m, d) => log("info", m, d),
      warning: (m, d) => log("warning", m, d),
      error: (m, d) => log("error", m, d),
      log,
    };
    return call.logger;
  }

  async progress(
    done: number,
    total?: number,
    message?: string,
  ): Promise<void> {
    const { taskId, extra } = this[CALL];
    const progressToken = this.meta.progressToken;
    // A task's progress is its status message, whether or not the call
    // asked for progress notifications.
    if (progressToken === undefined && taskId === undefined) return;
    await extra.sendNotification({
      method: "notifications/progress",
      params: {
        progressToken,
        progress: done,
        ...(total === undefined ? {} : { total }),
        ...(message === undefined ? {} : { message }),
      },
    });
  }

  async sample(params: SamplingParams): Promise<SamplingResult> {
    return await this[CALL].extra.sendRequest({
      method: "sampling/createMessage",
      params,
    }) as SamplingResult;
  }

  async roots(): Promise<Root[]> {
    const { connection, extra } = this[CALL];
    const declared = connection.session.clientCapabilities?.roots as
      | { listChanged?: unknown }
      | undefined;
    if (declared === undefined) {
      throw new Error(
        `Cannot list roots: ${
          undeclared(connection.session.askingEra, "the roots capability")
        }`,
      );
    }
    if (connection.roots !== undefined) return copyRoots(connection.roots);
    const version = connection.rootsVersion;
    const answer = await extra.sendRequest({
      method: "roots/list",
      params: {},
    });
    const roots = checkRoots(answer);
    // Kept only if the client will say when they change, and they did not meanwhile.
    if (declared.listChanged === true && connection.rootsVersion === version) {
      connection.roots = roots;
    }
    return copyRoots(roots);
  }

  async elicit(
    params: ElicitationParams | UrlElicitationParams,
  ): Promise<ElicitationResult> {
    const { connection, extra } = this[CALL];
    if (params?.mode === "url") {
      const checked = checkUrlElicitation(params, "Cannot elicit by URL");
      requireUrlMode(connection, "Cannot elicit by URL");
      // Tracked before it is sent: the user may finish before the client answers.
      connection.elicitations.add(checked.elicitationId);
      let answer: ElicitationResult;
      try {
        answer = await extra.sendRequest({
          method: "elicitation/create",
          params: checked as unknown as Record<string, unknown>,
        }) as ElicitationResult;
      } catch (cause) {
        connection.elicitations.delete(checked.elicitationId);
        throw cause;
      }
      // Declined or dismissed: no completion will follow.
      if (answer.action !== "accept") {
        connection.elicitations.delete(checked.elicitationId);
      }
      return answer;
    }
    const declared = elicitationCapability(connection);
    if (
      declared !== undefined && declared.form === undefined &&
      declared.url !== undefined
    ) {
      throw new Error(
        `Cannot elicit a form: ${
          connection.session.statelessRequest
            ? `the request's _meta["${META.CLIENT_CAPABILITIES}"]`
            : "the client"
        } declared elicitation.url only`,
      );
    }
    return await extra.sendRequest({
      method: "elicitation/create",
      params,
    }) as ElicitationResult;
  }

  urlElicitationRequired(
    elicitations: UrlElicitationParams | UrlElicitationParams[],
  ): Error {
    const action = "Cannot require URL elicitation";
    const list = (Array.isArray(elicitations) ? elicitations : [elicitations])
      .map((e) => checkUrlElicitation(e, action));
    if (list.length === 0) {
      throw new TypeError(`${action}: expected at least one elicitation`);
    }
    const { connection } = this[CALL];
    requireUrlMode(connection, action);
    for (const e of list) connection.elicitations.add(e.elicitationId);
    return new UrlElicitationRequired(list);
  }
}

/** A client's `roots/list` answer, checked: `{ roots: [{ uri, name? }] }`. */
function checkRoots(answer: Record<string, unknown>): readonly Root[] {
  const roots = answer.roots;
  if (
    !Array.isArray(roots) ||
    !roots.every((root) =>
      isRecord(root) && typeof root.uri === "string" &&
      (root.name === undefined || typeof root.name === "string")
    )
  ) {
    throw new Error(
      `Cannot list roots: the client answered roots/list with ${
        JSON.stringify(answer).slice(0, 200)
      }, expected { roots: [{ uri, name? }] }`,
    );
  }
  return roots as Root[];
}

/** Copies, so a handler that edits its roots does not edit the cache. */
function copyRoots(roots: readonly Root[]): Root[] {
  return roots.map((root) => structuredClone(root));
}

/** MCP's error code for a request that needs URL elicitation first (2025-11-25). */
const URL_ELICITATION_REQUIRED = -32042;

/** -32042, whose `data` carries the elicitations the client should show. */
class UrlElicitationRequired extends ProtocolError {
  constructor(elicitations: UrlElicitationParams[]) {
    super(
      URL_ELICITATION_REQUIRED,
      `URL elicitation required: ${
        elicitations.map((e) => e.message).join("; ")
      }`,
    );
    // Defined, not declared: whether or not ProtocolError has a `data` field
    // of its own, the session answers with this one.
    Object.defineProperty(this, "data", {
      value: { elicitations },
      enumerable: true,
    });
  }
}

function elicitationCapability(
  connection: Connection,
): { form?: unknown; url?: unknown } | undefined {
  const declared = connection.session.clientCapabilities?.elicitation;
  return isRecord(declared) ? declared : undefined;
}

function requireUrlMode(connection: Connection, action: string): void {
  if (elicitationCapability(connection)?.url === undefined) {
    throw new Error(
      `${action}: ${
        undeclared(connection.session.askingEra, "elicitation.url")
      }`,
    );
  }
}

/** A checked copy of URL-mode params: the fields MCP defines, nothing else. */
function checkUrlElicitation(
  params: UrlElicitationParams,
  action: string,
): UrlElicitationParams {
  if (!isRecord(params)) {
    throw new TypeError(
      `${action}: expected { mode: "url", message, url, elicitationId }, got ${
        jsonType(params)
      }`,
    );
  }
  const { message, url, elicitationId } = params;
  if (typeof message !== "string") {
    throw new TypeError(
      `${action}: message: expected a string, got ${jsonType(message)}`,
    );
  }
  const scheme = typeof url === "string" && URL.canParse(url)
    ? new URL(url).protocol
    : undefined;
  if (scheme !== "https:" && scheme !== "http:") {
    throw new TypeError(
      `${action}: url: expected an absolute https: or http: URL, got ${
        JSON.stringify(url)
      }`,
    );
  }
  if (typeof elicitationId !== "string" || elicitationId === "") {
    throw new TypeError(
      `${action}: elicitationId: expected a non-empty string, got ${
        JSON.stringify(elicitationId)
      }`,
    );
  }
  return { mode: "url", message, url, elicitationId };
}
