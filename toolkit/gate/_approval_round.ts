// Internal: asking a 2026-07-28 host for approval in rounds (SEP-2322).
// That revision sends no requests from server to client, so the gate answers
// the call with an input-required result that holds the question, and the
// host calls again with the user's answer and the gate's signed
// `requestState`. The state binds the answer to the tool, the arguments and
// the patterns the user was asked about, and keeps what the host's call held
// before the gate asked (a server's own round of the same call), which goes
// on to the server with the approved call. A state is good for a short
// time and for one answer: its nonce is remembered until it expires, so the
// same approval sent again is asked again, never run twice. A caller
// that takes only URL-mode elicitation is sent to the gate's approval page
// instead (askUrl): its answer says only that the user went there, and the
// page's decision on the approval the state names decides the call.
//
// The instances of a gate served over HTTP sign with one key (derived from
// the secret they share in Redis with `--redis`), so that a host's answer
// that reaches another instance than the one that asked counts there: the
// state is then bound to the caller and the server it was asked for, and
// its nonce spent where every instance sees it (_redis_spent.ts). A state
// that carries an answer to the gate's question but that the gate cannot
// verify (another deployment's key, or altered) is refused, not taken for a
// server's own round.

import { isRecord } from "../_util/json_type.ts";
import { remembersSession } from "./_remembered.ts";
import { sha256Hex } from "../../configreload/_sha256_hex.ts";
import {
  loadRequestSigning,
  RequestStateSigner,
} from "../jsonrpc/_request_state.ts";

/** The key of the gate's question among a round's input requests. */
export const APPROVAL_KEY = "forge-gate/approval";

/** What the host's call held under the two round fields before the gate asked. */
interface Before {
  requestState?: unknown;
  inputResponses?: unknown;
}

/** What the gate signs into its `requestState`. */
interface Asked {
  arguments: string;
  patterns: string[];
  before: Before;
  /** When the answer stops counting, in the clock's milliseconds. */
  expires: number;
  /** Spent by the first answer that counts. */
  nonce: string;
  /**
   * The approval on the gate's page the round sent the user to (URL mode);
   * absent for a form question. An answer counts only as what it was asked.
   */
  approval?: string;
}

/** How long an approval question may be answered, by default: five minutes. */
export const APPROVAL_TTL_MS = 5 * 60_000;
/** At most this many spent nonces are remembered; beyond, answers are asked again. */
const MAX_SPENT = 10_000;

/** Where the nonces of answered states are spent: once, across whoever shares it. */
export interface SpentAnswers {
  /**
   * Whether `nonce` was unspent (it is spent now, until `expires`, in the
   * clock's milliseconds); `false` when it cannot be kept.
   */
  spend(nonce: string, expires: number): Promise<boolean>;
}

/** Spent nonces in this process's memory, bounded. */
export class MemorySpentAnswers implements SpentAnswers {
  #now: () => number;
  #max: number;
  // Nonce → expiry. Every state lives ttlMs, so insertion order is expiry
  // order: the expired are always at the front.
  #spent = new Map<string, number>();

  constructor(options: { now?: () => number; maxSpent?: number } = {}) {
    this.#now = options.now ?? Date.now;
    this.#max = options.maxSpent ?? MAX_SPENT;
  }

