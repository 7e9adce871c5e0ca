// startGate(): the proxy. It speaks JSON-RPC with the host on one pair of
// streams and with the server it spawned on the server's stdio, passes every
// message through with ids kept straight, and stops each `tools/call` for a
// probe and a policy decision first. This file is the public face: options,
// checks and start-up; the running gate is _running_gate.ts, which wires the
// relay (_relay.ts) to the decisions (_gatekeeper.ts).

import type { Decision } from "../policy/mod.ts";
import { Policy } from "../policy/mod.ts";
import { loadFdPipes } from "../stdio/_fd_pipe.ts";
import { isRecord } from "../_util/json_type.ts";
import { AuditLog } from "./audit/_audit.ts";
import { messageOf, stderrLog } from "./_log.ts";
import { GatePolicyError, parseToolDecisions } from "./policy/policy_file.ts";
import {
  fixedPolicy,
  type PolicySource,
  watchPolicy,
} from "./policy/_policy_source.ts";
import { startServerGate } from "./_server_gate.ts";
import { startAggregate } from "./_start_aggregate.ts";
import { Pins, pinsInPolicy } from "./pins/_pins.ts";
import { redisPinStores } from "./pins/_pin_store.ts";
import { APPROVAL_TTL_MS, type SharedRounds } from "./_approval_round.ts";
import { RedisSpentAnswers } from "./approvals/_redis_spent.ts";
import type { GateTelemetry } from "./_telemetry.ts";
import { isLoopback, parseListen } from "./policy/_listen.ts";
import { type Caller, serveGate } from "./_http_gate.ts";
import { flowKey, type FlowStore, RedisFlowStore } from "./_flow_store.ts";
import {
  RedisRememberedStore,
  type RememberedStore,
} from "./_remembered_store.ts";
import { callerStoreKey } from "./_caller_key.ts";
import {
  approvalKeys,
  APPROVALS_PREFIX,
  approvalService,
  approverSignIn,
  type CallerApprovals,
  callerApprovals,
  redisApprovals,
} from "./_approval_routes.ts";
import type { MessageTransport } from "../jsonrpc/_message_channel.ts";
import { authOptionsOf } from "./policy/_auth.ts";
import { callerPolicySource } from "./policy/_caller_source.ts";
import { auditCaller } from "./_audit_caller.ts";
import { scopeCheck } from "./_scope_check.ts";
import { LOOPBACK_HOSTS } from "../http/host_guard.ts";
import type { OAuthResourceOptions } from "../http/oauth_resource.ts";

