// Internal: the decision on each tools/call of the host. A probed tool is
// probed and its patterns decided by the policy in force; any other tool
// gets its `tools` entry or the `unprobed` decision. Then the call is
// forwarded, refused, or the user is asked: with `elicitation/create` in a
// 2025 session, in rounds (_approval_round.ts) from 2026-07-28. Each
// decided call is one audit line. The steps are methods, in the order a
// call meets them: #check, #pinsOf, #verdict, then #forward, #refuse (the
// one way a decided call is refused) or #ask.

import { RPC_ERROR } from "../jsonrpc/mod.ts";
import { META_PERMISSION_PATTERNS } from "../patterns/probe_meta.ts";
import { isRecord, jsonType } from "../_util/json_type.ts";
import { didYouMean } from "../_util/nearest_names.ts";
import { joinName } from "../_util/mount_names.ts";
import type { ApprovalRound, ApprovalRounds } from "./_approval_round.ts";
import type {
  AuditCaller,
  AuditOutcome,
  AuditRecord,
  AuditSink,
} from "./audit/_audit.ts";
import {
  probedVerdict,
  toolVerdict,
  unprobedVerdict,
  type Verdict,
  withArguments,
} from "./policy/_decide.ts";
import {
  compileTemplate,
  FillError,
  fillTemplates,
} from "./policy/_template.ts";
import {
  mappedVerdict,
  mappedVerdictNow,
  patternVerdict,
} from "./policy/_mapped_call.ts";
import {
  type FlowCall,
  FlowSession,
  type FlowVerdict,
} from "./policy/_flows.ts";
import type { FlowStore } from "./_flow_store.ts";
import type { RememberedStore } from "./_remembered_store.ts";
import { messageOf } from "./_log.ts";
import {
  asksForms,
  asksUrls,
  eraCapabilities,
  eraMeta,
  isStateless,
  refusal,
} from "./_era.ts";
import {
  Cancelled,
  type PendingCall,
  type PendingCalls,
} from "./_pending_calls.ts";
import {
  callToForward,
  probeParams,
  readProbeAnswer,
} from "./_pattern_meta.ts";
import { askedAsNew, type Pins, type PinState } from "./pins/_pins.ts";
import type { PolicySource } from "./policy/_policy_source.ts";
import {
  approvalSchema,
  RememberedApprovals,
  remembersSession,
} from "./_remembered.ts";
import type { HostRequest, Relay } from "./_relay.ts";
import { recordedPatterns } from "./policy/_redact.ts";
import type { ToolList } from "./pins/_tool_list.ts";
import type { CallerApprovals } from "./_approval_routes.ts";
import type { ApprovalBoard } from "./approvals/_board.ts";
import {
  elicitationComplete,
  type PageApproval,
  pageMessage,
  urlElicitation,
  urlRequired,
} from "./_ask_by_url.ts";

/** What a {@linkcode Gatekeeper} decides with. */
export interface GatekeeperOptions {
  /** The policy in force. */
  source: PolicySource;
  /** The server's tools, as far as seen. */
  tools: ToolList;
  /** Where each decided call is recorded. */
  audit: AuditSink | undefined;
  /** The gate's own lines. */
  log: (line: string) => void;
  /** The approvals asked of 2026-07-28 hosts. */
  rounds: ApprovalRounds;
  /** The tools' pins, when the gate keeps them. */
  pins?: Pins;
  /** The session's flows, shared by the servers of an aggregate; the gatekeeper's own otherwise. */
  flows?: FlowSession;
  /**
   * Where the caller's flow history lives instead of `flows` (`--redis`,
   * for a gate of 2026-07-28 callers): read before each decision, added
   * to before a call that set a rule off is forwarded.
   */
  flowStore?: FlowStore;
  /**
   * Whether an approval may last (remembered for later calls); off where
   * many callers share the gate.
   *
   * @default {true}
   */
  remember?: boolean;
  /**
   * Where remembered approvals live instead of the gatekeeper's memory
   * (`--redis`, for a gate of one identified 2026-07-28 caller): looked up
   * for a call the policy asks about, added to before an approved call
   * is forwarded.
   */
  rememberedStore?: RememberedStore;
  /** The server's name and prefix in an aggregate, which questions and refusals name. */
  server?: { name: string; prefix: string };
  /** Who calls, as each audit line names them (a gate made for a caller, `auth:`). */
  caller?: () => AuditCaller;
  /**
   * The approval page of a gate served over HTTP: a host that cannot be
   * asked with a form is sent there (_ask_by_url.ts).
   */
  approvals?: CallerApprovals;
}

/** How far the decision on one call got: what a cancellation audits. */
interface Progress {
  /** The call's tool, once its name is checked. */
  tool?: string;
  /** The verdict, once the policy decided. */
  verdict?: Verdict;
  /** Whether the server's tool list lacks the tool. */
  unlisted?: boolean;
  /** Whether the call has its audit line already. */
  recorded: boolean;
}

