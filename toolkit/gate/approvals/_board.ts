// Internal: the approval board, the calls the policy asked about that wait
// for a person to approve or deny them on the gate's page. An entry holds
// what the audit holds of a call (server, tool, canonical patterns, never an
// argument value), who asked, and when it expires. It is decided once: the
// store decides atomically, so of two approvers racing one wins and the
// other is told the call was decided already. The held call waits on
// `wait()`, which a decision releases on whichever instance made it (the
// store tells every instance) and the expiry ends. An approval lets one
// call run: the gate runs it only if `redeem()` says it is the first, so a
// held call and a host's retry of it (after a URL-required refusal) cannot
// both run on one approval.

import { Watchers } from "./_watchers.ts";

/** Where an approval stands. A pending entry past its expiry is `expired`. */
export type ApprovalState = "pending" | "approved" | "denied" | "expired";

/** What an approver chooses on the page. */
export type ApprovalVerdict = "approve" | "deny";

/** How a wait ends. */
export type ApprovalOutcome = "approved" | "denied" | "expired";

/** Who asked: the caller's token's subject, and a name to show if it has one. */
export interface Asker {
  sub: string;
  name?: string;
}

/** What the gate knows of an asked call when it opens an approval. */
export interface ApprovalEntry {
  /** The server the call is for, in a gate of many servers. */
  server?: string;
  /** The tool's name (the server's own name for it). */
  tool: string;
  /** The call's canonical patterns, as the audit records them. Never argument values. */
  patterns: readonly string[];
  /** The caller whose call waits. */
  askedBy: Asker;
  /**
   * The exact call, as an opaque key the gate derives (a keyed digest of
   * the caller, server, tool and arguments; never the arguments), so that
   * a host's retry finds its approval with {@linkcode ApprovalBoard.find}.
   * At most 128 characters of `A-Z a-z 0-9 _ - . :`.
   */
  call?: string;
  /** How long the approval may be given, in milliseconds (the board's default otherwise). */
  ttlMs?: number;
}

/** One approval, as the board and its page see it. */
export interface Approval {
  /** Unguessable and URL-safe: 43 base64url characters of 32 random bytes. */
  id: string;
  server?: string;
  tool: string;
  patterns: readonly string[];
  askedBy: Asker;
  /** The call's key, when the gate gave one. */
  call?: string;
  /** When it was opened, in milliseconds since the epoch. */
  created: number;
  /** When it expires if nobody decides, in milliseconds since the epoch. */
  expires: number;
  state: ApprovalState;
  /** The approver's subject, once decided. */
  decidedBy?: string;
  /** When it was decided, in milliseconds since the epoch. */
  decided?: number;
  /** Whether a call ran on it (see {@linkcode ApprovalBoard.redeem}). */
  redeemed?: true;
}

/** What {@linkcode ApprovalBoard.open} gives the gate: the id and the page's path. */
export interface OpenedApproval {
  id: string;
  /** `/approvals/<id>`, relative to the gate's origin. */
  path: string;
  expires: number;
}

/** What {@linkcode ApprovalBoard.decide} answers. */
export type DecideResult =
  | { ok: true; approval: Approval }
  | {
    ok: false;
    /** `unknown`: no such approval (or no longer kept); `decided`: someone decided first; `expired`: too late. */
    reason: "unknown" | "decided" | "expired";
    approval?: Approval;
  };

/** A decision as the store writes it. */
export interface StoredDecision {
  state: "approved" | "denied";
  decidedBy: string;
  /** The deciding instance's clock: a decision at or after `expires` is refused. */
  at: number;
}

/**
 * Where approvals live: in this process ({@linkcode MemoryApprovalStore}) or
 * in Redis, shared by instances (`_redis_store.ts`). A stored entry keeps
 * `pending` past its expiry; the board reads it as `expired`.
 */
export interface ApprovalStore {
  /** Adds a new entry, kept until `keepUntil` (ms since the epoch); rejects if the id is taken. */
  create(approval: Approval, keepUntil: number): Promise<void>;
  /** The entry, as stored. */
  get(id: string): Promise<Approval | undefined>;
  /**
   * Decides the entry if it is pending and `decision.at` is before its
   * expiry, atomically: of concurrent decisions, on any instance, one wins.
   * `decided` says whether this one did; `approval` is the entry after.
   */
  decide(
    id: string,
    decision: StoredDecision,
  ): Promise<{ decided: boolean; approval?: Approval }>;
  /**
   * Calls `changed` when the entry may have changed (decided here or on
   * another instance); the listener re-reads it. Returns the unwatch.
   */
  watch(id: string, changed: () => void): () => void;
  /** The id of the approval opened last for `call`, while it is kept. */
  lookup(call: string): Promise<string | undefined>;
  /** Marks an approved entry redeemed, atomically; whether this call did. */
  redeem(id: string): Promise<boolean>;
  close(): Promise<void>;
}

