// startGate(): the proxy. It speaks JSON-RPC with the host on one pair of
// streams and with the server it spawned on the server's stdio, passes every
// message through with ids kept straight, and stops each `tools/call` for a
// probe and a policy decision first.

import type { JsonRpcId, JsonRpcMessage } from "../jsonrpc/mod.ts";
import { RPC_ERROR } from "../jsonrpc/mod.ts";
import { META } from "../jsonrpc/_versions.ts";
import {
  META_ALWAYS,
  // What the gate approved, for the server to check against the patterns it
  // recomputes at call time (patterns/_probe_guard.ts).
  META_APPROVED_PATTERNS,
  META_PATTERNS,
  META_PERMISSION_PATTERNS,
  META_SUPPORTS_PERMISSION_PATTERNS,
} from "../patterns/probe_meta.ts";
import type { Decision } from "../policy/mod.ts";
import { Policy } from "../policy/mod.ts";
import { StdioTransport } from "../stdio/mod.ts";
import { loadFdPipes } from "../stdio/_fd_pipe.ts";
import { isRecord } from "../_util/json_type.ts";
import { AuditLog, type AuditOutcome } from "./_audit.ts";
import {
  probedVerdict,
  toolVerdict,
  unprobedVerdict,
  type Verdict,
} from "./_decide.ts";
import { IdSpace } from "./_ids.ts";
import { GatePolicyError, parseToolDecisions } from "./policy_file.ts";
import { type ApprovalRound, readApprovalRound } from "./_approval_round.ts";
import { type ServerProcess, spawnServer } from "./_server_process.ts";
import {
  fixedPolicy,
  type PolicySource,
  watchPolicy,
} from "./_policy_source.ts";

const DECISIONS: readonly Decision[] = ["allow", "ask", "deny"];
/** The prefix of the `_meta` keys the MCP specification reserves for itself. */
const RESERVED_META_PREFIX = "io.modelcontextprotocol/";
const KILL_AFTER_MS = 2000;
/** How much of a call's arguments, as JSON, the user is shown when asked. */
const MAX_SHOWN_ARGUMENTS = 1000;
const DRAIN_MS = 1000;

/**
 * Options for {@linkcode startGate}.
 *
 * @example A gate in front of a server, with a policy file and an audit log
 * ```ts
 * import type { GateOptions } from "@forge/toolkit/gate";
 *
 * const options: GateOptions = {
 *   policy: "policy.yaml",
 *   audit: "audit.jsonl",
 *   unprobed: "deny",
 * };
 * ```
 */
export interface GateOptions {
  /**
   * The policy: a file (JSON, JSONC, YAML or TOML by extension), loaded at
   * start and followed while the gate runs, or a fixed `Policy`.
   */
  policy: string | Policy;
  /**
   * The decision for a call of a tool that does not list
   * `forge.supports_permission_patterns`, when the policy file does not set
   * `unprobed` (or the policy is a `Policy` object).
   *
   * @default {"ask"}
   */
  unprobed?: Decision;
  /**
   * Decisions by tool name, when the policy file has no `tools` (or the
   * policy is a `Policy` object): for a tool without the probe, its decision
   * instead of `unprobed`; for a tool with it, `deny` refuses every call and
   * `ask` asks even when the patterns are allowed.
   *
   * @default {{}}
   */
  tools?: Readonly<Record<string, Decision>>;
  /**
   * A file to append one JSON line to per decided call.
   *
   * @default {undefined}
   */
  audit?: string;
  /**
   * Where the gate's own messages go, one line per call.
   *
   * @default {writes "forge gate: <line>" to stderr}
   */
  log?: (line: string) => void;
  /**
   * Where the host's messages come from.
   *
   * @default {Deno.stdin}
   */
  readable?: ReadableStream<Uint8Array>;
  /**
   * Where the messages for the host go.
   *
   * @default {Deno.stdout}
   */
  writable?: WritableStream<Uint8Array>;
  /**
   * Environment variables added to the server's.
   *
   * @default {{}}
   */
  env?: Record<string, string>;
  /**
   * How long the server may take to exit once its stdin is closed, before
   * it is sent `SIGTERM` (and `SIGKILL` two seconds later).
   *
   * @default {5000}
   */
  graceMs?: number;
  /**
   * Quiet time after a change to the policy file before it is read again.
   *
   * @default {150}
   */
  reloadDebounceMs?: number;
}

/**
 * A running gate; see {@linkcode startGate}.
 *
 * @example Stop a gate and read its exit status
 * ```ts ignore
 * import { startGate } from "@forge/toolkit/gate";
 *
 * const gate = await startGate(["deno", "run", "-A", "server.ts"], { policy: "policy.yaml" });
 * Deno.addSignalListener("SIGTERM", () => gate.close());
 * Deno.exit(await gate.finished);
 * ```
 */
