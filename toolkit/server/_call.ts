// The tools/call pipeline: the call layers, then the probe guard, then
// argument decoding, the handler and the result check; what a failure turns
// into; time limits; and the calls in flight that shutdown waits for.
//
// A call whose layers and handler all answer synchronously is answered
// without a promise, so nothing of it outlives the turn it arrived in (less
// garbage, and far less that survives into the old generation under load).

import { decode, type DecodeResult } from "../args/decode.ts";
import { formatProblems } from "../args/argument_error.ts";
import { describeIssue } from "../args/_issues.ts";
import { didYouMean } from "../_util/nearest_names.ts";
import type { JsonSchema, SchemaIssue } from "../schema.ts";
import { LazyAbort } from "../_util/abort.ts";
import { isRecord, jsonType } from "../_util/json_type.ts";
import { isThenable } from "../_util/thenable.ts";
import { ProtocolError, RPC_ERROR } from "../jsonrpc/errors.ts";
import { probeGuard } from "../patterns/_probe_guard.ts";
import { META_PERMISSION_PATTERNS } from "../patterns/probe_meta.ts";
import { type CallToolResult, error, ToolError } from "../result/result.ts";
import type { Connection } from "./_connection.ts";
import { allowDetach, CallContext, runAsTask } from "./_context.ts";
import type { CallLayer, ToolCall } from "./layer.ts";
import type { RegisteredTool, ToolRegistry } from "./_registry.ts";
import type { RequestExtra } from "./_session_types.ts";
import {
  declaresTasks,
  ownerOf,
  type TaskMode,
  tasksNotDeclared,
} from "./_task_checks.ts";
import type { TaskManager } from "./_tasks.ts";
import { permissionDenied } from "./_permission_denied.ts";
import { withResolvers } from "../_util/runtime.ts";

/** The `meta` of a call without `_meta`: one frozen object, not one per call. */
const NO_META: Readonly<Record<string, unknown>> = Object.freeze({});

type Answer = CallToolResult | Promise<CallToolResult>;

/** One call on its way through the pipeline. */
class Call implements ToolCall {
  readonly name: string;
  readonly tool: RegisteredTool["listed"];
  readonly arguments: Readonly<Record<string, unknown>>;
  readonly ctx: CallContext;
  readonly registered: RegisteredTool;
  readonly abort: LazyAbort;
  /** The task it runs as, once detached: the request's cancellation no longer reaches it. */
  taskId: string | undefined = undefined;
  /** The request, kept for a mounted tool's own pipeline. */
  readonly request: MountedRequest | undefined;

  constructor(
    registered: RegisteredTool,
    args: Record<string, unknown>,
    ctx: CallContext,
    options: { abort: LazyAbort; request?: MountedRequest },
  ) {
    this.name = registered.def.name;
    this.tool = registered.listed;
    this.arguments = args;
    this.ctx = ctx;
    this.registered = registered;
    this.abort = options.abort;
    this.request = options.request;
  }
}

interface MountedRequest {
  connection: Connection;
  params: Record<string, unknown>;
  extra: RequestExtra;
}

/**
 * The request as a mounted server's pipeline sees it: the parent's, but
 * aborted with the parent's call (its time limit, its shutdown), which the
 * client's cancellation aborts too.
 */
class MountedExtra implements RequestExtra {
  #extra: RequestExtra;
  #abort: LazyAbort;

  constructor(extra: RequestExtra, abort: LazyAbort) {
    this.#extra = extra;
    this.#abort = abort;
  }

  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  onabort(listener: (reason: unknown) => void): void {
    this.#abort.onabort(listener);
  }

  get requestId(): RequestExtra["requestId"] {
    return this.#extra.requestId;
  }

  get sessionId(): string | undefined {
    return this.#extra.sessionId;
  }

  get authInfo(): RequestExtra["authInfo"] {
    return this.#extra.authInfo;
  }

  sendNotification = (
    notification: { method: string; params: Record<string, unknown> },
  ): Promise<void> => this.#extra.sendNotification(notification);

  sendRequest = (
    request: { method: string; params: Record<string, unknown> },
  ): Promise<Record<string, unknown>> => this.#extra.sendRequest(request);
}

/** The tools of the servers mounted in this one, as the pipeline finds them. */
export interface MountedTools {
  /** The enabled mounted tool exposed as `name`. */
  mountedTool(name: string): RegisteredTool | undefined;
  /** The enabled mounted tools' exposed names. */
  mountedToolNames(): string[];
}