/** How long an approval may be given, by default: five minutes. */
export const APPROVAL_TTL_MS = 5 * 60_000;
/** The longest TTL the board takes: a day. */
const MAX_TTL_MS = 24 * 60 * 60_000;
/** How long an entry is kept past its expiry, by default, so its page says what became of it. */
const KEEP_MS = 10 * 60_000;
/** The shape of an id: 32 random bytes in base64url, unpadded. */
const ID = /^[A-Za-z0-9_-]{43}$/;
/** The shape of a call's key. */
const CALL = /^[A-Za-z0-9_.:-]{1,128}$/;

/** Whether `id` has the shape of an approval's id (the page answers 404 to others at once). */
export function isApprovalId(id: string): boolean {
  return ID.test(id);
}

/** A fresh id: 256 random bits, base64url. */
function newId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-")
    .replaceAll("/", "_").replace(/=+$/, "");
}

/** Options for {@linkcode ApprovalBoard}. */
export interface ApprovalBoardOptions {
  /** Where entries live. @default {new MemoryApprovalStore()} */
  store?: ApprovalStore;
  /** How long an approval may be given. @default {APPROVAL_TTL_MS} */
  ttlMs?: number;
  /** How long an entry is kept past its expiry. @default {600000} */
  keepMs?: number;
  /** The clock, in milliseconds since the epoch; tests pass their own. */
  now?: () => number;
}

function checkTtl(name: string, value: number): number {
  if (
    typeof value !== "number" || !Number.isInteger(value) || value <= 0 ||
    value > MAX_TTL_MS
  ) {
    throw new RangeError(
      `Cannot open an approval: ${name} must be a whole number of milliseconds from 1 to ${MAX_TTL_MS}, got ${value}`,
    );
  }
  return value;
}

function checkEntry(entry: ApprovalEntry): void {
  const shape = (what: string) =>
    new TypeError(`Cannot open an approval: ${what}`);
  if (typeof entry !== "object" || entry === null) {
    throw shape("expected an entry object");
  }
  if (typeof entry.tool !== "string" || entry.tool === "") {
    throw shape("tool must be a non-empty string");
  }
  if (entry.server !== undefined && typeof entry.server !== "string") {
    throw shape("server must be a string when given");
  }
  if (
    entry.call !== undefined &&
    (typeof entry.call !== "string" || !CALL.test(entry.call))
  ) {
    throw shape(
      "call must be at most 128 characters of A-Z a-z 0-9 _ - . : when given",
    );
  }
  if (
    !Array.isArray(entry.patterns) ||
    !entry.patterns.every((pattern) => typeof pattern === "string")
  ) {
    throw shape("patterns must be an array of strings");
  }
  const asker = entry.askedBy;
  if (
    typeof asker !== "object" || asker === null ||
    typeof asker.sub !== "string" || asker.sub === "" ||
    (asker.name !== undefined && typeof asker.name !== "string")
  ) {
    throw shape("askedBy must be { sub, name? } with a non-empty sub");
  }
}

/** The entry as the board reports it: pending past its expiry reads expired. */
function asSeen(approval: Approval, now: number): Approval {
  if (approval.state === "pending" && now >= approval.expires) {
    return { ...approval, state: "expired" };
  }
  return approval;
}

/**
 * The pending approvals of asked calls. The gate opens one when its policy
 * asks about a call and the host can only be sent to a page, waits on it,
 * and runs the call only if it comes back `approved`.
 *
 * @example
 * ```ts ignore
 * const board = new ApprovalBoard();
 * const { id, path } = await board.open({
 *   tool: "write_file",
 *   patterns: ["write:/srv/notes/a.md"],
 *   askedBy: { sub: "alice" },
 * });
 * // Send the user to `path`; an approver decides there:
 * const outcome = await board.wait(id, AbortSignal.timeout(600_000));
 * ```
 */