export interface Gate extends AsyncDisposable {
  /** The server's process id. */
  readonly pid: number;
  /**
   * Resolves once both sides are closed, with the exit status to use: the
   * server's after a host EOF or `close()` (0 when it stopped cleanly), and
   * non-zero when the server died while the host was connected.
   */
  readonly finished: Promise<number>;
  /**
   * Stops both sides: pending calls are answered with an error, the server's
   * stdin is closed, and the server is given `graceMs` to exit before it is
   * signalled. Resolves with `finished`'s value.
   */
  close(): Promise<number>;
}

/**
 * Spawns the MCP server `command` and stands between it and the host:
 * every message passes through unchanged (ids kept straight), except that
 * each `tools/call` is decided first.
 *
 * - A tool that lists `forge.supports_permission_patterns` is probed with
 *   the same arguments; a probe answered with `isError` goes back to the
 *   host and nothing runs. Otherwise `Policy.evaluate()` decides the
 *   patterns: **allow** forwards the call with the approved patterns in
 *   `_meta["forge.approved_patterns"]`; **deny** answers an `isError`
 *   naming each denied pattern and its rule; **ask** sends
 *   `elicitation/create` to a host that declared the capability (accept
 *   forwards, anything else refuses), and refuses with advice otherwise.
 * - Any other tool gets the `unprobed` decision, the same way.
 * - The host's own probes of a probed tool pass untouched.
 *
 * @example Put a policy in front of a server, over stdio
 * ```ts ignore
 * import { startGate } from "@forge/toolkit/gate";
 *
 * const gate = await startGate(
 *   ["deno", "run", "-A", "examples/hello-tool/main.ts"],
 *   { policy: "policy.yaml", audit: "audit.jsonl" },
 * );
 * Deno.exit(await gate.finished);
 * ```
 *
 * @param command The server's program and arguments.
 * @param options The policy, audit file, streams and timings.
 * @returns The running gate, once the policy is loaded and the server started.
 * @throws {TypeError} When `command` or an option has the wrong shape.
 * @throws {Error} When the policy file is missing or invalid, the audit file
 * cannot be opened, or the server cannot be started.
 */
export async function startGate(
  command: readonly string[],
  options: GateOptions,
): Promise<Gate> {
  if (
    !Array.isArray(command) || command.length === 0 ||
    !command.every((part) => typeof part === "string") || command[0] === ""
  ) {
    throw new TypeError(
      `Cannot start the gate: expected the server command as a non-empty array of strings, got ${
        JSON.stringify(command)
      }`,
    );
  }
  if (!isRecord(options)) {
    throw new TypeError(
      "Cannot start the gate: expected options as an object with a policy",
    );
  }
  const unprobed = options.unprobed ?? "ask";
  if (!DECISIONS.includes(unprobed)) {
    throw new TypeError(
      `Cannot start the gate: unprobed must be "allow", "ask" or "deny", got ${
        JSON.stringify(unprobed)
      }`,
    );
  }
  const graceMs = options.graceMs ?? 5000;
  if (!Number.isFinite(graceMs) || graceMs < 0) {
    throw new RangeError(
      `Cannot start the gate: graceMs must be a number of milliseconds >= 0, got ${graceMs}`,
    );
  }
  let tools: ReadonlyMap<string, Decision> = new Map();
  if (options.tools !== undefined) {
    try {
      tools = parseToolDecisions(options.tools);
    } catch (error) {
      if (!(error instanceof GatePolicyError)) throw error;
      throw new TypeError(`Cannot start the gate: ${error.message}`);
    }
  }
  const log = options.log ?? stderrLog;
  let source: PolicySource;
  if (options.policy instanceof Policy) {
    source = fixedPolicy({ policy: options.policy, unprobed, tools });
  } else if (typeof options.policy === "string" && options.policy !== "") {
    source = await watchPolicy(options.policy, {
      unprobed,
      tools,
      log,
      debounceMs: options.reloadDebounceMs,
    });
  } else {
    throw new TypeError(
      "Cannot start the gate: policy must be a file path or a Policy",
    );
  }
  let audit: AuditLog | undefined;
  if (options.audit !== undefined) {
    try {
      audit = await AuditLog.open(
        options.audit,
        (error) =>
          log(
            `cannot write the audit log ${options.audit}: ${messageOf(error)}`,
          ),
      );
    } catch (error) {
      await source.close();
      throw new Error(
        `Cannot open the audit log: ${options.audit}: ${messageOf(error)}`,
      );
    }
  }
  if (options.readable === undefined || options.writable === undefined) {
    // So that the host's stdin and stdout are read and written on the event
    // loop from the first message (a stdio server waits for its first answer
    // before it loads this).
    await loadFdPipes();
  }
  let child: ServerProcess;
  try {
    child = await spawnServer(command, options.env);
  } catch (error) {
    await source.close();
    await audit?.close();
    const why = error instanceof Deno.errors.NotFound
      ? `command not found: ${command[0]}`
      : messageOf(error);
    throw new Error(`Cannot start the server: ${why}`);
  }
  const session = new GateSession(child, source, audit, log, graceMs, options);
  session.start();
  return session;
}

