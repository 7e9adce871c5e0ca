// Internal: the sessions layer's table of sessions. It creates entries,
// binds them to their id once `initialize` has made them sessions, looks
// them up, tracks their requests, expires idle and unused ones on a
// sweeper, makes room when full and closes them all. It knows nothing of
// HTTP: an entry's transport is anything that can be closed.

import { unrefTimer } from "../_util/runtime.ts";

const MAX_SWEEP_MS = 60_000;
const MIN_SWEEP_MS = 10;

/** The time and the periodic timer the table runs on; tests pass their own. */
export interface Clock {
  /** Milliseconds on a monotonic clock. */
  now(): number;
  /**
   * Calls `tick` every `ms` until the returned function is called, without
   * keeping the process alive.
   */
  every(ms: number, tick: () => void): () => void;
}

/** `performance.now()` and an unref'd `setInterval`. */
export const SYSTEM_CLOCK: Clock = {
  now: () => performance.now(),
  every(ms: number, tick: () => void): () => void {
    const timer = setInterval(tick, ms);
    unrefTimer(timer);
    return () => clearInterval(timer);
  },
};

/**
 * The key of an internal option of `sessions()` (and so of
 * `createHttpHandler()` and `serveHttp()`, which hand their options on):
 * the {@linkcode Clock} of its table and rate limit, for tests. A symbol,
 * so that the public options do not show it.
 */
export const CLOCK: unique symbol = Symbol("sessions clock");

/** Answers the clock an options object carries under {@linkcode CLOCK}. */
export function clockOf(options: object): Clock {
  return (options as { [CLOCK]?: Clock })[CLOCK] ?? SYSTEM_CLOCK;
}

/** What the table needs of a session's transport. */
export interface Closable {
  close(): Promise<void>;
}

/** One session in the table; its fields are changed by the table only. */
export interface SessionEntry<T extends Closable> {
  readonly transport: T;
  /** Set by {@linkcode SessionTable.bind}; undefined until then. */
  id: string | undefined;
  /** Requests whose response body is still open. */
  active: number;
  lastSeen: number;
  /** When `initialize` made it a session, for the unused timeout. */
  createdAt: number;
  /** Whether a request has come with its id since `initialize`. */
  used: boolean;
  /**
   * Whom the session belongs to (the user of the token that opened it),
   * or undefined when anyone who knows its id may use it.
   */
  readonly owner: string | undefined;
}

/** Options for {@linkcode SessionTable}. */
export interface SessionTableOptions {
  /** Expire a session this long after its last request ended. */
  idleMs: number;
  /** Expire a session with no request since `initialize` this long after it. */
  unusedMs: number;
  /** The most sessions, open or in progress, at once. */
  maxSessions: number;
  /** @default {SYSTEM_CLOCK} */
  clock?: Clock;
}

/** Whether one more session fits; see {@linkcode SessionTable.room}. */
export type Room<T extends Closable> =
  | { readonly ok: true; readonly victim?: SessionEntry<T> }
  | { readonly ok: false; readonly retryMs: number };

/** The sessions of one sessions layer; see the file comment. */
export class SessionTable<T extends Closable> {
  readonly #idleMs: number;
  readonly #unusedMs: number;
  readonly #maxSessions: number;
  readonly #clock: Clock;
  readonly #open = new Map<string, SessionEntry<T>>();
  /** The open sessions not used since `initialize`, oldest first. */
  readonly #unused = new Set<SessionEntry<T>>();
  /** Sessions created for one request: stateless ones and initialisations in progress. */
  readonly #transient = new Set<SessionEntry<T>>();
  #stopSweeper: (() => void) | undefined;

  constructor(options: SessionTableOptions) {
    this.#idleMs = options.idleMs;
    this.#unusedMs = options.unusedMs;
    this.#maxSessions = options.maxSessions;
    this.#clock = options.clock ?? SYSTEM_CLOCK;
  }

  /** The number of open sessions (bound to an id). */
  get size(): number {
    return this.#open.size;
  }

  /** The time on the table's clock. */
  now(): number {
    return this.#clock.now();
  }

  /**
   * Adds a session in progress for `transport`, belonging to `owner` if
   * given: counted, not yet open.
   */
  create(transport: T, owner?: string): SessionEntry<T> {
    const now = this.#clock.now();
    const entry: SessionEntry<T> = {
      transport,
      id: undefined,
      active: 0,
      lastSeen: now,
      createdAt: now,
      used: false,
      owner,
    };
    this.#transient.add(entry);
    return entry;
  }