export class ApprovalBoard {
  readonly #store: ApprovalStore;
  readonly #ttlMs: number;
  readonly #keepMs: number;
  readonly #now: () => number;

  constructor(options: ApprovalBoardOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#store = options.store ?? new MemoryApprovalStore({ now: this.#now });
    this.#ttlMs = checkTtl("ttlMs", options.ttlMs ?? APPROVAL_TTL_MS);
    this.#keepMs = options.keepMs ?? KEEP_MS;
    if (!Number.isInteger(this.#keepMs) || this.#keepMs < 0) {
      throw new RangeError(
        `Cannot make an approval board: keepMs must be a whole number of milliseconds, got ${this.#keepMs}`,
      );
    }
  }

  /** Opens an approval for an asked call: its id and the path of its page. */
  async open(entry: ApprovalEntry): Promise<OpenedApproval> {
    checkEntry(entry);
    const ttlMs = checkTtl("ttlMs", entry.ttlMs ?? this.#ttlMs);
    const created = this.#now();
    const approval: Approval = {
      id: newId(),
      ...(entry.server === undefined ? {} : { server: entry.server }),
      tool: entry.tool,
      patterns: [...entry.patterns],
      askedBy: {
        sub: entry.askedBy.sub,
        ...(entry.askedBy.name === undefined
          ? {}
          : { name: entry.askedBy.name }),
      },
      ...(entry.call === undefined ? {} : { call: entry.call }),
      created,
      expires: created + ttlMs,
      state: "pending",
    };
    await this.#store.create(approval, approval.expires + this.#keepMs);
    return {
      id: approval.id,
      path: `/approvals/${approval.id}`,
      expires: approval.expires,
    };
  }

  /** The approval, `expired` once past its expiry undecided; `undefined` when unknown. */
  async get(id: string): Promise<Approval | undefined> {
    if (!isApprovalId(id)) return undefined;
    const approval = await this.#store.get(id);
    return approval && asSeen(approval, this.#now());
  }

  /**
   * Approves or denies, once: a second decision, or one at or after the
   * expiry, is refused. `approver` is the deciding person's subject.
   */
  async decide(
    id: string,
    approver: string,
    verdict: ApprovalVerdict,
  ): Promise<DecideResult> {
    if (typeof approver !== "string" || approver === "") {
      throw new TypeError(
        "Cannot decide an approval: approver must be a non-empty string",
      );
    }
    if (verdict !== "approve" && verdict !== "deny") {
      throw new TypeError(
        `Cannot decide an approval: verdict must be "approve" or "deny", got ${
          JSON.stringify(verdict)
        }`,
      );
    }
    if (!isApprovalId(id)) return { ok: false, reason: "unknown" };
    const at = this.#now();
    const { decided, approval } = await this.#store.decide(id, {
      state: verdict === "approve" ? "approved" : "denied",
      decidedBy: approver,
      at,
    });
    if (approval === undefined) return { ok: false, reason: "unknown" };
    const seen = asSeen(approval, at);
    if (decided) return { ok: true, approval: seen };
    return {
      ok: false,
      reason: seen.state === "expired" ? "expired" : "decided",
      approval: seen,
    };
  }

  /**
   * The approval opened last for the call `call` (its key, as given to
   * `open`), in whatever state: what a host's retry of a refused call is
   * checked against.
   */
  async find(call: string): Promise<Approval | undefined> {
    if (typeof call !== "string" || !CALL.test(call)) return undefined;
    const id = await this.#store.lookup(call);
    return id === undefined ? undefined : await this.get(id);
  }

  /**
   * Spends an approved approval on the one call it lets run: `true` for the
   * first caller, on any instance, and `false` after, or when it is not
   * approved. The gate runs an approved call only when this says `true`.
   */
  async redeem(id: string): Promise<boolean> {
    if (!isApprovalId(id)) return false;
    return await this.#store.redeem(id);
  }

  /**
   * Resolves when the approval is decided (on any instance sharing the
   * store) or expires; rejects with the signal's reason when `signal`
   * aborts, with a RangeError for an unknown id, and with the store's
   * error when its first read fails (Redis away).
   */
  wait(id: string, signal?: AbortSignal): Promise<ApprovalOutcome> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const { promise, resolve, reject } = Promise.withResolvers<
      ApprovalOutcome
    >();
    let done = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let reading = false;
    let again = false;
    /** The approval's expiry, once read. */
    let expires = Infinity;
    const finish = () => {
      done = true;
      clearTimeout(timer);
      unwatch();
      signal?.removeEventListener("abort", aborted);
    };
    const aborted = () => {
      if (done) return;
      finish();
      reject(signal!.reason);
    };
    // Reads the entry and settles if it is decided or expired; a read that
    // fails (Redis away) is tried again at the next change or the expiry.
    const check = async (first = false) => {
      if (done) return;
      if (reading) {
        again = true;
        return;
      }
      reading = true;
      try {
        const stored = await this.#store.get(id);
        if (done) return;
        if (stored === undefined) {
          finish();
          if (first) {
            reject(
              new RangeError(`Cannot wait for approval: unknown id ${id}`),
            );
          } else resolve("expired");
          return;
        }
        const now = this.#now();
        expires = stored.expires;
        const seen = asSeen(stored, now);
        if (seen.state !== "pending") {
          finish();
          resolve(seen.state);
          return;
        }
        clearTimeout(timer);
        timer = setTimeout(() => check(), Math.max(0, stored.expires - now));
      } catch (error) {
        if (first) {
          finish();
          reject(error);
        } else if (this.#now() >= expires) {
          // Past the expiry and the store cannot say whether an approval
          // landed in time: the call is refused, never run on a guess.
          finish();
          resolve("expired");
        }
      } finally {
        reading = false;
        if (again && !done) {
          again = false;
          check();
        }
      }
    };
    // Watched before the first read, so that a decision between them is heard.
    const unwatch = this.#store.watch(id, () => void check());
    signal?.addEventListener("abort", aborted, { once: true });
    check(true);
    return promise;
  }
}