/** A well-formed call on its way through the decision path. */
interface Deciding {
  message: HostRequest;
  call: PendingCall;
  params: Record<string, unknown>;
  name: string;
  meta: Record<string, unknown> | undefined;
  /** The call's own revision and capabilities (2026-07-28 hosts). */
  era: Record<string, unknown> | undefined;
  /** The round of the gate's own the call answers, once read. */
  round: ApprovalRound | undefined;
  started: number;
  progress: Progress;
  /** Whether the server's tool list has the tool (known after pins). */
  listed: boolean;
  /**
   * Whether this is a host's `resources/read` of a file (tool
   * `resources/read`): refused with an error, not a tool's result.
   */
  read?: true;
}

/** The verdict on a call, and what forwarding it needs. */
interface Decided {
  verdict: Verdict;
  /** The call as the session's flows see it, when the policy has flows. */
  flowCall: FlowCall | undefined;
  /** The flows set off when the call was decided (read from the store, with one). */
  session: FlowSession | undefined;
  /** The patterns approved on a forwarded probed call. */
  approved: readonly string[] | undefined;
}

/** Decides the host's calls, one {@linkcode PendingCalls} entry each. */
export class Gatekeeper {
  #relay: Relay;
  #pending: PendingCalls;
  #tools: ToolList;
  #source: PolicySource;
  #audit: AuditSink | undefined;
  #log: (line: string) => void;
  #hostCanElicit = false;
  #hostTakesUrls = false;
  #approvals: CallerApprovals | undefined;
  #rounds: ApprovalRounds;
  #pins: Pins | undefined;
  // In memory, for this gate's life: its one host's session (a 2026-07-28
  // host has none, so its approvals last as long as the gate process).
  #remembered = new RememberedApprovals();
  #rememberedStore: RememberedStore | undefined;
  #remembers: boolean;
  // The flows set off in the same session: the gate's life, as above
  // (an aggregate's, across its servers).
  #flows: FlowSession;
  #flowStore: FlowStore | undefined;
  #server: { name: string; prefix: string } | undefined;
  #caller: (() => AuditCaller) | undefined;

  constructor(relay: Relay, pending: PendingCalls, options: GatekeeperOptions) {
    this.#relay = relay;
    this.#pending = pending;
    this.#tools = options.tools;
    this.#source = options.source;
    this.#audit = options.audit;
    this.#log = options.log;
    this.#rounds = options.rounds;
    this.#pins = options.pins;
    this.#flows = options.flows ?? new FlowSession();
    this.#flowStore = options.flowStore;
    this.#server = options.server;
    this.#caller = options.caller;
    this.#remembers = options.remember ?? true;
    this.#rememberedStore = options.rememberedStore;
    this.#approvals = options.approvals;
  }

  /** Reads the capabilities of a host's `initialize`: can it be asked? */
  hostInitialized(params: Record<string, unknown> | undefined): void {
    this.#hostCanElicit = asksForms(params?.capabilities);
    this.#hostTakesUrls = asksUrls(params?.capabilities);
  }