/** Runs tool calls for one server. */
export class CallPipeline {
  #registry: ToolRegistry;
  #timeoutMs: number | undefined;
  #layers: CallLayer[] = [];
  #chain: (call: Call) => Answer;
  /** Calls whose answers are pending, until each has its answer. */
  #inFlight = new Set<LazyAbort>();
  /** Resolves the wait for `#inFlight` to empty, during shutdown. */
  #idle: (() => void) | undefined;
  #draining = false;

  #tasks: TaskManager;
  /** The tools of mounted servers, once one is mounted. */
  mounted: MountedTools | undefined;

  constructor(
    registry: ToolRegistry,
    timeoutMs: number | undefined,
    tasks: TaskManager,
  ) {
    this.#registry = registry;
    this.#timeoutMs = timeoutMs;
    this.#tasks = tasks;
    this.#chain = this.#compose();
  }

  /** Adds a layer after those already added (nearer the tool). */
  use(layer: CallLayer): void {
    this.#layers.push(layer);
    this.#chain = this.#compose();
  }

  /** Runs the `tools/call` of `name` with its request params. */
  run(
    connection: Connection,
    name: string,
    params: Record<string, unknown>,
    extra: RequestExtra,
  ): Answer {
    return this.#run(connection, name, { params, extra, mounted: false });
  }

  /**
   * Runs a call that came through a server this one is mounted in: as a
   * session-era call, never a task (the parent keeps no record of this
   * server's tasks, so a task tool runs to completion).
   */
  runMounted(
    connection: Connection,
    name: string,
    params: Record<string, unknown>,
    extra: RequestExtra,
  ): Answer {
    return this.#run(connection, name, { params, extra, mounted: true });
  }