interface Pending {
  resolve: (message: JsonRpcMessage) => void;
  reject: (error: Error) => void;
}

interface Forwarded {
  hostId: JsonRpcId;
  method: string;
}

interface Gating {
  hostId: JsonRpcId;
  cancelled: boolean;
  probeId?: string;
  elicitId?: string;
  cancel?: (error: Error) => void;
  done: Promise<void>;
}

interface ToolInfo {
  probed: boolean;
}

class Cancelled extends Error {}

class GateSession implements Gate {
  readonly pid: number;
  readonly finished: Promise<number>;

  #child: ServerProcess;
  #source: PolicySource;
  #audit: AuditLog | undefined;
  #log: (line: string) => void;
  #graceMs: number;
  #host: StdioTransport;
  #server: StdioTransport;
  #lastServerSend: Promise<unknown> = Promise.resolve();

  // Ids sent to the server and to the host.
  #serverIds = new IdSpace();
  #hostIds = new IdSpace();
  // Host requests forwarded to the server, by the id they went out under.
  #forwarded = new Map<JsonRpcId, Forwarded>();
  // The gate's own requests, by id.
  #ownToServer = new Map<string, Pending>();
  #ownToHost = new Map<string, Pending>();
  // Calls being decided, by the host's id.
  #gating = new Map<JsonRpcId, Gating>();
  #tools = new Map<string, ToolInfo>();
  #fetchingTools: Promise<void> | undefined;
  #hostCanElicit = false;

  #state: "running" | "closing" | "done" = "running";
  #serverEnded: Promise<void>;
  #endServer!: () => void;
  #resolveFinished!: (code: number) => void;
  #closing: Promise<number> | undefined;