  /** Decides a host's `tools/call` and answers or forwards it. */
  call(message: HostRequest): void {
    this.#pending.run(message.id, async (call) => {
      const started = performance.now();
      const progress: Progress = { recorded: false };
      try {
        await this.#decide(message, call, { started, progress });
      } catch (error) {
        // Cancelled by the host before the call was forwarded or answered:
        // it is dropped, and audited with what was known by then.
        if (error instanceof Cancelled && !progress.recorded) {
          const { tool, verdict } = progress;
          this.#record({
            tool: tool ?? null,
            patterns: verdict?.patterns ?? [],
            decision: verdict?.decision ?? "error",
            outcome: "cancelled",
            rule: verdict?.rule ?? null,
            ...(progress.unlisted ? { unlisted: true } : {}),
            ...(verdict === undefined ? {} : flowFields(verdict)),
          }, started);
        }
        throw error;
      }
    });
  }

  /**
   * Decides a host's `resources/read` of a `file://` URI as the probe
   * would a tool that reads that file: `read:<path>` from the policy's
   * first root (by `unprobed` without roots), tightened by the flows.
   * `false` for any other URI, which passes as it is.
   */
  read(message: HostRequest): boolean {
    const uri = message.params?.uri;
    if (typeof uri !== "string" || !uri.startsWith("file:")) return false;
    this.#pending.run(message.id, async (call) => {
      const started = performance.now();
      const inForce = await this.#pending.withCancel(
        call,
        this.#source.fresh(),
      );
      let verdict: Verdict;
      if (inForce.mapping.files === undefined) {
        verdict = unprobedVerdict(READ_METHOD, inForce.unprobed);
      } else {
        let patterns: string[];
        try {
          patterns = await this.#pending.withCancel(
            call,
            fillTemplates(
              [READ_TEMPLATE],
              { path: decodeURIComponent(new URL(uri).pathname) },
              inForce.mapping.files,
            ),
          );
        } catch (error) {
          if (!(error instanceof FillError || error instanceof TypeError)) {
            throw error;
          }
          this.#relay.answerHost(message.id, {
            error: {
              code: RPC_ERROR.INVALID_PARAMS,
              message: `The gate cannot check this read of ${uri}: ${
                (error as Error).message
              }`,
            },
          });
          return;
        }
        verdict = probedVerdict(
          READ_METHOD,
          patterns,
          inForce.policy.evaluate(patterns),
        );
      }
      let session: FlowSession | undefined;
      if (inForce.flows !== undefined) {
        try {
          session = await this.#pending.withCancel(call, this.#sessionFlows());
        } catch (error) {
          if (error instanceof Cancelled) throw error;
          await this.#record({
            tool: READ_METHOD,
            patterns: verdict.patterns,
            decision: "error",
            outcome: "refused",
            rule: null,
          }, started);
          this.#relay.answerHost(message.id, {
            error: {
              code: RPC_ERROR.INTERNAL_ERROR,
              message: this.#named(historyUnread(READ_METHOD, error)),
            },
          });
          return;
        }
        verdict = session.tighten(
          inForce.flows,
          this.#flowCall(READ_METHOD, verdict),
          verdict,
        );
      }
      const line = (outcome: AuditOutcome) =>
        this.#record({
          tool: READ_METHOD,
          patterns: verdict.patterns,
          decision: verdict.decision,
          outcome,
          rule: verdict.rule,
          ...flowFields(verdict),
        }, started);
      if (
        verdict.decision === "ask" && !this.#hostCanElicit &&
        this.#approvals?.service.enabled() === true
      ) {
        // Sent to the gate's page as an asked tool call is: held while a
        // session's host that takes URLs shows it, refused with its URL
        // (-32042) for any other to read again.
        const params = message.params ?? {};
        const era = eraMeta(isRecord(params._meta) ? params._meta : undefined);
        const hold = !isStateless(era) && this.#hostTakesUrls;
        await this.#askByUrl(
          {
            message,
            call,
            params,
            name: READ_METHOD,
            meta: undefined,
            era,
            round: undefined,
            started,
            progress: { recorded: false, tool: READ_METHOD, verdict },
            listed: true,
            read: true,
          },
          {
            verdict,
            flowCall: undefined,
            approved: undefined,
            session,
          },
          this.#approvals,
          { mode: hold ? "hold" : "refuse" },
        );
        return;
      }
      let action = verdict.decision === "allow" ? "accept" : "refuse";
      if (verdict.decision === "ask" && this.#hostCanElicit) {
        ({ action } = await this.#elicit(
          call,
          this.#named(verdict.question),
          false,
        ));
      }
      if (action !== "accept") {
        await line(verdict.decision === "deny" ? "denied" : "refused");
        this.#relay.answerHost(message.id, {
          error: {
            code: RPC_ERROR.INVALID_REQUEST,
            message: this.#named(
              verdict.decision === "deny"
                ? verdict.denied
                : verdict.decision === "ask" && this.#hostCanElicit
                ? verdict.declined(action)
                : verdict.cannotAsk,
            ),
          },
        });
        return;
      }
      const written = await line(
        verdict.decision === "allow" ? "forwarded" : "approved",
      );
      if (inForce.flows !== undefined) {
        const kept = await this.#setOff(
          session ?? this.#flows,
          inForce.flows,
          this.#flowCall(READ_METHOD, verdict),
          written ?? undefined,
        );
        if (kept !== undefined) {
          this.#relay.answerHost(message.id, {
            error: {
              code: RPC_ERROR.INTERNAL_ERROR,
              message: this.#named(historyUnkept(READ_METHOD, kept)),
            },
          });
          return;
        }
      }
      if (call.cancelled) throw new Cancelled("cancelled");
      this.#relay.forward(message);
    });
    return true;
  }

  // The decision path, step by step: check the call, its pins, its
  // verdict; then forward, refuse or ask. Each step answers the host
  // itself when the call ends there.
  async #decide(
    message: HostRequest,
    call: PendingCall,
    { started, progress }: { started: number; progress: Progress },
  ): Promise<void> {
    const c = await this.#check(message, call, { started, progress });
    if (c === undefined) return;
    const pinned = await this.#pinsOf(c);
    if (pinned?.kind === "withheld") {
      await this.#refuse(c, pinned.refusal, {
        line: {
          tool: c.name,
          patterns: [],
          decision: "deny",
          outcome: "withheld",
          rule: "pins",
        },
        lineFirst: true,
      });
      return;
    }
    const probed = this.#tools.get(c.name)?.probed === true;
    if (probed && c.meta?.[META_PERMISSION_PATTERNS] === true) {
      // The host's own probe runs nothing. Any other flag value is decided
      // as a call (a toolkit server refuses it; no other server may run it
      // unchecked).
      this.#forwardCall(call, message, undefined, undefined, false);
      return;
    }
    const decided = await this.#verdict(c, { probed, pinned });
    if (decided === undefined) return;
    const { verdict } = decided;
    if (verdict.decision === "allow") {
      await this.#forward(c, decided, { outcome: "forwarded" });
      return;
    }
    if (verdict.decision === "deny") {
      await this.#refuse(c, verdict.denied, {
        line: this.#lineOf(c, verdict, "denied"),
      });
      return;
    }
    // An approval lasts for patterns alone, never for a call that its tools
    // entry or its pins ask about every time; the policy decided first.
    const current = this.#source.current();
    const lasting = this.#remembers && pinned?.kind !== "ask" &&
      !("flow" in verdict) &&
      current.mapping.decision(c.name)?.decision !== "ask" &&
      this.#remembered.canRemember(verdict.patterns, current.policy);
    if (lasting && await this.#covered(c, verdict.patterns)) {
      await this.#forward(c, decided, {
        outcome: "approved",
        extra: { rule: "remembered" },
      });
      return;
    }
    await this.#ask(c, decided, lasting);
  }

  /**
   * The first step: a call whose name or arguments are malformed is
   * answered with an error and ends here (`undefined`); any other goes on
   * with its revision and, when it answers a round of the gate's own, that
   * round.
   */
  async #check(
    message: HostRequest,
    call: PendingCall,
    { started, progress }: { started: number; progress: Progress },
  ): Promise<Deciding | undefined> {
    const params = message.params ?? {};
    const name = params.name;
    const meta = isRecord(params._meta) ? params._meta : undefined;
    const malformed = callProblem(params);
    const invalid = (tool: string | null, text: string) => {
      progress.recorded = true;
      this.#record({
        tool,
        patterns: [],
        decision: "error",
        outcome: "invalid-params",
        rule: null,
      }, started);
      this.#relay.answerHost(message.id, {
        error: { code: RPC_ERROR.INVALID_PARAMS, message: text },
      });
      return undefined;
    };
    if (malformed !== undefined || typeof name !== "string") {
      // Refused here, never forwarded: a lax server might run a tool the
      // gate could not decide (["always_denied"] read as "always_denied"),
      // or read arguments the probe did not see.
      return invalid(
        typeof name === "string" ? name : null,
        `Invalid params for tools/call: ${malformed}`,
      );
    }
    // A 2026-07-28 host names its revision and capabilities on every
    // request, not in initialize: the gate's own requests for this call
    // must carry them too, or the server cannot tell what they are.
    const era = eraMeta(meta);
    // A call that answers an earlier round of the gate's own carries the
    // gate's state, which the server must not see.
    progress.tool = name;
    const round = era !== undefined && params.requestState !== undefined
      ? await this.#pending.withCancel(call, this.#rounds.read(name, params))
      : undefined;
    if (round?.refused !== undefined) {
      // An answer to a question the gate cannot have asked: never taken
      // for a server's round, whose state would go on to the server.
      return invalid(name, round.refused);
    }
    return {
      message,
      call,
      params,
      name,
      meta,
      era,
      round,
      started,
      progress,
      listed: true,
    };
  }

  /**
   * The second step: what the tool's pins say of the call, once the
   * server's tool list knows the tool (or cannot).
   */
  async #pinsOf(c: Deciding): Promise<PinState | undefined> {
    // A first list not yet pinned is finished first: its tools are pinned
    // only once it has ended.
    if (this.#tools.get(c.name) === undefined || this.#pins?.recording) {
      await this.#pending.withCancel(c.call, this.#tools.fetch(c.era));
    }
    // A tool the server does not list, even in a fresh list, is decided as
    // one without the probe (its tools entry, or unprobed) and, if let
    // through, answered by the server as the server answers it. A tool it
    // hides from its list is never run unchecked.
    c.listed = this.#tools.get(c.name) !== undefined;
    c.progress.unlisted = !c.listed;
    // A tool that changed since it was pinned is not run, nor probed.
    return this.#pins === undefined
      ? undefined
      : await this.#pending.withCancel(c.call, this.#pins.check(c.name));
  }

  /**
   * The third step: the verdict of the policy in force on the call, by its
   * probed patterns or by its tools entry, templates or `unprobed`; then
   * tightened by its pins and the session's flows. `undefined` when the
   * call was answered on the way (refused, or the probe failed).
   */
  async #verdict(
    c: Deciding,
    { probed, pinned }: { probed: boolean; pinned: PinState | undefined },
  ): Promise<Decided | undefined> {
    const { call, message, name, params, era } = c;
    // A policy file saved before this call decides it, however recent.
    const inForce = this.#source.freshNow?.() ??
      await this.#pending.withCancel(call, this.#source.fresh());
    const entry = inForce.mapping.decision(name);
    let verdict: Verdict;
    let deciding = inForce;
    if (!probed) {
      // By its tools entry (a decision, or templates filled from the
      // arguments), its annotations, or unprobed (_mapped_call.ts).
      const listed = {
        listed: c.listed,
        annotations: this.#tools.get(name)?.annotations,
        ...(c.listed
          ? {}
          : { suggestion: didYouMean(name, this.#tools.names()) }),
      };
      // Only templates need a wait (their files' real paths).
      const mapped = mappedVerdictNow(name, inForce, listed) ??
        await this.#pending.withCancel(
          call,
          mappedVerdict(name, params.arguments, inForce, listed),
        );
      if ("refused" in mapped) {
        await this.#refuse(c, mapped.refused, {
          line: {
            tool: name,
            patterns: [],
            decision: "error",
            outcome: "probe-error",
            rule: null,
          },
          lineFirst: true,
        });
        return undefined;
      }
      verdict = mapped.verdict;
    } else if (entry?.decision === "deny") {
      // Refused whatever its patterns: there is nothing to probe for.
      verdict = toolVerdict(name, entry.decision, entry.source);
    } else {
      inForce.mapping.probed(name, this.#log);
      const answer = await this.#pending.requestServer(
        call,
        "tools/call",
        probeParams(params, era),
      );
      const probe = readProbeAnswer(answer, name, era);
      if ("reply" in probe) {
        this.#relay.answerHost(message.id, probe.reply);
        this.#record({
          tool: name,
          patterns: [],
          decision: "error",
          outcome: "probe-error",
          rule: null,
        }, c.started);
        return undefined;
      }
      // The policy in force once the patterns are known, after any reload
      // during the probe.
      deciding = this.#source.current();
      verdict = patternVerdict(name, probe.patterns, deciding);
    }
    if (pinned?.kind === "ask") verdict = askedAsNew(verdict, pinned.why);
    // Rules across calls, only for a policy that has them.
    const flowCall: FlowCall | undefined = deciding.flows === undefined
      ? undefined
      : this.#flowCall(name, verdict);
    let session: FlowSession | undefined;
    if (flowCall !== undefined) {
      try {
        session = await this.#pending.withCancel(call, this.#sessionFlows());
      } catch (error) {
        if (error instanceof Cancelled) throw error;
        await this.#refuse(c, historyUnread(name, error), {
          line: {
            tool: name,
            patterns: verdict.patterns,
            decision: "error",
            outcome: "refused",
            rule: null,
          },
          lineFirst: true,
        });
        return undefined;
      }
      verdict = session.tighten(deciding.flows!, flowCall, verdict);
    }
    c.progress.verdict = verdict;
    return {
      verdict,
      flowCall,
      session,
      approved: probed ? verdict.patterns : undefined,
    };
  }

  /**
   * Forwards a call the policy, a remembered approval or the user let
   * through. Its audit line is on disk before the server sees the call (a
   * gate killed in between leaves no call run without its line), and the
   * flows its patterns meet are set off before the server can answer it:
   * a call sent after that answer is decided with them.
   */
  async #forward(
    c: Deciding,
    { verdict, flowCall, session, approved }: Decided,
    { outcome, extra = {}, remember = false }: {
      outcome: AuditOutcome;
      extra?: Partial<AuditRecord>;
      remember?: boolean;
    },
  ): Promise<void> {
    c.progress.recorded = true;
    const line = await this.#record(
      this.#lineOf(c, verdict, outcome, extra),
      c.started,
    );
    const flows = this.#source.current().flows;
    if (flows !== undefined) {
      // Flows a reload brought in after the decision: with a store, a
      // fresh session, whose additions the store merges with its own.
      const noted = session ??
        (this.#flowStore === undefined ? this.#flows : new FlowSession());
      const kept = await this.#setOff(
        noted,
        flows,
        flowCall ?? this.#flowCall(c.name, verdict),
        line ?? undefined,
      );
      if (kept !== undefined) {
        // Not forwarded: the next call, on any instance, would be decided
        // without what this one set off.
        this.#relay.answerHost(c.message.id, {
          error: {
            code: RPC_ERROR.INTERNAL_ERROR,
            message: this.#named(historyUnkept(c.name, kept)),
          },
        });
        return;
      }
    }
    if (remember) await this.#remember(verdict.patterns);
    this.#forwardCall(c.call, c.message, approved, c.round);
  }

  /**
   * Whether a remembered approval covers every one of `patterns`: in
   * memory, or in the store. A store that cannot answer covers nothing,
   * and the call is asked.
   */
  async #covered(c: Deciding, patterns: readonly string[]): Promise<boolean> {
    const store = this.#rememberedStore;
    if (store === undefined) return this.#remembered.covers(patterns);
    try {
      return await this.#pending.withCancel(
        c.call,
        store.covers(patterns, this.#server?.name),
      );
    } catch (error) {
      if (error instanceof Cancelled) throw error;
      this.#log(
        `cannot read the remembered approvals, so the call is asked: ${
          messageOf(error)
        }`,
      );
      return false;
    }
  }

  /**
   * Remembers `patterns` as approved, in memory or in the store. A store
   * that cannot keep them does not stop the approved call: it is asked
   * again next time.
   */
  async #remember(patterns: readonly string[]): Promise<void> {
    const store = this.#rememberedStore;
    if (store === undefined) {
      this.#remembered.remember(patterns);
      return;
    }
    try {
      await store.remember(patterns, this.#server?.name);
    } catch (error) {
      this.#log(
        `cannot remember the approval, so the next such call is asked: ${
          messageOf(error)
        }`,
      );
    }
  }

  /**
   * Refuses a call with `text`, as a tool's error result the host's model
   * reads, after writing its audit `line` (and, with `lineFirst`, once the
   * line is written). The one way a decided call is refused.
   */
  async #refuse(
    c: Deciding,
    text: string,
    { line, lineFirst = false }: {
      line: Omit<AuditRecord, "time" | "elapsedMs">;
      lineFirst?: boolean;
    },
  ): Promise<void> {
    c.progress.recorded = true;
    const written = this.#record(line, c.started);
    if (lineFirst) await written;
    this.#relay.answerHost(
      c.message.id,
      c.read
        ? {
          error: {
            code: RPC_ERROR.INVALID_REQUEST,
            message: this.#named(text),
          },
        }
        : { result: refusal(this.#named(text), c.era) },
    );
  }

  /**
   * Asks the user about a call the verdict asks about: in rounds for a
   * 2026-07-28 host, with `elicitation/create` in a session; the call is
   * forwarded once accepted, refused otherwise, and refused at once when
   * the host cannot ask.
   */
  async #ask(c: Deciding, decided: Decided, lasting: boolean): Promise<void> {
    const { verdict } = decided;
    // A 2026-07-28 host declares its capabilities on each request, and is
    // asked in rounds: the question is this call's answer.
    const stateless = isStateless(c.era);
    const canAsk = stateless
      ? asksForms(eraCapabilities(c.era))
      : this.#hostCanElicit;
    if (!canAsk && this.#approvals?.service.enabled() === true) {
      // Sent to the gate's page: held while a session's host that takes
      // URLs shows it, in rounds for a 2026-07-28 caller that takes them,
      // refused with its URL for any other to call again.
      const takesUrls = stateless
        ? asksUrls(eraCapabilities(c.era))
        : this.#hostTakesUrls;
      await this.#askByUrl(c, decided, this.#approvals, {
        mode: !takesUrls ? "refuse" : stateless ? "round" : "hold",
      });
      return;
    }
    if (!canAsk) {
      await this.#refuse(c, verdict.cannotAsk, {
        line: this.#lineOf(c, verdict, "refused"),
      });
      return;
    }
    const question = this.#named(
      withArguments(verdict.question, c.params.arguments),
    );
    let action: string;
    let remember = false;
    if (stateless) {
      c.round ??= await this.#pending.withCancel(
        c.call,
        this.#rounds.read(c.name, c.params),
      );
      const answered = await this.#pending.withCancel(
        c.call,
        c.round.answer(verdict.patterns),
      );
      if (answered === undefined) {
        this.#relay.telemetry?.decided({
          ...verdict,
          patterns: this.#recorded(c.name, verdict.patterns),
          outcome: "asked",
        });
        this.#relay.answerHost(c.message.id, {
          result: c.round.ask(question, verdict.patterns, {
            schema: approvalSchema(
              lasting,
              this.#rememberedStore?.lasting ?? "until the gate stops",
            ),
          }),
        });
        return;
      }
      action = answered;
      remember = c.round.remembers;
    } else {
      ({ action, remember } = await this.#elicit(c.call, question, lasting));
    }
    if (action === "accept") {
      remember &&= lasting;
      await this.#forward(c, decided, {
        outcome: "approved",
        extra: remember ? { remember: "session" } : {},
        remember,
      });
      return;
    }
    await this.#refuse(c, verdict.declined(action), {
      line: this.#lineOf(
        c,
        verdict,
        action === "decline" ? "declined" : "refused",
      ),
    });
  }

  /**
   * A 2026-07-28 caller's answer to the gate's URL round, decided by the
   * page: the approval the round named, when it is this very caller's
   * call (its key), runs the call once approved and refuses it once denied
   * or expired; `true` when the call ended here. A round answered while
   * the approval is pending, spent, or not this call's is asked again
   * (`false`), as is a call that answers no URL round.
   */
  async #urlRoundAnswered(
    c: Deciding,
    decided: Decided,
    board: ApprovalBoard,
    key: string,
  ): Promise<boolean> {
    const { verdict } = decided;
    const answered = await this.#pending.withCancel(
      c.call,
      c.round!.answerUrl(verdict.patterns),
    );
    if (answered === undefined) return false;
    if (answered.action !== "accept") {
      // The user would not go to the page: nothing to wait for.
      await this.#refuse(c, verdict.declined(answered.action), {
        line: this.#lineOf(
          c,
          verdict,
          answered.action === "decline" ? "declined" : "refused",
        ),
      });
      return true;
    }
    const approval = await this.#pending.withCancel(
      c.call,
      board.get(answered.approval),
    );
    if (approval === undefined || approval.call !== key) return false;
    const approver = approval.decidedBy;
    if (approval.state === "approved") {
      if (approval.redeemed || !await board.redeem(approval.id)) return false;
      await this.#forward(c, decided, {
        outcome: "approved",
        extra: { approver },
      });
      return true;
    }
    if (approval.state === "pending") return false;
    const why = approval.state === "denied"
      ? `An approver (${approver}) denied this call of ${c.name} on the gate's page.`
      : `Nobody approved this call of ${c.name} on the gate's page before its approval expired.`;
    await this.#refuse(c, `${why} Nothing was run.`, {
      line: this.#lineOf(
        c,
        verdict,
        approval.state === "denied" ? "declined" : "refused",
        approver === undefined ? {} : { approver },
      ),
    });
    return true;
  }

  /**
   * Asks on the approval page. A call approved there already for this
   * caller (a host's retry after the URL-required error) runs, once. Any
   * other opens an approval (or finds the one still pending) and, in
   * `hold` mode, sends the host to the page and waits for the decision or
   * the expiry; in `round` mode (2026-07-28) answers with a round that
   * sends the caller there, whose answer the page's decision decides
   * (#urlRoundAnswered); in `refuse` mode, is refused with the
   * URL-required error.
   */
  async #askByUrl(
    c: Deciding,
    decided: Decided,
    approvals: CallerApprovals,
    { mode }: { mode: "hold" | "round" | "refuse" },
  ): Promise<void> {
    const { verdict } = decided;
    const { service, asker, caller } = approvals;
    const board = service.board;
    const shown = this.#recorded(c.name, verdict.patterns);
    const server = this.#server?.name;
    const key = await this.#pending.withCancel(
      c.call,
      service.callKey(caller, { server, tool: c.name, patterns: shown }),
    );
    if (mode === "round") {
      c.round ??= await this.#pending.withCancel(
        c.call,
        this.#rounds.read(c.name, c.params),
      );
      if (await this.#urlRoundAnswered(c, decided, board, key)) return;
    }
    const found = await this.#pending.withCancel(c.call, board.find(key));
    if (found?.state === "approved" && !found.redeemed) {
      if (await board.redeem(found.id)) {
        await this.#forward(c, decided, {
          outcome: "approved",
          extra: { approver: found.decidedBy },
        });
        return;
      }
    }
    let page: PageApproval;
    if (found?.state === "pending") {
      page = { id: found.id, url: service.pageUrl(`/approvals/${found.id}`) };
    } else {
      const opened = await this.#pending.withCancel(
        c.call,
        board.open({
          ...(server === undefined ? {} : { server }),
          tool: c.name,
          patterns: shown,
          askedBy: asker,
          call: key,
        }),
      );
      page = { id: opened.id, url: service.pageUrl(opened.path) };
    }
    const message = this.#named(pageMessage(c.name, shown));
    if (mode === "round") {
      this.#relay.telemetry?.decided({
        ...verdict,
        patterns: shown,
        outcome: "asked",
      });
      this.#relay.answerHost(c.message.id, {
        result: c.round!.askUrl(page, message, verdict.patterns),
      });
      return;
    }
    if (mode === "refuse") {
      c.progress.recorded = true;
      this.#record(this.#lineOf(c, verdict, "refused"), c.started);
      this.#relay.answerHost(c.message.id, {
        error: urlRequired(page, message),
      });
      return;
    }
    const answer = await this.#pending.requestHost(
      c.call,
      "elicitation/create",
      urlElicitation(page, message),
    );
    const action = "result" in answer ? answer.result.action : "error";
    if (action !== "accept") {
      await this.#refuse(c, verdict.declined(String(action)), {
        line: this.#lineOf(
          c,
          verdict,
          action === "decline" ? "declined" : "refused",
        ),
      });
      return;
    }
    // Held until an approver decides or the approval expires; a host that
    // cancels the call ends the wait.
    const stop = new AbortController();
    let outcome;
    try {
      outcome = await this.#pending.withCancel(
        c.call,
        board.wait(page.id, stop.signal),
      );
    } finally {
      stop.abort();
    }
    this.#relay.toHost(elicitationComplete(page.id));
    const approval = await board.get(page.id);
    const approver = approval?.decidedBy;
    if (outcome === "approved" && await board.redeem(page.id)) {
      await this.#forward(c, decided, {
        outcome: "approved",
        extra: { approver },
      });
      return;
    }
    const why = outcome === "denied"
      ? `An approver (${approver}) denied this call of ${c.name} on the gate's page.`
      : outcome === "expired"
      ? `Nobody approved this call of ${c.name} on the gate's page before its approval expired.`
      : `The approval of this call of ${c.name} was spent on another call.`;
    await this.#refuse(c, `${why} Nothing was run.`, {
      line: this.#lineOf(
        c,
        verdict,
        outcome === "denied" ? "declined" : "refused",
        approver === undefined ? {} : { approver },
      ),
    });
  }

  /**
   * The flows set off so far: the session's, or with a store, the
   * caller's history read now (a call forwarded on another instance a
   * moment ago counts).
   */
  async #sessionFlows(): Promise<FlowSession> {
    if (this.#flowStore === undefined) return this.#flows;
    return new FlowSession({ state: await this.#flowStore.load() });
  }

  /**
   * Notes a forwarded call's `after` rules in `session`, and with a store
   * adds what it set off there before the call goes on. Resolves with the
   * store's error when it could not keep it.
   */
  async #setOff(
    session: FlowSession,
    flows: Parameters<FlowSession["forwarded"]>[0],
    call: FlowCall,
    line: string | undefined,
  ): Promise<unknown> {
    const added = session.forwarded(flows, call, line);
    // Most calls set nothing off, and cost no write.
    if (
      this.#flowStore === undefined ||
      (added.triggers.length === 0 && added.full === undefined)
    ) return undefined;
    try {
      await this.#flowStore.add(added);
      return undefined;
    } catch (error) {
      this.#log(
        `cannot keep what ${call.tool} set off in the flow history: ${
          (error as Error)?.message ?? error
        }`,
      );
      return error ?? new Error("unknown");
    }
  }

  /** The call as the session's flows see it: by the name the host calls it. */
  #flowCall(name: string, verdict: Verdict): FlowCall {
    const server = this.#server;
    return {
      tool: server === undefined ? name : joinName(server.prefix, name),
      ...(server === undefined ? {} : { server: server.name }),
      patterns: verdict.patterns,
      unknown: !!verdict.unknown,
    };
  }

  /** `text` for the host, naming the server in an aggregate. */
  #named(text: string): string {
    return this.#server === undefined
      ? text
      : `Server "${this.#server.name}": ${text}`;
  }

  /** The audit line of a call the policy decided. */
  #lineOf(
    c: Deciding,
    verdict: Verdict,
    outcome: AuditOutcome,
    extra: Partial<AuditRecord> = {},
  ): Omit<AuditRecord, "time" | "elapsedMs"> {
    return {
      tool: c.name,
      patterns: verdict.patterns,
      decision: verdict.decision,
      outcome,
      rule: verdict.rule,
      ...(c.listed ? {} : { unlisted: true }),
      ...flowFields(verdict),
      ...extra,
    };
  }

  /**
   * Asks a host in a session with `elicitation/create`, offering the
   * session scope when `lasting`; resolves with its action (`error` for an
   * error) and whether it chose the session.
   */
  async #elicit(
    call: PendingCall,
    question: string,
    lasting: boolean,
  ): Promise<{ action: string; remember: boolean }> {
    const answer = await this.#pending.requestHost(
      call,
      "elicitation/create",
      {
        message: question,
        requestedSchema: approvalSchema(
          lasting,
          this.#rememberedStore?.lasting,
        ),
      },
    );
    if ("error" in answer) {
      this.#log(`the host could not ask the user: ${answer.error.message}`);
      return { action: "error", remember: false };
    }
    const action = "result" in answer ? answer.result.action : undefined;
    return {
      action: typeof action === "string" ? action : "error",
      remember: "result" in answer && remembersSession(answer.result),
    };
  }

  /**
   * Forwards a call (see callToForward), or answers it with an error once
   * the server has stopped.
   */
  #forwardCall(
    call: PendingCall,
    message: HostRequest,
    approved: readonly string[] | undefined,
    round?: ApprovalRound,
    strip = true,
  ): void {
    // A call cancelled in the last await is never forwarded.
    if (call.cancelled) throw new Cancelled("cancelled");
    if (this.#relay.phase === "done") {
      this.#relay.answerHost(message.id, {
        error: {
          code: RPC_ERROR.CONNECTION_CLOSED,
          message: "The server has stopped",
        },
      });
      return;
    }
    this.#relay.forward(
      callToForward(message, approved, { params: round?.params, strip }),
    );
  }

  /**
   * What the audit and the spans may hold of a call's patterns: exec and
   * custom targets as digests, unless the policy's `record` says otherwise
   * for the tool (_redact.ts).
   */
  #recorded(
    tool: string | null,
    patterns: readonly string[],
  ): readonly string[] {
    if (patterns.length === 0) return patterns;
    return recordedPatterns(tool, patterns, this.#source.current().record);
  }

  /**
   * Writes the call's audit line; resolves once it is in the file, with
   * the line's SHA-256 when the log knows it.
   */
  #record(
    given: Omit<AuditRecord, "time" | "elapsedMs">,
    started: number,
  ): Promise<string | void> {
    const { telemetry } = this.#relay;
    // Nothing is recorded without an audit log or telemetry.
    if (this.#audit === undefined && telemetry === undefined) {
      return Promise.resolve();
    }
    const patterns = this.#recorded(given.tool, given.patterns);
    const fields = patterns === given.patterns ? given : { ...given, patterns };
    telemetry?.decided(
      this.#server === undefined
        ? fields
        : { ...fields, server: this.#server.name },
    );
    const elapsedMs = Math.round((performance.now() - started) * 1000) / 1000;
    const {
      tool,
      decision,
      outcome,
      rule,
      unlisted,
      remember,
      flow,
      since,
      approver,
    } = fields;
    if (this.#audit === undefined) return Promise.resolve();
    return this.#audit.write({
      time: new Date().toISOString(),
      ...(this.#caller === undefined ? {} : { caller: this.#caller() }),
      tool,
      patterns,
      decision,
      outcome,
      rule,
      ...(unlisted ? { unlisted } : {}),
      ...(remember ? { remember } : {}),
      ...(flow === undefined ? {} : { flow }),
      ...(since === undefined ? {} : { since }),
      ...(approver === undefined ? {} : { approver }),
      elapsedMs,
    });
  }
}