  spend(nonce: string, expires: number): Promise<boolean> {
    const now = this.#now();
    for (const [old, until] of this.#spent) {
      if (until > now) break;
      this.#spent.delete(old);
    }
    if (this.#spent.has(nonce)) return Promise.resolve(false);
    // Full of live nonces: refuse rather than forget one that could be
    // replayed; the user is asked again.
    if (this.#spent.size >= this.#max) return Promise.resolve(false);
    this.#spent.set(nonce, expires);
    return Promise.resolve(true);
  }
}

/**
 * What the gates of an HTTP gate share for their rounds (every instance's,
 * with `--redis`): the key, where nonces are spent, and whom each gate's
 * states are for (its caller; the server is added by the gate).
 */
export interface SharedRounds {
  key: Uint8Array;
  spent: SpentAnswers;
  bound: string;
}

/** Options for {@linkcode ApprovalRounds}. */
export interface ApprovalRoundsOptions {
  /** How long after it is asked a question may be answered. */
  ttlMs?: number;
  /** The clock, in milliseconds; tests pass their own. */
  now?: () => number;
  /** How many spent nonces may be remembered at once (without `spent`). */
  maxSpent?: number;
  /**
   * The key states are signed with, shared by the gates that accept each
   * other's (32 bytes); a random one, this object's alone, by default.
   */
  key?: Uint8Array;
  /**
   * Whom the states are for (the caller and server of the gate): a state
   * counts only where it is the same. Give it with a shared `key`.
   */
  bound?: string;
  /** Where answered states' nonces are spent; this object's memory by default. */
  spent?: SpentAnswers;
}

/** One 2026-07-28 call, read for the gate's own round. */
export interface ApprovalRound {
  /**
   * The params to send the server: the call's, with the gate's answer and
   * state replaced by what the host's call held before the gate asked.
   */
  readonly params: Record<string, unknown>;
  /**
   * Why the call is refused before it is decided: it answers the gate's
   * question (under {@linkcode APPROVAL_KEY}) with a `requestState` the
   * gate cannot verify, one of another deployment or altered. `undefined`
   * otherwise.
   */
  readonly refused: string | undefined;
  /**
   * The user's answer (`accept`, `decline`, `cancel`, or `error` for an
   * answer without an action) when this call answers the gate's question
   * about these very arguments and patterns; `undefined` otherwise.
   */
  answer(patterns: readonly string[]): Promise<string | undefined>;
  /**
   * The user's answer to the gate's URL elicitation about these very
   * arguments and patterns, with the page's approval it named; `undefined`
   * otherwise. The answer says only whether the user went to the page: the
   * approval's state on the board decides.
   */
  answerUrl(
    patterns: readonly string[],
  ): Promise<{ action: string; approval: string } | undefined>;
  /** Whether the answer's form asks to remember the approval for the session. */
  readonly remembers: boolean;
  /**
   * The input-required result that asks the user `question` about
   * `patterns`, with the form `schema` (none by default).
   */
  ask(
    question: string,
    patterns: readonly string[],
    options?: { schema?: Record<string, unknown> },
  ): Record<string, unknown>;
  /**
   * The input-required result that sends the user to the approval `page`
   * (URL-mode elicitation) about `patterns`, saying `message`.
   */
  askUrl(
    page: { id: string; url: string },
    message: string,
    patterns: readonly string[],
  ): Record<string, unknown>;
}

/** The approval rounds of one gate: its signing key and the answers spent. */
export class ApprovalRounds {
  // By default one key per gate: only this gate issued the states it
  // accepts, and its spent nonces are the only ones that matter.
  #signer: RequestStateSigner;
  #bound: string | undefined;
  #ttlMs: number;
  #now: () => number;
  #spent: SpentAnswers;

  constructor(options: ApprovalRoundsOptions = {}) {
    this.#signer = new RequestStateSigner(options.key);
    this.#bound = options.bound;
    this.#ttlMs = options.ttlMs ?? APPROVAL_TTL_MS;
    this.#now = options.now ?? Date.now;
    this.#spent = options.spent ??
      new MemorySpentAnswers({ now: this.#now, maxSpent: options.maxSpent });
  }

  /**
   * Reads a 2026-07-28 `tools/call` for an earlier round of the gate's: its
   * `requestState`, when the gate signed it, and the answer under
   * {@linkcode APPROVAL_KEY}.
   */
  read(
    tool: string,
    params: Record<string, unknown>,
  ): Promise<ApprovalRound> {
    return readApprovalRound(tool, params, {
      signer: this.#signer,
      bound: this.#bound,
      now: this.#now,
      ttlMs: this.#ttlMs,
      spend: (nonce, expires) => this.#spent.spend(nonce, expires),
    });
  }
}

/** What {@linkcode readApprovalRound} checks a state with. */
interface RoundContext {
  signer: RequestStateSigner;
  bound: string | undefined;
  now: () => number;
  ttlMs: number;
  spend: (nonce: string, expires: number) => Promise<boolean>;
}

/** The refusal of an answer whose state the gate cannot verify. */
export const UNVERIFIED_STATE =
  "Invalid params for tools/call: requestState: the gate cannot verify it (it was altered, or issued for another call, another caller, or by a gate with another key: another deployment, or one restarted without --redis since it asked). Nothing was run: call again without requestState and inputResponses to be asked again.";

async function readApprovalRound(
  tool: string,
  params: Record<string, unknown>,
  context: RoundContext,
): Promise<ApprovalRound> {
  await loadRequestSigning();
  // Bound to whom it was asked for, when the key is shared.
  const subject = context.bound === undefined
    ? `tools/call ${tool}`
    : `tools/call ${tool} for ${context.bound}`;
  const digest = await argumentsDigest(params.arguments);
  const { requestState, inputResponses, ...rest } = params;
  let asked: Asked | undefined;
  let refused: string | undefined;
  if (requestState !== undefined) {
    try {
      asked = context.signer.verify(subject, requestState) as unknown as Asked;
    } catch {
      // Not the gate's: a server's own round, which goes on as it came;
      // unless it answers the gate's question, which only a gate asks.
      if (
        isRecord(inputResponses) && Object.hasOwn(inputResponses, APPROVAL_KEY)
      ) {
        refused = UNVERIFIED_STATE;
      }
    }
  }
  const before: Before = asked?.before ??
    { requestState, inputResponses: withoutApproval(inputResponses) };
  const reply = asked !== undefined && isRecord(inputResponses)
    ? inputResponses[APPROVAL_KEY]
    : undefined;
  // The answer, once, when the state asked about these very arguments and
  // patterns in this mode (a form's accept is no visit to the page, nor
  // the other way round) and is neither expired nor spent.
  const spend = async (
    patterns: readonly string[],
    url: boolean,
  ): Promise<{ action: string; approval?: string } | undefined> => {
    if (
      asked === undefined || reply === undefined ||
      asked.arguments !== digest || !sameList(asked.patterns, patterns) ||
      (typeof asked.approval === "string") !== url ||
      (asked.approval !== undefined && typeof asked.approval !== "string") ||
      typeof asked.expires !== "number" || asked.expires <= context.now() ||
      typeof asked.nonce !== "string" ||
      !await context.spend(asked.nonce, asked.expires)
    ) {
      // Expired, spent already, or about something else: asked again.
      return undefined;
    }
    const action = isRecord(reply) && typeof reply.action === "string"
      ? reply.action
      : "error";
    return url ? { action, approval: asked.approval } : { action };
  };
  const sign = (state: Asked) =>
    context.signer.sign(subject, state as unknown as Record<string, unknown>);
  const fresh = (patterns: readonly string[]): Asked => ({
    arguments: digest,
    patterns: [...patterns],
    before: defined(before),
    expires: context.now() + context.ttlMs,
    nonce: crypto.randomUUID(),
  });
  return {
    params: { ...rest, ...defined(before) },
    refused,
    remembers: asked !== undefined && remembersSession(reply),
    async answer(patterns) {
      return (await spend(patterns, false))?.action;
    },
    async answerUrl(patterns) {
      const answered = await spend(patterns, true);
      return answered?.approval === undefined
        ? undefined
        : { action: answered.action, approval: answered.approval };
    },
    ask(question, patterns, options = {}) {
      return inputRequired({
        message: question,
        requestedSchema: options.schema ?? { type: "object", properties: {} },
      }, sign(fresh(patterns)));
    },
    askUrl(page, message, patterns) {
      return inputRequired(
        { mode: "url", message, elicitationId: page.id, url: page.url },
        sign({ ...fresh(patterns), approval: page.id }),
      );
    },
  };
}

/** SHA-256 of the arguments as sent: a changed argument is another call. */
function argumentsDigest(args: unknown): Promise<string> {
  return sha256Hex(new TextEncoder().encode(JSON.stringify(args ?? null)));
}

/** A host's answers without one to the gate's question, which only the gate reads. */
function withoutApproval(responses: unknown): unknown {
  if (!isRecord(responses) || !Object.hasOwn(responses, APPROVAL_KEY)) {
    return responses;
  }
  const { [APPROVAL_KEY]: _, ...rest } = responses;
  return Object.keys(rest).length === 0 ? undefined : rest;
}

function defined(before: Before): Before {
  const kept: Before = {};
  if (before.requestState !== undefined) {
    kept.requestState = before.requestState;
  }
  if (before.inputResponses !== undefined) {
    kept.inputResponses = before.inputResponses;
  }
  return kept;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}

/** The input-required result that asks the gate's question with `params`. */
function inputRequired(
  params: Record<string, unknown>,
  requestState: string,
): Record<string, unknown> {
  return {
    resultType: "input_required",
    inputRequests: {
      [APPROVAL_KEY]: { method: "elicitation/create", params },
    },
    requestState,
  };
}