  constructor(
    child: ServerProcess,
    source: PolicySource,
    audit: AuditLog | undefined,
    log: (line: string) => void,
    graceMs: number,
    options: GateOptions,
  ) {
    this.#child = child;
    this.pid = child.pid;
    this.#source = source;
    this.#audit = audit;
    this.#log = log;
    this.#graceMs = graceMs;
    this.finished = new Promise((resolve) => this.#resolveFinished = resolve);
    this.#serverEnded = new Promise((resolve) => this.#endServer = resolve);
    this.#server = new StdioTransport({
      readable: child.stdout,
      // Closing it leaves the server's stdin open: the gate closes that
      // itself (closeStdin), while the transport reads on until EOF.
      writable: child.stdin,
    });
    // Without streams, the host is this process's stdin and stdout, which
    // StdioTransport reads and writes on the event loop when they are pipes.
    this.#host = new StdioTransport({
      readable: options.readable,
      writable: options.writable,
    });
  }

  start(): void {
    this.#server.onmessage = (message) => this.#fromServer(message);
    this.#server.onerror = (error) => {
      if (this.#state === "running") {
        this.#log(`server connection: ${error.message}`);
      }
    };
    this.#server.onend = () => this.#endServer();
    this.#host.onmessage = (message) => this.#fromHost(message);
    this.#host.onerror = (error) => {
      if (this.#state !== "done") {
        this.#log(`host connection: ${error.message}`);
      }
    };
    this.#host.onend = () => {
      this.#shutdown("host").catch((error) => this.#log(messageOf(error)));
    };
    this.#child.status.then((status) => this.#serverExited(status));
    this.#server.start();
    this.#host.start();
  }

  close(): Promise<number> {
    return this.#shutdown("close");
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  // ---- host → server -------------------------------------------------

  #fromHost(message: JsonRpcMessage): void {
    if ("method" in message) {
      if ("id" in message) this.#hostRequest(message);
      else this.#hostNotification(message);
    } else {
      this.#hostResponse(message);
    }
  }

  #hostRequest(
    message: Extract<JsonRpcMessage, { method: string; id: JsonRpcId }>,
  ): void {
    if (this.#state !== "running") {
      this.#answerHost(message.id, {
        error: {
          code: RPC_ERROR.INTERNAL_ERROR,
          message: "The gate is shutting down",
        },
      });
      return;
    }
    if (message.method === "initialize") {
      this.#hostCanElicit = asksForms(message.params?.capabilities);
    }
    if (message.method === "tools/call") {
      this.#gateCall(message);
      return;
    }
    this.#forward(message);
  }

  #forward(
    message: Extract<JsonRpcMessage, { method: string; id: JsonRpcId }>,
  ): void {
    const id = this.#serverIds.forward(message.id);
    this.#forwarded.set(id, { hostId: message.id, method: message.method });
    this.#toServer(id === message.id ? message : { ...message, id });
  }

  #hostNotification(
    message: Extract<JsonRpcMessage, { method: string }>,
  ): void {
    if (message.method === "notifications/cancelled") {
      const requestId = message.params?.requestId as JsonRpcId;
      const gating = this.#gating.get(requestId);
      if (gating !== undefined) {
        this.#cancelGating(gating, message.params?.reason);
        return;
      }
      const sentAs = this.#serverIds.sentAs(requestId);
      if (this.#forwarded.has(sentAs)) {
        // A cancelled request gets no answer; forget it now.
        this.#forwarded.delete(sentAs);
        this.#serverIds.settle(sentAs);
      }
      if (sentAs !== requestId) {
        this.#toServer({
          ...message,
          params: { ...message.params, requestId: sentAs },
        });
        return;
      }
    }
    this.#toServer(message);
  }

  #hostResponse(
    message: Exclude<JsonRpcMessage, { method: string }>,
  ): void {
    const { id } = message;
    if (id === null) {
      this.#log(
        `the host answered a message it could not read: ${
          "error" in message ? message.error.message : ""
        }`,
      );
      return;
    }
    if (this.#hostIds.isOwn(id)) {
      const pending = this.#ownToHost.get(id);
      this.#ownToHost.delete(id);
      pending?.resolve(message);
      return;
    }
    const original = this.#hostIds.settle(id);
    if (original === undefined) return;
    this.#toServer(original === id ? message : { ...message, id: original });
  }

  // ---- server → host -------------------------------------------------

  #fromServer(message: JsonRpcMessage): void {
    if ("method" in message) {
      if ("id" in message) {
        const id = this.#hostIds.forward(message.id);
        this.#toHost(id === message.id ? message : { ...message, id });
        return;
      }
      if (message.method === "notifications/tools/list_changed") {
        this.#tools.clear();
      } else if (message.method === "notifications/cancelled") {
        const requestId = message.params?.requestId as JsonRpcId;
        const sentAs = this.#hostIds.sentAs(requestId);
        if (sentAs !== requestId) {
          this.#hostIds.settle(sentAs);
          this.#toHost({
            ...message,
            params: { ...message.params, requestId: sentAs },
          });
          return;
        }
      }
      this.#toHost(message);
      return;
    }
    const { id } = message;
    if (id === null) {
      this.#log(
        `the server answered a message it could not read: ${
          "error" in message ? message.error.message : ""
        }`,
      );
      return;
    }
    if (this.#serverIds.isOwn(id)) {
      const pending = this.#ownToServer.get(id);
      this.#ownToServer.delete(id);
      pending?.resolve(message);
      return;
    }
    const forwarded = this.#forwarded.get(id);
    if (forwarded === undefined) {
      // An answer to a request the host cancelled, or one the gate never saw.
      if (this.#serverIds.settle(id) === id) this.#toHost(message);
      return;
    }
    this.#forwarded.delete(id);
    this.#serverIds.settle(id);
    if (forwarded.method === "tools/list" && "result" in message) {
      this.#learnTools(message.result);
    }
    this.#toHost(
      forwarded.hostId === id ? message : { ...message, id: forwarded.hostId },
    );
  }

  // ---- the decision --------------------------------------------------

  #gateCall(
    message: Extract<JsonRpcMessage, { method: string; id: JsonRpcId }>,
  ): void {
    let finish!: () => void;
    const gating: Gating = {
      hostId: message.id,
      cancelled: false,
      done: new Promise((resolve) => finish = resolve),
    };
    this.#gating.set(message.id, gating);
    this.#decide(message, gating)
      .catch((error) => {
        if (error instanceof Cancelled) return;
        this.#answerHost(message.id, {
          error: { code: RPC_ERROR.INTERNAL_ERROR, message: messageOf(error) },
        });
      })
      .finally(() => {
        if (this.#gating.get(message.id) === gating) {
          this.#gating.delete(message.id);
        }
        finish();
      });
  }

  async #decide(
    message: Extract<JsonRpcMessage, { method: string; id: JsonRpcId }>,
    gating: Gating,
  ): Promise<void> {
    const started = performance.now();
    const params = message.params ?? {};
    const name = params.name;
    const meta = isRecord(params._meta) ? params._meta : undefined;
    if (typeof name !== "string") {
      // The server answers the malformed call with its own protocol error.
      this.#forwardCall(message, undefined);
      return;
    }
    // A 2026-07-28 host names its revision and capabilities on every
    // request, not in initialize: the gate's own requests for this call
    // must carry them too, or the server cannot tell what they are.
    const era = eraMeta(meta);
    // A call that answers an earlier round of the gate's own carries the
    // gate's state, which the server must not see.
    let round = era !== undefined && params.requestState !== undefined
      ? await readApprovalRound(name, params)
      : undefined;
    if (!this.#tools.has(name)) await this.#fetchTools(gating, era);
    const tool = this.#tools.get(name);
    if (tool === undefined) {
      // Not listed even in a fresh list: there is nothing to ask the user
      // about, and a server answers a call of a tool it lacks with this same
      // protocol error. A tool it hides is never run unchecked.
      this.#record(name, [], "error", "unknown-tool", null, started);
      this.#answerHost(message.id, {
        error: {
          code: RPC_ERROR.INVALID_PARAMS,
          message: `Unknown tool: ${JSON.stringify(name)}`,
        },
      });
      return;
    }
    const probed = tool.probed;
    if (probed && meta?.[META_PERMISSION_PATTERNS] === true) {
      // The host's own probe runs nothing. Any other flag value is decided
      // as a call (a toolkit server refuses it; no other server may run it
      // unchecked).
      this.#forwardCall(message, undefined, undefined, false);
      return;
    }
    const { tools, unprobed } = this.#source.current();
    const entry = tools.get(name);
    let verdict: Verdict;
    if (!probed) {
      verdict = entry === undefined
        ? unprobedVerdict(name, unprobed)
        : toolVerdict(name, entry);
    } else if (entry === "deny") {
      // Refused whatever its patterns: there is nothing to probe for.
      verdict = toolVerdict(name, entry);
    } else {
      const patterns = await this.#probe(message.id, gating, params, era);
      if (patterns === undefined) {
        this.#record(name, [], "error", "probe-error", null, started);
        return;
      }
      // The policy in force once the patterns are known, after any reload
      // during the probe.
      const now = this.#source.current();
      const nowEntry = now.tools.get(name);
      verdict = nowEntry === "deny"
        ? toolVerdict(name, nowEntry)
        : probedVerdict(
          name,
          patterns,
          now.policy.evaluate(patterns),
          nowEntry,
        );
    }
    const record = (outcome: AuditOutcome) =>
      this.#record(
        name,
        verdict.patterns,
        verdict.decision,
        outcome,
        verdict.rule,
        started,
      );
    const approved = probed ? verdict.patterns : undefined;
    if (verdict.decision === "allow") {
      record("forwarded");
      this.#forwardCall(message, approved, round);
      return;
    }
    if (verdict.decision === "deny") {
      record("denied");
      this.#answerHost(message.id, { result: refusal(verdict.denied, era) });
      return;
    }
    // A 2026-07-28 host declares its capabilities on each request, and is
    // asked in rounds: the question is this call's answer.
    const stateless = isStateless(era);
    const canAsk = stateless
      ? asksForms(era?.[META.CLIENT_CAPABILITIES])
      : this.#hostCanElicit;
    if (!canAsk) {
      record("refused");
      this.#answerHost(message.id, {
        result: refusal(verdict.cannotAsk, era),
      });
      return;
    }
    const question = withArguments(verdict.question, params.arguments);
    let action: string;
    if (stateless) {
      round ??= await readApprovalRound(name, params);
      const answered = round.answer(verdict.patterns);
      if (answered === undefined) {
        this.#answerHost(message.id, {
          result: round.ask(question, verdict.patterns),
        });
        return;
      }
      action = answered;
    } else {
      try {
        action = await this.#elicit(gating, question);
      } catch (error) {
        if (error instanceof Cancelled) record("cancelled");
        throw error;
      }
    }
    if (action === "accept") {
      record("approved");
      this.#forwardCall(message, approved, round);
      return;
    }
    record(action === "decline" ? "declined" : "refused");
    this.#answerHost(message.id, {
      result: refusal(verdict.declined(action), era),
    });
  }

  /**
   * Probes a call; resolves with its patterns, or with `undefined` once the
   * host has been answered instead (the probe's error or `isError` result,
   * or a refusal of a probe answer without patterns).
   */
  async #probe(
    hostId: JsonRpcId,
    gating: Gating,
    params: Record<string, unknown>,
    era: Record<string, unknown> | undefined,
  ): Promise<string[] | undefined> {
    const answer = await this.#requestServer(gating, "tools/call", {
      name: params.name,
      arguments: params.arguments,
      _meta: { ...era, [META_PERMISSION_PATTERNS]: true },
    });
    if ("error" in answer) {
      this.#answerHost(hostId, { error: answer.error });
      return undefined;
    }
    const result = "result" in answer ? answer.result : {};
    if (result.isError === true) {
      this.#answerHost(hostId, { result });
      return undefined;
    }
    const patterns = patternsOf(result);
    if (typeof patterns === "string") {
      this.#answerHost(hostId, {
        result: refusal(
          `The gate cannot check this call of ${params.name}: the server's probe answer ${patterns}. Nothing was run.`,
          era,
        ),
      });
      return undefined;
    }
    return patterns;
  }

  /** Asks a host in a session with `elicitation/create`; resolves with its action (`error` for an error). */
  async #elicit(gating: Gating, question: string): Promise<string> {
    const answer = await this.#requestHost(gating, "elicitation/create", {
      message: question,
      requestedSchema: { type: "object", properties: {} },
    });
    if ("error" in answer) {
      this.#log(`the host could not ask the user: ${answer.error.message}`);
      return "error";
    }
    const action = "result" in answer ? answer.result.action : undefined;
    return typeof action === "string" ? action : "error";
  }

  /**
   * Forwards a call; with `approved`, the patterns go in its `_meta`; with
   * `round`, the params are the round's (without the gate's own state).
   */
  #forwardCall(
    message: Extract<JsonRpcMessage, { method: string; id: JsonRpcId }>,
    approved: readonly string[] | undefined,
    round?: ApprovalRound,
    strip = true,
  ): void {
    if (this.#state === "done") {
      this.#answerHost(message.id, {
        error: {
          code: RPC_ERROR.CONNECTION_CLOSED,
          message: "The server has stopped",
        },
      });
      return;
    }
    const params = round?.params ?? message.params ?? {};
    const meta = isRecord(params._meta) ? params._meta : undefined;
    let out = round === undefined ? message : { ...message, params };
    if (
      approved !== undefined ||
      (strip && meta?.[META_APPROVED_PATTERNS] !== undefined)
    ) {
      // What the host sent under the key is never passed on: approvals are
      // the gate's to give.
      const { [META_APPROVED_PATTERNS]: _smuggled, ...rest } = meta ?? {};
      const _meta = approved === undefined
        ? rest
        : { ...rest, [META_APPROVED_PATTERNS]: [...approved] };
      out = { ...message, params: { ...params, _meta } };
    }
    this.#forward(out);
  }

  #cancelGating(gating: Gating, reason: unknown): void {
    gating.cancelled = true;
    this.#gating.delete(gating.hostId);
    const why = typeof reason === "string"
      ? reason
      : "the host cancelled the call";
    if (gating.probeId !== undefined) {
      this.#toServer({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: gating.probeId, reason: why },
      });
    }
    if (gating.elicitId !== undefined) {
      this.#toHost({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: gating.elicitId, reason: why },
      });
    }
    gating.cancel?.(new Cancelled(why));
  }

  #record(
    tool: string,
    patterns: readonly string[],
    decision: Decision | "error",
    outcome: AuditOutcome,
    rule: string | null,
    started: number,
  ): void {
    const elapsedMs = Math.round((performance.now() - started) * 1000) / 1000;
    this.#audit?.write({
      time: new Date().toISOString(),
      tool,
      patterns,
      decision,
      outcome,
      rule,
      elapsedMs,
    });
  }

  // ---- the tool list -------------------------------------------------

  #learnTools(result: Record<string, unknown>): void {
    if (!Array.isArray(result.tools)) return;
    for (const tool of result.tools) {
      if (!isRecord(tool) || typeof tool.name !== "string") continue;
      const meta = isRecord(tool._meta) ? tool._meta : {};
      this.#tools.set(tool.name, {
        probed: meta[META_SUPPORTS_PERMISSION_PATTERNS] === true,
      });
    }
  }

  #fetchTools(
    gating: Gating,
    era: Record<string, unknown> | undefined,
  ): Promise<void> {
    this.#fetchingTools ??= (async () => {
      let cursor: unknown;
      // A bounded walk: a server repeating a cursor cannot hold a call forever.
      for (let page = 0; page < 1000; page++) {
        const answer = await this.#requestServer(undefined, "tools/list", {
          ...(typeof cursor === "string" ? { cursor } : {}),
          ...(era === undefined ? {} : { _meta: era }),
        });
        if (!("result" in answer)) return;
        this.#learnTools(answer.result);
        cursor = answer.result.nextCursor;
        if (typeof cursor !== "string") return;
      }
    })().finally(() => this.#fetchingTools = undefined);
    return this.#withCancel(gating, this.#fetchingTools);
  }

  // ---- the gate's own requests ---------------------------------------

  #requestServer(
    gating: Gating | undefined,
    method: string,
    params: Record<string, unknown>,
  ): Promise<JsonRpcMessage> {
    const id = this.#serverIds.own();
    const answered = new Promise<JsonRpcMessage>((resolve, reject) => {
      if (this.#state === "done") {
        reject(new Error("The server has stopped"));
        return;
      }
      this.#ownToServer.set(id, { resolve, reject });
    });
    if (gating !== undefined) gating.probeId = id;
    this.#toServer({ jsonrpc: "2.0", id, method, params });
    const done = answered.finally(() => {
      if (gating?.probeId === id) gating.probeId = undefined;
    });
    return gating === undefined ? done : this.#withCancel(gating, done);
  }

  #requestHost(
    gating: Gating,
    method: string,
    params: Record<string, unknown>,
  ): Promise<JsonRpcMessage> {
    const id = this.#hostIds.own();
    const answered = new Promise<JsonRpcMessage>((resolve, reject) => {
      this.#ownToHost.set(id, { resolve, reject });
    });
    gating.elicitId = id;
    this.#toHost({ jsonrpc: "2.0", id, method, params });
    const done = answered.finally(() => {
      this.#ownToHost.delete(id);
      if (gating.elicitId === id) gating.elicitId = undefined;
    });
    return this.#withCancel(gating, done);
  }

  /** `work`, or a rejection with `Cancelled` as soon as the call is cancelled. */
  #withCancel<T>(gating: Gating, work: Promise<T>): Promise<T> {
    if (gating.cancelled) return Promise.reject(new Cancelled("cancelled"));
    return new Promise<T>((resolve, reject) => {
      gating.cancel = reject;
      work.then(resolve, reject).finally(() => {
        if (gating.cancel === reject) gating.cancel = undefined;
      });
    });
  }

  // ---- sending -------------------------------------------------------

  #toServer(message: JsonRpcMessage): void {
    if (this.#state === "done") return;
    const sent = this.#server.send(message).catch(() => {});
    this.#lastServerSend = sent;
  }

  #toHost(message: JsonRpcMessage): void {
    this.#host.send(message).catch(() => {});
  }

  #answerHost(
    id: JsonRpcId,
    body:
      | { result: Record<string, unknown> }
      | { error: { code: number; message: string; data?: unknown } },
  ): void {
    this.#toHost({ jsonrpc: "2.0", id, ...body } as JsonRpcMessage);
  }

  // ---- lifecycle -----------------------------------------------------

  /** The host went away (EOF) or `close()` was called. */
  #shutdown(why: "host" | "close"): Promise<number> {
    this.#closing ??= (async () => {
      if (this.#state === "running") this.#state = "closing";
      // A call waiting on the user cannot be answered by a host that left
      // (or a gate that stops); calls waiting on a probe finish first, so a
      // host that writes its calls and closes stdin still gets answers.
      this.#refuseGating(
        "the gate is shutting down",
        (gating) => why === "close" || gating.elicitId !== undefined,
      );
      // A probe the server never answers must not hold the shutdown: after
      // graceMs the calls still being decided are refused.
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        Promise.all([...this.#gating.values()].map((g) => g.done)),
        new Promise((resolve) => timer = setTimeout(resolve, this.#graceMs)),
      ]);
      clearTimeout(timer);
      this.#refuseGating("the gate is shutting down");
      await this.#lastServerSend;
      await this.#child.closeStdin();
      const code = await this.#stopServer();
      return code;
    })();
    return this.#closing;
  }

  /** Cancels the calls being decided (those `which` picks) and answers each with an error. */
  #refuseGating(
    reason: string,
    which: (gating: Gating) => boolean = () => true,
  ): void {
    for (const gating of [...this.#gating.values()]) {
      if (!which(gating)) continue;
      this.#cancelGating(gating, reason);
      this.#answerHost(gating.hostId, {
        error: {
          code: RPC_ERROR.INTERNAL_ERROR,
          message: "The gate is shutting down",
        },
      });
    }
  }

  async #stopServer(): Promise<number> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const exited = this.#child.status.then(() => true);
    const waited = (ms: number) =>
      Promise.race([
        exited,
        new Promise<false>((resolve) =>
          timer = setTimeout(() => resolve(false), ms)
        ),
      ]).finally(() => clearTimeout(timer));
    if (!(await waited(this.#graceMs))) {
      this.#log(
        `the server did not exit within ${this.#graceMs} ms of its stdin closing: sending SIGTERM`,
      );
      this.#signal("SIGTERM");
      if (!(await waited(KILL_AFTER_MS))) this.#signal("SIGKILL");
    }
    await this.#child.status;
    return await this.finished;
  }

  #signal(signal: Deno.Signal): void {
    try {
      this.#child.kill(signal);
    } catch {
      // It has exited.
    }
  }

  async #serverExited(status: Deno.CommandStatus): Promise<void> {
    // Answers still in the pipe are passed on before anyone is told.
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      this.#serverEnded,
      new Promise((resolve) => timer = setTimeout(resolve, DRAIN_MS)),
    ]);
    clearTimeout(timer);
    const unexpected = this.#state === "running";
    this.#state = "done";
    const how = status.signal === null
      ? `status ${status.code}`
      : `signal ${status.signal}`;
    const reason = unexpected
      ? `The server exited with ${how} before answering`
      : "The gate stopped before the server answered";
    if (unexpected) this.#log(`the server exited with ${how}`);
    else if (status.code !== 0) this.#log(`the server exited with ${how}`);
    const error = { code: RPC_ERROR.CONNECTION_CLOSED, message: reason };
    for (const { hostId } of this.#forwarded.values()) {
      this.#answerHost(hostId, { error });
    }
    this.#forwarded.clear();
    for (const gating of [...this.#gating.values()]) {
      this.#cancelGating(gating, reason);
      this.#answerHost(gating.hostId, { error });
    }
    for (const pending of this.#ownToServer.values()) {
      pending.reject(new Error(reason));
    }
    this.#ownToServer.clear();
    await this.#server.close().catch(() => {});
    await this.#host.close().catch(() => {});
    await this.#source.close().catch(() => {});
    await this.#audit?.close();
    const code = unexpected
      ? (status.code === 0 ? 1 : status.code)
      : status.code;
    this.#resolveFinished(code);
  }
}

