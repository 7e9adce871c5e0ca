// Internal: the answers a peer owes to requests sent to it, by request id.
// A request waits under its id until the answer under that id arrives, or
// until the connection fails and every wait fails with it. Ids match as a
// Map's keys do, by type and value: an answer under "1" is not one to 1.

import type { JsonRpcId, JsonRpcMessage } from "./types.ts";

/** The requests sent to one peer whose answers are awaited, by id. */
export class PendingRequests<Id extends JsonRpcId = JsonRpcId> {
  #waiting = new Map<Id, {
    resolve: (message: JsonRpcMessage) => void;
    reject: (error: Error) => void;
  }>();

  /** How many answers are awaited. */
  get size(): number {
    return this.#waiting.size;
  }

  /**
   * Waits for the answer (a result or an error) to the request sent as
   * `id`.
   *
   * @throws {RangeError} When an answer to `id` is awaited already.
   */
  expect(id: Id): Promise<JsonRpcMessage> {
    if (this.#waiting.has(id)) {
      throw new RangeError(
        `Cannot wait twice for one id: ${JSON.stringify(id)}`,
      );
    }
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
    });
  }

  /** Hands `message` to the request it answers; `false` when none waits for it. */
  settle(id: Id, message: JsonRpcMessage): boolean {
    const waiting = this.#waiting.get(id);
    if (waiting === undefined) return false;
    this.#waiting.delete(id);
    waiting.resolve(message);
    return true;
  }

  /** Fails every request still waiting, each with an `Error` saying `reason`. */
  failAll(reason: string): void {
    const failed = [...this.#waiting.values()];
    this.#waiting.clear();
    for (const { reject } of failed) reject(new Error(reason));
  }
}
