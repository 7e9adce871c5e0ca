// Internal: one `Deno.watchFs` over a set of directories that keeps itself
// alive. Every event is passed on as "something changed here"; the caller
// decides what that means. A watch whose iterator ends (or throws) is
// restarted, with a growing pause when it keeps ending quickly; an event
// about a watched directory itself (deleted, moved) marks the watch stale so
// the next `watch()` call re-creates it; if watches cannot be created at all,
// the caller is told once and should poll instead.

/** The part of `Deno.FsWatcher` this module uses. */
export interface FsWatcherLike extends AsyncIterable<Deno.FsEvent> {
  close(): void;
}

/** The shape of `Deno.watchFs`, injectable for tests. */
export type WatchFs = (
  paths: string[],
  options: { recursive: boolean },
) => FsWatcherLike;

/** What the owner of a {@linkcode DirWatcher} hears. */
export interface DirWatcherHandlers {
  /** An event arrived; `rescan` when the OS says events were dropped. */
  onEvent(rescan: boolean): void;
  /** Events may have been missed (the watch was restarted): check now. */
  onGap(): void;
  /** Watching failed for good; nothing more will be heard. */
  onFailure(error: unknown): void;
}

// A watch that ends sooner than this after its start counts as failing.
const QUICK_END_MS = 1000;
const MAX_QUICK_ENDS = 4;
const MAX_CREATE_RETRIES = 5;
const BACKOFF_MS = 50;

interface Entry {
  watcher: FsWatcherLike;
  dirs: string[];
  startedAt: number;
}

/** Watches a set of directories, restarting the watch as needed. */
export class DirWatcher {
  #handlers: DirWatcherHandlers;
  #watchFs: WatchFs;
  #current: Entry | undefined;
  #dirs: string[] = [];
  #key: string | undefined;
  #stale = false;
  #closed = false;
  #failed = false;
  #quickEnds = 0;
  #createRetries = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #pumps = new Set<Promise<void>>();

  constructor(handlers: DirWatcherHandlers, watchFs: WatchFs = Deno.watchFs) {
    this.#handlers = handlers;
    this.#watchFs = watchFs;
  }

  /** Whether watching has failed for good. */
  get failed(): boolean {
    return this.#failed;
  }

  /** The directories being watched now. */
  get dirs(): readonly string[] {
    return this.#current?.dirs ?? [];
  }

  /**
   * Watches `dirs`, identified by `key`, unless that watch is already
   * running and not stale. Returns true when a new watch was put in place,
   * so the caller knows to check once more for what happened meanwhile.
   */
  watch(dirs: string[], key: string): boolean {
    if (this.#closed || this.#failed) return false;
    if (this.#current !== undefined && this.#key === key && !this.#stale) {
      return false;
    }
    this.#dirs = dirs;
    this.#key = key;
    return this.#start();
  }

  /** Stops watching; resolves once the watch's iterator has finished. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#clearTimer();
    this.#stop();
    await Promise.all(this.#pumps);
  }

  #start(): boolean {
    this.#clearTimer();
    this.#stop();
    this.#stale = false;
    let watcher: FsWatcherLike;
    try {
      watcher = this.#watchFs(this.#dirs, { recursive: false });
    } catch (error) {
      if (
        error instanceof Deno.errors.NotFound &&
        this.#createRetries < MAX_CREATE_RETRIES
      ) {
        // A directory vanished between the caller's look and the watch:
        // ask for a check, which looks again and calls watch() anew.
        this.#createRetries++;
        this.#schedule(BACKOFF_MS * this.#createRetries, () => {
          this.#handlers.onGap();
        });
        return false;
      }
      this.#fail(error);
      return false;
    }
    this.#createRetries = 0;
    const entry: Entry = {
      watcher,
      dirs: this.#dirs,
      startedAt: performance.now(),
    };
    this.#current = entry;
    const pump = this.#pump(entry).finally(() => this.#pumps.delete(pump));
    this.#pumps.add(pump);
    return true;
  }

  async #pump(entry: Entry): Promise<void> {
    try {
      for await (const event of entry.watcher) {
        if (this.#current !== entry) break;
        if (event.paths.some((path) => entry.dirs.includes(path))) {
          this.#stale = true;
        }
        this.#handlers.onEvent(event.flag === "rescan");
      }
    } catch {
      // An iterator that throws has ended; it is restarted below.
    }
    if (this.#closed || this.#current !== entry) return;
    this.#current = undefined;
    const lived = performance.now() - entry.startedAt;
    this.#quickEnds = lived < QUICK_END_MS ? this.#quickEnds + 1 : 0;
    if (this.#quickEnds > MAX_QUICK_ENDS) {
      this.#fail(
        new Error(
          `Cannot watch config: the file-system watcher ended ${this.#quickEnds} times in a row right after starting`,
        ),
      );
      return;
    }
    const delay = this.#quickEnds === 0 ? 0 : BACKOFF_MS * 2 ** this.#quickEnds;
    this.#schedule(delay, () => {
      if (this.#start()) this.#handlers.onGap();
    });
  }

  #stop(): void {
    const entry = this.#current;
    this.#current = undefined;
    if (entry === undefined) return;
    try {
      entry.watcher.close();
    } catch {
      // Already closed by the runtime; nothing left to release.
    }
  }

  #fail(error: unknown): void {
    this.#failed = true;
    this.#clearTimer();
    this.#stop();
    this.#handlers.onFailure(error);
  }

  #schedule(delay: number, fn: () => void): void {
    this.#clearTimer();
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (!this.#closed && !this.#failed) fn();
    }, delay);
  }

  #clearTimer(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
