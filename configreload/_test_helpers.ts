// Internal test helpers shared by the *_test.ts files of this folder.

import type { FsWatcherLike } from "./_dir_hub.ts";

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `condition` every 10 ms; throws naming `what` after the timeout. */
export async function until(
  condition: () => boolean,
  what: string,
  timeoutMs = 5000,
): Promise<void> {
  const started = performance.now();
  while (!condition()) {
    if (performance.now() - started > timeoutMs) {
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await sleep(10);
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
