// Internal: one `Deno.watchFs` per directory for the whole process, shared
// by every config watcher that needs that directory.
//
// Why shared: Deno keeps one OS watch per path and reference-counts it
// across `Deno.watchFs` calls; a new call for a path that is still watched
// reuses the old registration. After a directory is deleted and recreated,
// that registration points at the deleted directory, so a fresh watch on it
// stays deaf for as long as any other watch on the same path is open (and
// until the closed one's pending read has finished). Owning the only watch
// per path lets us re-create it properly: close, wait for its iterator to
// finish, open again.
//
// Each entry restarts its watch when the iterator ends (with a growing
// pause if it keeps ending at once), when an event names the directory
// itself (deleted or moved), or when a subscriber sees a different
// directory identity at the path. Subscribers hear every event, a "gap"
// after each restart (events may have been missed), and failures.

import { type Clock, REAL_CLOCK } from "./_clock.ts";

/** The part of `Deno.FsWatcher` used here. */
export interface FsWatcherLike extends AsyncIterable<Deno.FsEvent> {
  close(): void;
}

/** The shape of `Deno.watchFs`, injectable for tests. */
export type WatchFs = (
  paths: string[],
  options: { recursive: boolean },
) => FsWatcherLike;

/** What a subscriber of a directory hears. */
export interface DirListener {
  /** An event arrived; `rescan` when events were dropped before it. */
  onEvent(rescan: boolean): void;
  /** The watch was (re)started after a gap: look at the files now. */
  onGap(): void;
  /** The directory cannot be watched; nothing more will be heard. */
  onFailure(error: unknown): void;
}

// A watch that ends sooner than this after it started counts as failing.
const QUICK_END_MS = 1000;
const MAX_QUICK_ENDS = 4;
const MAX_CREATE_RETRIES = 5;
const BACKOFF_MS = 50;

class Entry {
  readonly dir: string;
  id: string;
  listeners = new Set<DirListener>();
  watcher: FsWatcherLike | undefined;
  pump: Promise<void> | undefined;
  startedAt = 0;
  stale = false;
  closed = false;
  quickEnds = 0;
  createRetries = 0;
  busy: Promise<void> | undefined;
  #clock: Clock;
  #timer: unknown;
  #wake: (() => void) | undefined;

  constructor(dir: string, id: string, clock: Clock) {
    this.dir = dir;
    this.id = id;
    this.#clock = clock;
  }

  // A pause that shutdown can cut short, so no timer outlives the entry.
  pause(ms: number): Promise<void> {
    if (ms <= 0 || this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      this.#wake = resolve;
      this.#timer = this.#clock.setTimeout(() => this.cancelPause(), ms);
    });
  }

  cancelPause(): void {
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  async stop(): Promise<void> {
    const watcher = this.watcher;
    const pump = this.pump;
    this.watcher = undefined;
    this.pump = undefined;
    try {
      watcher?.close();
    } catch {
      // Already closed by the runtime.
    }
    await pump;
  }
}

/** Options for {@linkcode DirHub}. */
export interface DirHubOptions {
  /** Time source of the restart pauses; tests pass a fake one. */
  clock?: Clock;
}

/** Shares one watch per directory among subscribers. */
export class DirHub {
  #watchFs: WatchFs;
  #clock: Clock;
  #entries = new Map<string, Entry>();
  // Watches being shut down, by directory: a new watch of the same path
  // must wait for them, or it would share their (possibly stale) OS watch.
  #closing = new Map<string, Promise<void>>();

  constructor(watchFs: WatchFs = Deno.watchFs, options: DirHubOptions = {}) {
    this.#watchFs = watchFs;
    this.#clock = options.clock ?? REAL_CLOCK;
  }