  /** `initialize` made `entry` the session `id`: open and unused from now. */
  bind(entry: SessionEntry<T>, id: string): void {
    entry.id = id;
    entry.createdAt = this.#clock.now();
    // Counted once: open from here on, no longer in progress.
    this.#transient.delete(entry);
    this.#open.set(id, entry);
    this.#unused.add(entry);
    this.#startSweeper();
  }

  /**
   * The open session `id`, if any and if `owner` may use it: a session
   * with an owner is not there for anyone else, so that its id cannot be
   * told from an unknown one.
   */
  get(id: string, owner?: string): SessionEntry<T> | undefined {
    const entry = this.#open.get(id);
    return entry?.owner === undefined || entry.owner === owner
      ? entry
      : undefined;
  }

  /** A request came with the session's id: it is in use. */
  touch(entry: SessionEntry<T>): void {
    if (entry.used) return;
    entry.used = true;
    this.#unused.delete(entry);
  }

  /** A request of `entry` began; its response body is open. */
  enter(entry: SessionEntry<T>): void {
    entry.active++;
  }

  /** A request of `entry` ended: its idle time counts from now. */
  leave(entry: SessionEntry<T>): void {
    entry.active--;
    entry.lastSeen = this.#clock.now();
  }

  /**
   * The request that created `entry` is answered: it is no longer in
   * progress, and is closed if it never became a session (an
   * initialisation the transport refused leaves one nobody can reach).
   */
  settle(entry: SessionEntry<T>): void {
    this.#transient.delete(entry);
    if (entry.id === undefined) entry.transport.close().catch(() => {});
  }

  /** Takes `entry` out of the table, as its transport has closed. */
  forget(entry: SessionEntry<T>): void {
    this.#transient.delete(entry);
    this.#unused.delete(entry);
    if (entry.id !== undefined) this.#open.delete(entry.id);
  }

  /** Closes a session and takes it out of the table at once. */
  end(entry: SessionEntry<T>): void {
    this.forget(entry);
    entry.transport.close().catch(() => {});
  }

  /**
   * Whether one more session fits: `ok`, with the oldest unused session as
   * `victim` to end when the table is full; otherwise, when full of
   * sessions in use, the milliseconds until the first of them can end.
   */
  room(): Room<T> {
    if (this.#count() < this.#maxSessions) return { ok: true };
    const now = this.#clock.now();
    // Exact here, whatever the sweeper's period: the wait answered below
    // promises room once the earliest deadline has passed.
    const earliest = this.#sweep(now);
    if (this.#count() < this.#maxSessions) return { ok: true };
    const victim = this.#unused.values().next().value;
    if (victim !== undefined) return { ok: true, victim };
    // Initialisations in progress become unused sessions, which a new
    // initialize may close; with every session streaming, none can expire
    // sooner than idleMs after its stream ends.
    const retryMs = this.#transient.size > 0
      ? 1000
      : earliest === Infinity
      ? this.#idleMs
      : earliest - now;
    return { ok: false, retryMs };
  }

  /** Stops expiring sessions, as a shutdown's grace period begins. */
  stopExpiry(): void {
    this.#stopSweeper?.();
    this.#stopSweeper = undefined;
  }

  /** Closes every session, open or in progress, and empties the table. */
  async closeAll(): Promise<void> {
    this.stopExpiry();
    const all = [...this.#open.values(), ...this.#transient];
    await Promise.all(all.map((s) => s.transport.close().catch(() => {})));
    this.#open.clear();
    this.#unused.clear();
    this.#transient.clear();
  }

  #count(): number {
    return this.#open.size + this.#transient.size;
  }

  /**
   * When `entry` expires unless a request comes first: an unused one
   * `unusedMs` after `initialize`, whether or not the answer to it is still
   * being sent; any one `idleMs` after its last request ended, never while
   * a stream is open.
   */
  #deadline(entry: SessionEntry<T>): number {
    const idle = entry.active === 0 ? entry.lastSeen + this.#idleMs : Infinity;
    return entry.used ? idle : Math.min(idle, entry.createdAt + this.#unusedMs);
  }

  /** Ends every session past its deadline; answers the earliest deadline left. */
  #sweep(now: number): number {
    let earliest = Infinity;
    for (const entry of this.#open.values()) {
      const at = this.#deadline(entry);
      if (at <= now) this.end(entry);
      else earliest = Math.min(earliest, at);
    }
    return earliest;
  }

  #startSweeper(): void {
    if (this.#stopSweeper !== undefined) return;
    const every = Math.min(
      MAX_SWEEP_MS,
      Math.max(MIN_SWEEP_MS, Math.min(this.#idleMs, this.#unusedMs) / 2),
    );
    this.#stopSweeper = this.#clock.every(every, () => {
      this.#sweep(this.#clock.now());
      if (this.#open.size === 0) this.stopExpiry();
    });
  }
}