/** What the audit and the flows call a host's read of a file resource. */
const READ_METHOD = "resources/read";
const READ_TEMPLATE = compileTemplate("read:{path}");

/** The refusal of a call decided without its caller's flow history. */
function historyUnread(tool: string, error: unknown): string {
  return `The gate cannot decide this call of ${tool}: it cannot read the caller's flow history: ${
    (error as Error)?.message ?? error
  }. Nothing was run.`;
}

/** The error of an allowed call whose flows could not be kept. */
function historyUnkept(tool: string, error: unknown): string {
  return `The gate cannot run this call of ${tool}: it cannot keep what the call sets off in the caller's flow history: ${
    (error as Error)?.message ?? error
  }. Nothing was run.`;
}

/** The audit's `flow` and `since` for a verdict a flow decided. */
function flowFields(
  verdict: Verdict | FlowVerdict,
): { flow?: string; since?: string } {
  if (!("flow" in verdict)) return {};
  const { name, trigger } = verdict.flow;
  return trigger.line === undefined
    ? { flow: name }
    : { flow: name, since: trigger.line };
}

/** What is wrong with a `tools/call`'s name or arguments; `undefined` when nothing is. */
function callProblem(params: Record<string, unknown>): string | undefined {
  const { name, arguments: args } = params;
  if (name === undefined) {
    return "name: missing: expected the tool's name as a string";
  }
  if (typeof name !== "string") {
    return `name: expected a string, got ${jsonType(name)}`;
  }
  if (args !== undefined && !isRecord(args)) {
    return `arguments: expected an object, got ${jsonType(args)}`;
  }
  return undefined;
}
