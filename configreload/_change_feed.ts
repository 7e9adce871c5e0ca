// Internal: how a config watcher is heard. Listeners get every change and
// error event (what they throw goes to `onListenerError`, so one bad
// listener cannot stop the others or the watcher); async iterators get the
// changes, queued until read. Closing ends both.

import type { ConfigChange, ConfigEvent, ConfigListener } from "./types.ts";
import { describe } from "./_settings.ts";

interface Sink<T> {
  push(change: ConfigChange<T>): void;
  end(): void;
}

/** The listeners and open iterators of one watcher. */
export class ChangeFeed<T> {
  // Entries, not the functions, so the same function subscribed twice is
  // called twice and each unsubscribe removes one.
  #listeners = new Set<{ listener: ConfigListener<T> }>();
  #sinks = new Set<Sink<T>>();
  #onListenerError: (error: unknown) => void;
  #closed = false;

  constructor(onListenerError: (error: unknown) => void) {
    this.#onListenerError = onListenerError;
  }

  /** Whether any listener is subscribed. */
  get listening(): boolean {
    return this.#listeners.size > 0;
  }

  /** Adds `listener`; returns the function that removes it. */
  subscribe(listener: ConfigListener<T>): () => void {
    if (typeof listener !== "function") {
      throw new TypeError(
        `Cannot subscribe to config changes: expected a listener function, got ${
          describe(listener)
        }`,
      );
    }
    if (this.#closed) return () => {};
    const entry = { listener };
    this.#listeners.add(entry);
    return () => {
      this.#listeners.delete(entry);
    };
  }

  /** Hands `change` to every iterator, then to every listener. */
  change(change: ConfigChange<T>): void {
    for (const sink of this.#sinks) sink.push(change);
    this.emit(change);
  }

  /** Calls every listener with `event`. */
  emit(event: ConfigEvent<T>): void {
    if (this.#closed) return;
    for (const { listener } of [...this.#listeners]) {
      try {
        const result = listener(event);
        if (result instanceof Promise) result.catch(this.#onListenerError);
      } catch (error) {
        this.#onListenerError(error);
      }
    }
  }

  /** An iterator over the changes from now on, until close. */
  iterate(): AsyncIterableIterator<ConfigChange<T>> {
    const queue: ConfigChange<T>[] = [];
    const waiting: ((result: IteratorResult<ConfigChange<T>>) => void)[] = [];
    let done = this.#closed;
    const sink: Sink<T> = {
      push(change) {
        const wake = waiting.shift();
        if (wake !== undefined) wake({ value: change, done: false });
        else queue.push(change);
      },
      end() {
        done = true;
        for (const wake of waiting.splice(0)) {
          wake({ value: undefined, done: true });
        }
      },
    };
    if (!done) this.#sinks.add(sink);
    const iterator: AsyncIterableIterator<ConfigChange<T>> = {
      next: () => {
        const change = queue.shift();
        if (change !== undefined) {
          return Promise.resolve({ value: change, done: false });
        }
        if (done) return Promise.resolve({ value: undefined, done: true });
        return new Promise((wake) => waiting.push(wake));
      },
      return: () => {
        this.#sinks.delete(sink);
        queue.length = 0;
        sink.end();
        return Promise.resolve({ value: undefined, done: true });
      },
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }

  /** Drops every listener and ends every iterator. */
  close(): void {
    this.#closed = true;
    this.#listeners.clear();
    for (const sink of this.#sinks) sink.end();
    this.#sinks.clear();
  }
}