  #run(
    connection: Connection,
    name: string,
    request: {
      params: Record<string, unknown>;
      extra: RequestExtra;
      mounted: boolean;
    },
  ): Answer {
    const { params, extra } = request;
    const registered = this.#registry.get(name) ??
      this.mounted?.mountedTool(name);
    if (registered === undefined) {
      const names = this.mounted === undefined
        ? this.#registry.names()
        : [...this.#registry.names(), ...this.mounted.mountedToolNames()];
      throw new ProtocolError(
        RPC_ERROR.INVALID_PARAMS,
        `Unknown tool: ${JSON.stringify(name)}${didYouMean(name, names)}`,
      );
    }
    if (this.#draining) {
      throw new ProtocolError(
        RPC_ERROR.INTERNAL_ERROR,
        "Server is shutting down: the call was not started",
      );
    }
    const args = params.arguments;
    if (args !== undefined && !isRecord(args)) {
      // The model chose the arguments: a domain error it can correct.
      return error(
        `Invalid arguments for tool ${
          JSON.stringify(name)
        }:\narguments: expected object, got ${jsonType(args)}`,
      );
    }
    const meta = (params._meta ?? NO_META) as Record<string, unknown>;
    // A probe never runs the handler and answers at once: never a task.
    const mode = meta[META_PERMISSION_PATTERNS] === undefined
      ? registered.task
      : undefined;
    // Tasks are a 2026-07-28 extension: a session-era (2025) client was not
    // offered it, so even a "required" tool runs to completion for it.
    const stateless = connection.session.statelessRequest && !request.mounted;
    const asTask = mode !== undefined && stateless &&
      declaresTasks(connection.session.clientCapabilities);
    if (mode?.support === "required" && stateless && !asTask) {
      throw tasksNotDeclared(`tool ${JSON.stringify(name)}`);
    }
    const abort = new LazyAbort();
    const ctx = new CallContext(connection, name, meta, abort, extra);
    const call = new Call(
      registered,
      (args ?? NO_META) as Record<string, unknown>,
      ctx,
      registered.delegate === undefined
        ? { abort }
        : { abort, request: { connection, params, extra } },
    );
    // A cancelled call gets no answer; aborting settles it so it stops counting as in flight.
    extra.onabort((reason) => {
      if (call.taskId === undefined) abort.abort(reason);
    });
    if (mode !== undefined) {
      if (asTask) return this.#task(call, mode, connection, extra);
      allowDetach(ctx, null);
    }
    let outcome: Answer;
    try {
      outcome = this.#chain(call);
    } catch (cause) {
      return failed(call, cause);
    }
    // Answered synchronously: never in flight, nothing to time out.
    if (!isThenable(outcome)) return outcome;
    return this.#settle(call, outcome);
  }

  /**
   * A call of a task tool from a client that declared tasks: answered with
   * the CreateTaskResult once the task is stored (at the start, or when the
   * handler calls `ctx.detach()`), while the handler runs on and its result
   * goes to the task; a handler that ends before detaching answers itself.
   */
  async #task(
    call: Call,
    mode: TaskMode,
    connection: Connection,
    extra: RequestExtra,
  ): Promise<CallToolResult> {
    const tasks = this.#tasks;
    const answer = withResolvers<CallToolResult>();
    let created: Promise<void> | undefined;
    const detach = () =>
      created ??= tasks.create({
        toolName: call.name,
        mode,
        owner: ownerOf(extra.authInfo),
        abort: call.abort,
        capabilities: connection.session.clientCapabilities ?? {},
      }).then((result) => {
        const taskId = result.taskId as string;
        call.taskId = taskId;
        runAsTask(call.ctx, taskId, tasks.extra(taskId, extra));
        answer.resolve(result as unknown as CallToolResult);
      });
    allowDetach(call.ctx, detach);
    if (mode.detach === "start") {
      try {
        await detach();
      } catch (cause) {
        console.error(`Tool ${call.name}: cannot create its task:`, cause);
        throw new ProtocolError(
          RPC_ERROR.INTERNAL_ERROR,
          `Cannot create a task for tool ${call.name}: ${
            cause instanceof Error ? cause.message : String(cause)
          }`,
        );
      }
    }
    const settled = (async () => {
      let outcome: Answer;
      try {
        outcome = this.#chain(call);
      } catch (cause) {
        return failed(call, cause);
      }
      return isThenable(outcome) ? await this.#settle(call, outcome) : outcome;
    })();
    const end = async (ok: boolean, value: unknown) => {
      // A detach still being stored decides where the outcome goes.
      await created?.catch(() => {});
      const { taskId } = call;
      if (taskId === undefined) {
        if (ok) answer.resolve(value as CallToolResult);
        else answer.reject(value);
      } else if (ok) {
        await tasks.complete(taskId, value as CallToolResult);
      } else {
        await tasks.fail(taskId, value);
      }
    };
    settled.then((result) => end(true, result), (cause) => end(false, cause))
      .catch((cause) => {
        console.error(
          `Tool ${call.name}: cannot store its task's outcome:`,
          cause,
        );
      });
    return await answer.promise;
  }

  /** Refuses new calls from now on. */
  drain(): void {
    this.#draining = true;
  }

  /** How many calls are waiting for their answers. */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  /** Resolves once no call is in flight. */
  whenIdle(): Promise<void> {
    if (this.#inFlight.size === 0) return Promise.resolve();
    return new Promise((resolve) => (this.#idle = resolve));
  }

  /** Aborts every call in flight with `reason`. */
  abortAll(reason: ProtocolError): void {
    for (const abort of this.#inFlight) abort.abort(reason);
  }

  /**
   * The layers, then the probe guard, then the tool: built once per change.
   * A mounted tool's call goes from the last layer to its own server.
   */
  #compose(): (call: Call) => Answer {
    let run: (call: Call) => Answer = (call) =>
      call.request === undefined
        ? probeGuard(call, () => invoke(call))
        : delegate(call, call.request);
    for (let i = this.#layers.length - 1; i >= 0; i--) {
      const layer = this.#layers[i];
      const inner = run;
      run = (call) => layer(call, () => inner(call));
    }
    return run;
  }

  async #settle(
    call: Call,
    run: PromiseLike<CallToolResult>,
  ): Promise<CallToolResult> {
    const { abort, name } = call;
    const timeoutMs = call.registered.def.timeoutMs ?? this.#timeoutMs;
    const timer = timeoutMs === undefined ? undefined : setTimeout(() => {
      abort.abort(
        new ProtocolError(
          RPC_ERROR.REQUEST_TIMEOUT,
          `Tool ${name} timed out after ${timeoutMs} ms`,
        ),
      );
    }, timeoutMs);
    this.#inFlight.add(abort);
    try {
      // The answer does not wait for a handler that ignores its aborted signal.
      return await abort.race(Promise.resolve(run));
    } catch (cause) {
      return failed(call, cause);
    } finally {
      clearTimeout(timer);
      this.#inFlight.delete(abort);
      if (this.#inFlight.size === 0) this.#idle?.();
    }
  }
}

/** A mounted tool's call, run by its own server's pipeline under the parent's abort. */
function delegate(call: Call, request: MountedRequest): Answer {
  return call.registered.delegate!(
    request.connection,
    request.params,
    new MountedExtra(request.extra, call.abort),
  );
}

/** The innermost step: decode the arguments, run the handler, check its result. */
function invoke(call: Call): Answer {
  const { registered } = call;
  const decoded = decode(
    call.arguments,
    registered.listed.inputSchema,
    registered.schema,
  );
  return decoded instanceof Promise
    ? decoded.then((settled) => handle(call, settled))
    : handle(call, decoded);
}

function handle(call: Call, decoded: DecodeResult<unknown>): Answer {
  if (!decoded.ok) {
    return error(formatProblems(decoded.problems, { tool: call.name }));
  }
  let outcome: unknown;
  try {
    outcome = call.registered.def.handler(decoded.value, call.ctx);
  } catch (cause) {
    return failed(call, cause);
  }
  if (!isThenable(outcome)) return checked(call, outcome);
  return Promise.resolve(outcome).then(
    (result) => checked(call, result),
    (cause) => failed(call, cause),
  );
}

/** The handler's result once checked, or what its failure turns into. */
function checked(call: Call, result: unknown): Answer {
  let answer: Answer;
  try {
    answer = checkResult(call.registered, result);
  } catch (cause) {
    return failed(call, cause);
  }
  return answer instanceof Promise
    ? answer.catch((cause) => failed(call, cause))
    : answer;
}

/**
 * What a failed call answers: a `ToolError` is the model's to read (a domain
 * error); a `ProtocolError` keeps its code; a Deno permission failure is a
 * domain error naming the flag to add; anything else is the server's fault
 * (-32603), logged to stderr with its stack.
 */
function failed(call: Call, cause: unknown): CallToolResult {
  if (cause instanceof ToolError) return error(cause.message);
  if (cause instanceof ProtocolError) throw cause;
  const { abort } = call;
  // A cancelled call gets no answer; nothing to report.
  if (abort.aborted && !(abort.reason instanceof ProtocolError)) throw cause;
  const denied = permissionDenied(cause);
  if (denied !== undefined) {
    // The operator reads stderr, the model the result: both learn the flag.
    console.error(`Tool ${call.name}: ${denied}`);
    return error(denied);
  }
  const message = cause instanceof Error ? cause.message : String(cause);
  console.error(`Tool ${call.name} failed:`, cause);
  throw new ProtocolError(
    RPC_ERROR.INTERNAL_ERROR,
    `Tool ${call.name} failed: ${message}`,
  );
}

/** Checks a handler's result: its shape, and its `structuredContent` against the output schema. */
function checkResult(tool: RegisteredTool, result: unknown): Answer {
  if (
    typeof result !== "object" || result === null ||
    !Array.isArray((result as CallToolResult).content)
  ) {
    throw new Error(
      `invalid result: expected { content: [...] } (use text(), json() or error()), got ${
        jsonType(result)
      }`,
    );
  }
  const call = result as CallToolResult;
  if (tool.listed.outputSchema === undefined || call.isError) return call;
  if (call.structuredContent === undefined) {
    throw new Error(
      "invalid result: the tool declares an output schema but returned no structuredContent",
    );
  }
  if (tool.output === undefined) return call;
  const checked = tool.output["~standard"].validate(call.structuredContent);
  const json = tool.listed.outputSchema;
  return checked instanceof Promise
    ? checked.then((settled) => matchesOutput(call, settled, json))
    : matchesOutput(call, checked, json);
}

function matchesOutput(
  call: CallToolResult,
  checked: { readonly issues?: readonly SchemaIssue[] },
  json: JsonSchema,
): CallToolResult {
  if (checked.issues !== undefined) {
    // Worded as argument problems are: `count: expected number, got string`.
    const problems = checked.issues
      .flatMap((issue) => describeIssue(issue, call.structuredContent, json))
      .map((p) =>
        `${p.path === "arguments" ? "structuredContent" : p.path}: ${p.message}`
      )
      .join("; ");
    throw new Error(
      `invalid result: structuredContent does not match the output schema: ${problems}`,
    );
  }
  return call;
}
