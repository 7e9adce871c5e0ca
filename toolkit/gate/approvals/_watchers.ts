// Internal: who listens to which approval, for the approval stores
// (_board.ts in memory, _redis_store.ts in Redis) to tell of its changes.

/** The listeners of each approval, by id. */
export class Watchers {
  #byId = new Map<string, Set<() => void>>();

  /** How many approvals have a listener. */
  get size(): number {
    return this.#byId.size;
  }

  /** Adds `changed` as a listener of `id`; returns its removal. */
  add(id: string, changed: () => void): () => void {
    let listeners = this.#byId.get(id);
    if (listeners === undefined) {
      listeners = new Set();
      this.#byId.set(id, listeners);
    }
    // Its own entry, so the same function added twice is told twice.
    const listener = () => changed();
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0) this.#byId.delete(id);
    };
  }

  /** The listeners of `id`, as they are while iterated. */
  of(id: string): Iterable<() => void> {
    return this.#byId.get(id) ?? [];
  }

  /** The ids that have a listener, as of now. */
  ids(): string[] {
    return [...this.#byId.keys()];
  }

  /** Forgets every listener. */
  clear(): void {
    this.#byId.clear();
  }
}