/**
 * The question with the call's arguments, so that the user sees what the
 * tool is asked to do (a tool without the probe reports nothing else). Only
 * the user sees them: the audit never holds an argument value.
 */
function withArguments(question: string, args: unknown): string {
  if (args === undefined) return question;
  const text = JSON.stringify(args);
  const shown = text.length <= MAX_SHOWN_ARGUMENTS
    ? text
    : `${
      text.slice(0, MAX_SHOWN_ARGUMENTS)
    }… (${text.length} characters in all)`;
  return `${question}\nArguments: ${shown}`;
}

/** Whether client capabilities let the gate ask the user with a form: `elicitation: {}` or `{ form: {} }`. */
function asksForms(capabilities: unknown): boolean {
  const elicitation = isRecord(capabilities)
    ? capabilities.elicitation
    : undefined;
  // An empty object means form mode; a host that lists modes must list form.
  return isRecord(elicitation) &&
    (Object.keys(elicitation).length === 0 || "form" in elicitation);
}

/**
 * The 2026-07-28 reserved keys of a request's `_meta` (revision, client
 * capabilities and info, log level); `undefined` for a request without any,
 * as every request of an older revision is.
 */
function eraMeta(
  meta: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  if (meta === undefined) return undefined;
  let era: Record<string, unknown> | undefined;
  for (const key in meta) {
    if (key.startsWith(RESERVED_META_PREFIX)) {
      (era ??= {})[key] = meta[key];
    }
  }
  return era;
}

