// Internal: the set of directories one config watcher listens to, kept in
// step with where its file lives now. The watches themselves belong to a
// process-wide hub (see _dir_hub.ts); this class only subscribes and
// unsubscribes, and turns the first failure into "fall back to polling".

import { type DirHub, type DirListener, SHARED_HUB } from "./_dir_hub.ts";
import type { WatchTarget } from "./_watch_targets.ts";

/** What the owner of a {@linkcode DirWatcher} hears. */
export interface DirWatcherHandlers {
  /** Something changed in a watched directory. */
  onEvent(rescan: boolean): void;
  /** A watch was re-created; events may have been missed. */
  onGap(): void;
  /** Watching failed; the owner should poll from now on. Called once. */
  onFailure(error: unknown): void;
}

/** Subscribes one config watcher to the directories it needs. */
export class DirWatcher {
  #hub: DirHub;
  #handlers: DirWatcherHandlers;
  #subscribed = new Map<string, string>();
  #leaving = new Set<Promise<void>>();
  #failed = false;
  #closed = false;
  #listener: DirListener;

  constructor(handlers: DirWatcherHandlers, hub: DirHub = SHARED_HUB) {
    this.#hub = hub;
    this.#handlers = handlers;
    this.#listener = {
      onEvent: (rescan) => {
        if (!this.#closed) this.#handlers.onEvent(rescan);
      },
      onGap: () => {
        if (!this.#closed) this.#handlers.onGap();
      },
      onFailure: (error) => this.#fail(error),
    };
  }

  /** Whether watching has failed for good. */
  get failed(): boolean {
    return this.#failed;
  }

  /** The directories subscribed to now. */
  get dirs(): string[] {
    return [...this.#subscribed.keys()];
  }

  /** Listens to exactly `targets` from now on. */
  watch(targets: readonly WatchTarget[]): void {
    if (this.#closed || this.#failed) return;
    const wanted = new Map(targets.map((target) => [target.dir, target.id]));
    for (const dir of [...this.#subscribed.keys()]) {
      if (!wanted.has(dir)) this.#leave(dir);
    }
    for (const [dir, id] of wanted) {
      const known = this.#subscribed.has(dir);
      this.#subscribed.set(dir, id);
      if (known) this.#hub.refresh(dir, id);
      else this.#hub.subscribe(dir, id, this.#listener);
      if (this.#failed) return;
    }
  }

  /** Unsubscribes from everything; resolves when no watch of ours is left. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const dir of [...this.#subscribed.keys()]) this.#leave(dir);
    await Promise.all(this.#leaving);
  }

  #leave(dir: string): void {
    this.#subscribed.delete(dir);
    const left: Promise<void> = this.#hub.unsubscribe(dir, this.#listener)
      .finally(() => this.#leaving.delete(left));
    this.#leaving.add(left);
  }

  #fail(error: unknown): void {
    if (this.#failed || this.#closed) return;
    this.#failed = true;
    for (const dir of [...this.#subscribed.keys()]) this.#leave(dir);
    this.#handlers.onFailure(error);
  }
}
