// Internal test helpers shared by the *_test.ts files of this folder.

import type { Clock } from "./_clock.ts";
import type { FsWatcherLike } from "./_dir_hub.ts";

/** Polls `condition` every 10 ms; throws naming `what` after the timeout. */
export async function until(
  condition: () => boolean,
  what: string,
  timeoutMs = 5000,
): Promise<void> {
  const intervalMs = 10;
  const started = performance.now();
  while (!condition()) {
    if (performance.now() - started > timeoutMs) {
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** A clock that moves only when the test says: `advance()` fires what is due. */
export class FakeClock implements Clock {
  #now = 0;
  #nextId = 1;
  #timers = new Map<number, { at: number; fn: () => void }>();

  now(): number {
    return this.#now;
  }

  setTimeout(fn: () => void, ms: number): number {
    const id = this.#nextId++;
    this.#timers.set(id, { at: this.#now + Math.max(0, ms), fn });
    return id;
  }

  clearTimeout(id: unknown): void {
    if (typeof id === "number") this.#timers.delete(id);
  }

  /** How many timers are scheduled. */
  get pending(): number {
    return this.#timers.size;
  }

  /** Moves time on by `ms`, firing each timer that comes due, in order. */
  advance(ms: number): void {
    const end = this.#now + ms;
    while (true) {
      let next: [number, { at: number; fn: () => void }] | undefined;
      for (const entry of this.#timers) {
        if (
          entry[1].at <= end && (next === undefined || entry[1].at < next[1].at)
        ) {
          next = entry;
        }
      }
      if (next === undefined) break;
      this.#timers.delete(next[0]);
      this.#now = next[1].at;
      next[1].fn();
    }
    this.#now = end;
  }
}

/** A watcher the test drives: push events, end it, see whether it closed. */
export class FakeWatcher implements FsWatcherLike {
  closed = false;
  #queue: (Deno.FsEvent | "end")[] = [];
  #wake: (() => void) | undefined;

  push(item: Deno.FsEvent | "end"): void {
    this.#queue.push(item);
    this.#wake?.();
  }

  close(): void {
    this.closed = true;
    this.#wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Deno.FsEvent> {
    while (!this.closed) {
      const item = this.#queue.shift();
      if (item === "end") return;
      if (item !== undefined) {
        yield item;
        continue;
      }
      await new Promise<void>((resolve) => this.#wake = resolve);
      this.#wake = undefined;
    }
  }
}