/** Approvals in this process: for a single gate instance and for tests. */
export class MemoryApprovalStore implements ApprovalStore {
  #entries = new Map<string, { approval: Approval; keepUntil: number }>();
  #calls = new Map<string, string>();
  #watchers = new Watchers();
  readonly #now: () => number;

  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
  }

  create(approval: Approval, keepUntil: number): Promise<void> {
    const now = this.#now();
    // Entries past keeping go as new ones come, so the map stays bounded
    // by the approvals opened within one TTL and keep.
    for (const [id, entry] of this.#entries) {
      if (entry.keepUntil > now) continue;
      this.#entries.delete(id);
      const call = entry.approval.call;
      if (call !== undefined && this.#calls.get(call) === id) {
        this.#calls.delete(call);
      }
    }
    if (this.#entries.has(approval.id)) {
      return Promise.reject(
        new Error(`Cannot open an approval: id ${approval.id} is taken`),
      );
    }
    this.#entries.set(approval.id, {
      approval: structuredClone(approval),
      keepUntil,
    });
    if (approval.call !== undefined) {
      this.#calls.set(approval.call, approval.id);
    }
    return Promise.resolve();
  }

  get(id: string): Promise<Approval | undefined> {
    const entry = this.#entries.get(id);
    if (entry === undefined || entry.keepUntil <= this.#now()) {
      return Promise.resolve(undefined);
    }
    return Promise.resolve(structuredClone(entry.approval));
  }

  decide(
    id: string,
    decision: StoredDecision,
  ): Promise<{ decided: boolean; approval?: Approval }> {
    const entry = this.#entries.get(id);
    if (entry === undefined || entry.keepUntil <= this.#now()) {
      return Promise.resolve({ decided: false });
    }
    const current = entry.approval;
    if (current.state !== "pending" || decision.at >= current.expires) {
      return Promise.resolve({
        decided: false,
        approval: structuredClone(current),
      });
    }
    entry.approval = {
      ...current,
      state: decision.state,
      decidedBy: decision.decidedBy,
      decided: decision.at,
    };
    for (const changed of this.#watchers.of(id)) queueMicrotask(changed);
    return Promise.resolve({
      decided: true,
      approval: structuredClone(entry.approval),
    });
  }

  lookup(call: string): Promise<string | undefined> {
    return Promise.resolve(this.#calls.get(call));
  }

  redeem(id: string): Promise<boolean> {
    const entry = this.#entries.get(id);
    if (
      entry === undefined || entry.keepUntil <= this.#now() ||
      entry.approval.state !== "approved" || entry.approval.redeemed
    ) {
      return Promise.resolve(false);
    }
    entry.approval = { ...entry.approval, redeemed: true };
    return Promise.resolve(true);
  }

  watch(id: string, changed: () => void): () => void {
    return this.#watchers.add(id, changed);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