function patternsOf(result: Record<string, unknown>): string[] | string {
  const meta = isRecord(result._meta) ? result._meta : undefined;
  if (meta === undefined) return `carries no _meta with ${META_PATTERNS}`;
  const patterns = meta[META_PATTERNS];
  const always = meta[META_ALWAYS] ?? [];
  if (!isStringList(patterns)) {
    return `has no list of strings under _meta["${META_PATTERNS}"]`;
  }
  if (!isStringList(always)) {
    return `has something other than a list of strings under _meta["${META_ALWAYS}"]`;
  }
  return [...always, ...patterns];
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) &&
    value.every((item) => typeof item === "string");
}

/** An `isError` result; one answering a 2026-07-28 request says it is complete, as that revision requires. */
function refusal(
  text: string,
  era: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const result: Record<string, unknown> = {
    content: [{ type: "text", text }],
    isError: true,
  };
  if (isStateless(era)) result.resultType = "complete";
  return result;
}

/** Whether a request whose reserved `_meta` keys are `era` speaks 2026-07-28 (or later). */
function isStateless(era: Record<string, unknown> | undefined): boolean {
  return era?.[META.PROTOCOL_VERSION] !== undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

const ENCODER = new TextEncoder();

function stderrLog(line: string): void {
  const bytes = ENCODER.encode(`forge gate: ${line}\n`);
  let written = 0;
  try {
    while (written < bytes.length) {
      written += Deno.stderr.writeSync(bytes.subarray(written));
    }
  } catch {
    // stderr is gone; nothing else can be told.
  }
}
