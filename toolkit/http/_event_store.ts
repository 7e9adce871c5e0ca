// Internal: the in-memory SSE history behind `eventHistory`.

interface StoredEvent {
  seq: number;
  streamId: string;
  message: unknown;
}

/**
 * A session's recent SSE events, for `Last-Event-ID` resumption, in the
 * shape of the SDK's `EventStore`. Event ids are `<stream>.<sequence>`; only
 * the newest `limit` events are kept.
 */
export class MemoryEventStore {
  #limit: number;
  #events = new Map<string, StoredEvent>();
  #seq = 0;

  constructor(limit: number) {
    this.#limit = limit;
  }

  storeEvent(streamId: string, message: unknown): Promise<string> {
    const seq = ++this.#seq;
    const id = `${streamId}.${seq}`;
    this.#events.set(id, { seq, streamId, message });
    if (this.#events.size > this.#limit) {
      this.#events.delete(this.#events.keys().next().value!);
    }
    return Promise.resolve(id);
  }

  getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return Promise.resolve(this.#events.get(eventId)?.streamId);
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: {
      send: (eventId: string, message: never) => Promise<void>;
    },
  ): Promise<string> {
    const last = this.#events.get(lastEventId);
    if (last === undefined) {
      throw new Error(`Unknown event id: ${lastEventId}`);
    }
    for (const [id, event] of [...this.#events]) {
      if (event.seq <= last.seq || event.streamId !== last.streamId) continue;
      // Priming events carry no message.
      if (Object.keys(event.message as object).length === 0) continue;
      await send(id, event.message as never);
    }
    return last.streamId;
  }
}