const DECISIONS: readonly Decision[] = ["allow", "ask", "deny"];

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
   * A file apart from the audit log that keeps the log's end (line count,
   * size, last line's digest), rewritten atomically with each line, so
   * that `gate audit verify --anchor` finds an edit of the last line and
   * lines cut off the end. The gate refuses to start when the log's end
   * differs from it. Needs `audit`.
   *
   * @default {undefined}
   */
  auditAnchor?: string;
  /**
   * A file of tool pins: the first tool list the gate sees pins each
   * tool's definition, and a pinned tool that changes is withheld until
   * the user accepts it (`gate pins accept`).
   *
   * @default {undefined}
   */
  pins?: string;
  /**
   * For a tool that appears after the tools were pinned, when the pins
   * file does not say: `allow` pins it, `ask` asks before each call until
   * it is accepted, `deny` withholds it.
   *
   * @default {"ask"}
   */
  newTools?: Decision;
  /**
   * A remote server's Streamable HTTP endpoint, spoken to instead of a
   * spawned command (which is then `[]`).
   *
   * @default {undefined}
   */
  url?: string;
  /**
   * Headers sent with every HTTP request to `url`
   * (`[["Authorization", "Bearer …"]]`).
   *
   * @default {[]}
   */
  headers?: readonly (readonly [string, string])[];
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
   * it is sent `SIGTERM` (and `SIGKILL` one second later): short enough for
   * a host that sends the gate SIGTERM 2 s after closing its stdin.
   *
   * @default {1000}
   */
  graceMs?: number;
  /**
   * How long a 2026-07-28 host may take to answer the gate's approval
   * question. An answer counts once: the same approval sent again, or one
   * sent later than this, is asked again.
   *
   * @default {300000}
   */
  approvalTtlMs?: number;
  /**
   * Quiet time after a change to the policy file before it is read again;
   * also the longest a stream of changes beside it (an audit log in the same
   * folder) may postpone the reading.
   *
   * @default {150}
   */
  reloadDebounceMs?: number;
  /**
   * In a gate of many servers (`servers:`), how long a server may take to
   * answer the host's `initialize`: one that does not is down, and
   * started again later, while the others serve.
   *
   * @default {10000}
   */
  startTimeoutMs?: number;
  /**
   * In a gate of many servers, how long a server that is up may take to
   * answer the gate's `ping` (sent every `ping` seconds of its entry): one
   * that does not hangs, and is stopped and started again later, while the
   * others serve.
   *
   * @default {10000}
   */
  pingTimeoutMs?: number;
  /**
   * Traces every request the gate relays through `@opentelemetry/api`, as
   * `otel()` traces a server's: a span per request, with the decision on
   * a call and its probe, approval and forwarded call as child spans, and
   * the duration histogram (see docs/observability.md). The API is loaded
   * only when this is on. Deno exports the spans under `OTEL_DENO=true`;
   * elsewhere register an OpenTelemetry SDK.
   *
   * @default {true when the environment has OTEL_DENO=true and the gate may read it}
   */
  telemetry?: boolean;
  /**
   * Runs the server in a fence derived from the policy file's rules and
   * roots (bubblewrap, Linux only; see docs/gate.md), as the file's
   * `sandbox: true` does: `true`, or the names of the variables the server
   * is given besides the runtime's (`{ env: ["API_KEY"] }`). Refused with
   * `url`, with a `Policy` object, and where bubblewrap is missing.
   *
   * @default {the policy file's `sandbox`, else off}
   */
  sandbox?: boolean | { env?: readonly string[] };
  /**
   * Serve Streamable HTTP at `http://<listen>/mcp` instead of speaking to
   * one host on `readable`/`writable`, as the policy file's `listen:` does
   * (`"127.0.0.1:8080"`; port 0 picks a free one). Each 2025-11-25
   * session gets a gate and a server (or remote session) of its own;
   * 2026-07-28 requests share one gate that remembers no approval (with
   * the policy's `auth:`, one per caller, which remembers with `redis`). The address must be loopback,
   * unless the policy has `auth:` with its `resource`.
   *
   * @default {the policy file's `listen`, else stdio}
   */
  listen?: string;
  /**
   * With `listen`: the most sessions open at once (each has its own
   * server); an `initialize` beyond it gets 503. With the policy's
   * `auth:`, also the most gates of 2026-07-28 callers (one per caller).
   *
   * @default {100}
   */
  maxSessions?: number;
  /**
   * With `listen` and `auth:` in the policy: the OAuth client, registered
   * with `auth:`'s issuer, that approvers sign in to the approval page as
   * (the authorization-code flow with PKCE; its redirect URI is the
   * gate's `/approvals/callback`). `forge gate` reads it from
   * `FORGE_GATE_APPROVER_CLIENT_ID` and `FORGE_GATE_APPROVER_CLIENT_SECRET`.
   *
   * @default {undefined}
   */
  approverClient?: { id: string; secret?: string };
  /**
   * With `listen`: keep the approvals of the approval page in Redis
   * (`redis://` or `rediss://`), so that gate instances using the same
   * Redis share them: an approval given on one instance's page releases a
   * call held by another, and a host's retry runs on any of them. The
   * instances share the keys of the page's forms, the calls and the
   * sign-in's cookies too (a secret the first of them leaves in Redis).
   * Each 2026-07-28 caller's flow history is kept there as well, and
   * with `auth:` the approvals the caller chose to remember, so that
   * every instance decides the caller's next call with them (a 2025-11-25
   * session, sticky to one instance, keeps its own in memory).
   *
   * @default {the policy file's `redis`, else in memory}
   */
  redis?: string;
  /**
   * With `listen`: who is looking at the approval page, `/approvals/<id>`
   * (their subject and groups, which the policy's `approvers:` decides
   * on), for a program that serves the gate behind a sign-in of its own;
   * it replaces `approverClient`'s sign-in. Without either, nobody is
   * signed in on the page, and hosts are not sent there.
   *
   * @default {undefined}
   */
  identifyViewer?: (
    request: Request,
  ) => Promise<
    { sub: string; groups?: readonly string[]; name?: string } | undefined
  >;
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
  /**
   * The server's process id (bwrap's, when sandboxed, and a new one after
   * a reload restarts it in a new fence); 0 for a remote server (`url`),
   * for `servers:` and when serving HTTP.
   */
  readonly pid: number;
  /**
   * The MCP endpoint (`http://127.0.0.1:8080/mcp`) when the gate serves
   * HTTP (`listen`); `undefined` over stdio.
   */
  readonly url?: URL;
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
  const remote = isRecord(options) && typeof options.url === "string";
  if (
    !Array.isArray(command) || (remote && command.length > 0) ||
    !command.every((part) => typeof part === "string") || command[0] === ""
  ) {
    throw new TypeError(
      `Cannot start the gate: expected the server command as a non-empty array of strings (or [] with url, or with a policy that names its servers), got ${
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
  const graceMs = options.graceMs ?? 1000;
  if (!Number.isFinite(graceMs) || graceMs < 0) {
    throw new RangeError(
      `Cannot start the gate: graceMs must be a number of milliseconds >= 0, got ${graceMs}`,
    );
  }
  const approvalTtlMs = options.approvalTtlMs ?? APPROVAL_TTL_MS;
  if (!Number.isFinite(approvalTtlMs) || approvalTtlMs <= 0) {
    throw new RangeError(
      `Cannot start the gate: approvalTtlMs must be a number of milliseconds > 0, got ${approvalTtlMs}`,
    );
  }
  if (
    options.startTimeoutMs !== undefined &&
    !(Number.isFinite(options.startTimeoutMs) && options.startTimeoutMs > 0)
  ) {
    throw new RangeError(
      `Cannot start the gate: startTimeoutMs must be a number of milliseconds > 0, got ${options.startTimeoutMs}`,
    );
  }
  if (
    options.pingTimeoutMs !== undefined &&
    !(Number.isFinite(options.pingTimeoutMs) && options.pingTimeoutMs > 0)
  ) {
    throw new RangeError(
      `Cannot start the gate: pingTimeoutMs must be a number of milliseconds > 0, got ${options.pingTimeoutMs}`,
    );
  }
  if (
    options.telemetry !== undefined && typeof options.telemetry !== "boolean"
  ) {
    throw new TypeError(
      `Cannot start the gate: telemetry must be a boolean, got ${
        JSON.stringify(options.telemetry)
      }`,
    );
  }
  if (options.sandbox && remote) {
    throw new TypeError(
      "Cannot start the gate: a url server cannot be sandboxed: the fence is for a server the gate spawns (run it fenced where it runs)",
    );
  }
  if (
    options.newTools !== undefined && !DECISIONS.includes(options.newTools)
  ) {
    throw new TypeError(
      `Cannot start the gate: newTools must be "allow", "ask" or "deny", got ${
        JSON.stringify(options.newTools)
      }`,
    );
  }
  if (options.auditAnchor !== undefined && options.audit === undefined) {
    throw new TypeError(
      "Cannot start the gate: auditAnchor needs audit: the anchor is the audit log's",
    );
  }
  const listenOption = options.listen;
  if (
    listenOption !== undefined &&
    (typeof listenOption !== "string" ||
      parseListen(listenOption) === undefined)
  ) {
    throw new TypeError(
      `Cannot start the gate: listen must be "host:port" (such as "127.0.0.1:8080"), got ${
        JSON.stringify(listenOption)
      }`,
    );
  }
  if (
    options.maxSessions !== undefined &&
    (!Number.isInteger(options.maxSessions) || options.maxSessions < 1)
  ) {
    throw new RangeError(
      `Cannot start the gate: maxSessions must be a whole number >= 1, got ${options.maxSessions}`,
    );
  }
  // Before anything is opened or started: nothing to undo if it fails.
  const telemetry = await loadTelemetry(options.telemetry);
  if (
    listenOption === undefined &&
    (options.readable === undefined || options.writable === undefined)
  ) {
    // So that the host's stdin and stdout are read and written on the event
    // loop from the first message (a stdio server waits for its first answer
    // before it loads this).
    await loadFdPipes();
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
  // The command line's --http, or the policy file's listen:, read once.
  const listenText = listenOption ?? source.current().file?.listen;
  const listen = listenText === undefined ? undefined : parseListen(listenText);
  // auth: is read once, as listen: is: who may call is fixed at start.
  const auth = listen === undefined ? undefined : source.current().file?.auth;
  if (listen !== undefined && !isLoopback(listen.hostname)) {
    const problem = auth === undefined
      ? "expected a loopback address, or auth: in the policy (callers over the network must be identified)"
      : auth.resource === undefined
      ? "expected auth.resource in the policy, the gate's public URL (https://…/mcp) that tokens name as their audience"
      : undefined;
    if (problem !== undefined) {
      await source.close();
      throw new TypeError(
        `Cannot start the gate: cannot listen on ${listenText}: ${problem}`,
      );
    }
  }
  let oauth: OAuthResourceOptions | undefined;
  if (auth !== undefined) {
    try {
      oauth = await authOptionsOf(auth, {
        policyFile: options.policy as string,
        path: "/mcp",
      });
    } catch (error) {
      await source.close();
      throw new TypeError(`Cannot start the gate: ${messageOf(error)}`);
    }
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
        { anchor: options.auditAnchor, note: log },
      );
    } catch (error) {
      await source.close();
      throw new Error(
        `Cannot open the audit log: ${options.audit}: ${messageOf(error)}`,
      );
    }
  }
  const servers = source.current().file?.servers;
  const problem = servers !== undefined
    ? command.length > 0 || remote
      ? "the policy names its servers (servers:): expected no command and no url"
      : options.pins !== undefined
      ? "the policy names its servers (servers:): expected pins in each server's entry, not --pins"
      : options.sandbox !== undefined
      ? "the policy names its servers (servers:): expected sandbox in each server's entry"
      : undefined
    : command.length === 0 && !remote
    ? "expected the server command, a url, or a policy that names its servers (servers:)"
    : undefined;
  if (problem !== undefined) {
    await source.close();
    await audit?.close();
    throw new TypeError(`Cannot start the gate: ${problem}`);
  }
  // The command line's --redis, or the policy file's redis:, read once.
  const redisUrl = options.redis ?? source.current().file?.redis;
  // With redis, the pins live there, shared by the gate's instances.
  const pinStores = redisUrl === undefined || listen === undefined
    ? undefined
    : redisPinStores(redisUrl, log);
  let pins: Pins | undefined;
  if (servers === undefined) {
    // The command line's --pins, or the policy file's `pins`.
    const pinsPath = options.pins ??
      (typeof options.policy === "string"
        ? await pinsInPolicy(options.policy).catch(() => undefined)
        : undefined);
    if (pinsPath !== undefined) {
      try {
        pins = await Pins.open(pinsPath, {
          newTools: options.newTools,
          audit,
          log,
          ...(pinStores === undefined
            ? {}
            : { store: await pinStores.open(pinsPath) }),
        });
      } catch (error) {
        await source.close();
        await audit?.close();
        await pinStores?.close();
        throw new Error(`Cannot read the pins: ${messageOf(error)}`);
      }
    }
  }
  const closeShared = async () => {
    await source.close().catch(() => {});
    await pins?.close();
    await pinStores?.close();
    await audit?.close();
  };
  // One object for every gate, so that callers' views are shared.
  const defaults = { unprobed, tools };
  // One gate in front of the server(s) for `host`: the process's own
  // stdio, an HTTP session, or the stateless callers of an HTTP gate;
  // for `caller`, a caller identified by its token (auth:).
  const open = async (
    host: HostSide,
    shared: {
      close: boolean;
      remember?: boolean;
      flowStore?: FlowStore;
      rememberedStore?: RememberedStore;
      rounds?: SharedRounds;
    },
    caller?: Caller,
  ): Promise<Gate> => {
    // What this gate shares with others, or keeps, named alike for both.
    const kept = {
      closeShared: shared.close,
      remember: shared.remember,
      ...(shared.flowStore === undefined
        ? {}
        : { flowStore: shared.flowStore }),
      ...(shared.rememberedStore === undefined
        ? {}
        : { rememberedStore: shared.rememberedStore }),
      ...(shared.rounds === undefined ? {} : { rounds: shared.rounds }),
    };
    if (servers !== undefined) {
      return await startAggregate(servers, {
        startTimeoutMs: options.startTimeoutMs,
        pingTimeoutMs: options.pingTimeoutMs,
        source,
        audit,
        log,
        policyPath: options.policy as string,
        defaults,
        ...(caller === undefined ? {} : { caller }),
        newTools: options.newTools,
        pinStores,
        graceMs,
        approvalTtlMs,
        ...host,
        telemetry,
        ...kept,
      });
    }
    return await startServerGate(command, {
      url: options.url,
      headers: options.headers,
      env: options.env,
      sandbox: options.sandbox,
    }, {
      // The caller's view: the base and the principals its token matches.
      source: caller === undefined
        ? source
        : callerPolicySource(source, caller.claims, { defaults }),
      hideNeverRun: caller !== undefined,
      ...(caller?.claims === undefined
        ? {}
        : { caller: auditCaller(caller.claims, source) }),
      audit,
      log,
      pins,
      graceMs,
      approvalTtlMs,
      ...host,
      telemetry,
      ...kept,
    });
  };
  if (redisUrl !== undefined && listen === undefined) {
    await closeShared();
    throw new TypeError(
      "Cannot start the gate: redis keeps the approval page's approvals, which only a gate served over HTTP has: expected listen (--http) too",
    );
  }
  if (listen !== undefined) {
    let redis: Awaited<ReturnType<typeof redisApprovals>> | undefined;
    try {
      // One board for every session (in Redis, for every instance), its
      // page beside /mcp, and the approvers' sign-in with auth:'s issuer.
      if (redisUrl !== undefined) {
        redis = await redisApprovals(redisUrl, log);
      }
      const keys = await approvalKeys(redis?.secret);
      // With redis, one key for the approval rounds of every instance's
      // gates, with nonces spent where all of them see it: a host's answer
      // that reaches another instance than the one that asked counts
      // there. Without, each gate keeps a key and nonces of its own.
      const spent = redis === undefined
        ? undefined
        : new RedisSpentAnswers(redis.link);
      let origin = () => "";
      const approvals = approvalService(source, {
        identify: options.identifyViewer,
        ttlMs: approvalTtlMs,
        signIn: await approverSignIn(source, {
          client: options.approverClient,
          policyFile: typeof options.policy === "string"
            ? options.policy
            : undefined,
          origin: () => origin(),
          key: keys.signIn,
        }),
        keys,
        ...(redis === undefined ? {} : { store: redis.store }),
      });
      origin = () => approvals.origin();
      const gate = serveGate({
        listen,
        log,
        maxSessions: options.maxSessions,
        pages: { prefix: APPROVALS_PREFIX, handler: approvals.handler },
        // With auth:, each session's gate is made for the verified token
        // its first message carries, and decides by that caller's view.
        // With redis, a gate of 2026-07-28 callers keeps their flow
        // history there, under their key, so that each instance decides
        // their next call with it; a session's gate keeps its own in
        // memory (its session is sticky to one instance). So are the
        // approvals such a caller chose to remember, when the caller has
        // a subject (in its gate's memory without redis: the gate is that
        // caller's alone): without one (or without auth:) many callers
        // share the gate, and it remembers none.
        open: async (host, caller) => {
          const remembered = caller.shared && caller.key !== undefined &&
              caller.claims?.sub !== undefined
            ? { link: redis?.link, key: caller.key }
            : undefined;
          return await open(
            { host, approvals: callerApprovals(approvals, caller) },
            {
              close: false,
              remember: !caller.shared || remembered !== undefined,
              ...(redis === undefined || !caller.shared ? {} : {
                flowStore: new RedisFlowStore(
                  redis.link,
                  await flowKey(caller.key ?? ""),
                ),
              }),
              ...(remembered?.link === undefined ? {} : {
                rememberedStore: new RedisRememberedStore(
                  remembered.link,
                  await callerStoreKey("remembered", remembered.key),
                ),
              }),
              // A session's rounds are its own; a shared gate's are its
              // callers' on every instance.
              ...(spent === undefined ? {} : {
                rounds: {
                  key: keys.rounds,
                  spent,
                  bound: caller.shared
                    ? `caller ${caller.key ?? ""}`
                    : `session ${crypto.randomUUID()}`,
                },
              }),
            },
            auth === undefined ? undefined : caller,
          );
        },
        closeShared: async () => {
          await closeShared();
          await redis?.store.close();
        },
        ...(oauth === undefined || auth === undefined ? {} : {
          oauth,
          ...(auth.resource === undefined
            ? {}
            : { allowedHosts: hostsFor(listen, auth.resource) }),
          check: scopeCheck({
            file: () => source.current().file,
            resource: auth.resource,
            path: "/mcp",
            always: auth.scopes,
          }),
        }),
      });
      // Hosts and browsers reach a gate with a public name at its resource URL.
      const resource = source.current().file?.auth?.resource;
      approvals.listening(
        resource === undefined ? gate.url : new URL(resource),
      );
      return gate;
    } catch (error) {
      await closeShared();
      await redis?.store.close();
      throw error;
    }
  }
  try {
    return await open({
      readable: options.readable,
      writable: options.writable,
    }, { close: true });
  } catch (error) {
    if (servers === undefined) await closeShared();
    throw error;
  }
}

/** Where a gate's host is: streams (stdio), or a connection of parsed messages. */
type HostSide = {
  readable?: ReadableStream<Uint8Array>;
  writable?: WritableStream<Uint8Array>;
  host?: MessageTransport;
  approvals?: CallerApprovals;
};

/**
 * The Host names a gate reached by its public resource URL accepts: the
 * loopback ones, the address it listens on, and the resource's.
 */
function hostsFor(
  listen: { hostname: string },
  resource: string,
): string[] {
  const hosts = new Set(LOOPBACK_HOSTS);
  if (listen.hostname !== "0.0.0.0" && listen.hostname !== "::") {
    hosts.add(
      listen.hostname.includes(":") ? `[${listen.hostname}]` : listen.hostname,
    );
  }
  hosts.add(new URL(resource).hostname);
  return [...hosts];
}

/** The gate's telemetry when `on` (by default, under OTEL_DENO=true); only then is the API loaded. */
async function loadTelemetry(
  on: boolean | undefined,
): Promise<GateTelemetry | undefined> {
  if (!(on ?? otelDeno())) return undefined;
  const { OtelTelemetry } = await import("./_otel.ts");
  return new OtelTelemetry();
}

/** Whether Deno exports telemetry (OTEL_DENO=true), asked only with the permission to read it. */
function otelDeno(): boolean {
  const variable = { name: "env", variable: "OTEL_DENO" } as const;
  if (Deno.permissions.querySync(variable).state !== "granted") return false;
  return Deno.env.get("OTEL_DENO") === "true";
}