  /** Directories with a live watch now (for tests and diagnostics). */
  get watched(): string[] {
    return [...this.#entries.values()]
      .filter((entry) => entry.watcher !== undefined)
      .map((entry) => entry.dir);
  }

  /**
   * Adds `listener` to the watch of `dir`, whose identity the caller saw as
   * `id` (device, inode, birth time); starts or refreshes the watch.
   */
  subscribe(dir: string, id: string, listener: DirListener): void {
    const entry = this.#entries.get(dir);
    if (entry === undefined) {
      const created = new Entry(dir, id, this.#clock);
      created.listeners.add(listener);
      this.#entries.set(dir, created);
      const closing = this.#closing.get(dir);
      if (closing === undefined) this.#open(created);
      else this.#reopenAfter(created, closing);
      return;
    }
    entry.listeners.add(listener);
    this.refresh(dir, id);
  }

  /**
   * Re-creates the watch of `dir` if it is stale, dead, or was made for a
   * directory other than the one now identified by `id`.
   */
  refresh(dir: string, id: string): void {
    const entry = this.#entries.get(dir);
    if (entry === undefined) return;
    const changed = entry.id !== id;
    entry.id = id;
    if (entry.busy !== undefined) return;
    if (entry.watcher !== undefined && !changed && !entry.stale) return;
    this.#restart(entry, 0);
  }

  /**
   * Removes `listener`; the last one out closes the watch. Resolves once
   * the watch's iterator has finished.
   */
  async unsubscribe(dir: string, listener: DirListener): Promise<void> {
    const entry = this.#entries.get(dir);
    if (entry === undefined || !entry.listeners.delete(listener)) return;
    if (entry.listeners.size > 0) return;
    this.#entries.delete(dir);
    entry.closed = true;
    entry.cancelPause();
    const closed = (async () => {
      await entry.stop();
      await entry.busy;
    })();
    this.#closing.set(dir, closed);
    await closed;
    if (this.#closing.get(dir) === closed) this.#closing.delete(dir);
  }

  // Opens the watch now; true when it is in place.
  #open(entry: Entry): boolean {
    let watcher: FsWatcherLike;
    try {
      watcher = this.#watchFs([entry.dir], { recursive: false });
    } catch (error) {
      if (
        error instanceof Deno.errors.NotFound &&
        entry.createRetries < MAX_CREATE_RETRIES
      ) {
        // The directory vanished after the subscriber looked: have the
        // subscribers look again (they will ask for another directory, or
        // refresh this one once it is back).
        entry.createRetries++;
        this.#later(entry, BACKOFF_MS * entry.createRetries, () => {
          for (const listener of [...entry.listeners]) listener.onGap();
        });
        return false;
      }
      this.#fail(entry, error);
      return false;
    }
    entry.createRetries = 0;
    entry.stale = false;
    entry.watcher = watcher;
    entry.startedAt = this.#clock.now();
    entry.pump = this.#pump(entry, watcher);
    return true;
  }

  async #pump(entry: Entry, watcher: FsWatcherLike): Promise<void> {
    try {
      for await (const event of watcher) {
        if (entry.watcher !== watcher) break;
        if (event.paths.includes(entry.dir)) entry.stale = true;
        const rescan = event.flag === "rescan";
        for (const listener of [...entry.listeners]) listener.onEvent(rescan);
      }
    } catch {
      // An iterator that throws has ended; handled below like any end.
    }
    if (entry.closed || entry.watcher !== watcher) return;
    // Ended on its own: restart, pausing longer each time it ends at once.
    entry.watcher = undefined;
    entry.pump = undefined;
    const lived = this.#clock.now() - entry.startedAt;
    entry.quickEnds = lived < QUICK_END_MS ? entry.quickEnds + 1 : 0;
    if (entry.quickEnds > MAX_QUICK_ENDS) {
      this.#fail(
        entry,
        new Error(
          `the file-system watch of ${entry.dir} ended ${entry.quickEnds} times in a row right after starting`,
        ),
      );
      return;
    }
    this.#restart(
      entry,
      entry.quickEnds === 0 ? 0 : BACKOFF_MS * 2 ** entry.quickEnds,
    );
  }

  #restart(entry: Entry, delayMs: number): void {
    entry.busy = (async () => {
      // Deno drops its registration only once the old iterator is done.
      await entry.stop();
      await entry.pause(delayMs);
      if (entry.closed) return;
      if (this.#open(entry)) {
        for (const listener of [...entry.listeners]) listener.onGap();
      }
    })().finally(() => {
      entry.busy = undefined;
    });
  }

  #reopenAfter(entry: Entry, closing: Promise<void>): void {
    entry.busy = (async () => {
      await closing;
      if (entry.closed) return;
      if (this.#open(entry)) {
        for (const listener of [...entry.listeners]) listener.onGap();
      }
    })().finally(() => {
      entry.busy = undefined;
    });
  }

  #later(entry: Entry, delayMs: number, fn: () => void): void {
    entry.busy = (async () => {
      await entry.pause(delayMs);
      if (!entry.closed) fn();
    })().finally(() => {
      entry.busy = undefined;
    });
  }

  #fail(entry: Entry, error: unknown): void {
    this.#entries.delete(entry.dir);
    entry.closed = true;
    const listeners = [...entry.listeners];
    entry.listeners.clear();
    for (const listener of listeners) listener.onFailure(error);
  }
}

/** The hub every config watcher in this process uses. */
export const SHARED_HUB: DirHub = new DirHub();
