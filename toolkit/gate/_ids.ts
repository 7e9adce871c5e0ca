// Internal: request ids on one side of the gate. The gate sends requests of
// its own (probes, tools/list, elicitations) on the same connections as the
// peers' requests, so it owns every string id starting with GATE_ID_PREFIX:
// its own ids are `<prefix><n>`, and a peer's id that happens to start with
// the prefix is rewritten to `<prefix>r<n>` on the way through and restored
// in the answer. Any other id passes unchanged, so the common case costs a
// string test.

import type { JsonRpcId } from "../jsonrpc/mod.ts";

/** The id prefix the gate owns on both connections. */
export const GATE_ID_PREFIX = "forge-gate:";

/** Ids sent to one peer: the gate's own, and the other peer's forwarded ones. */
export class IdSpace {
  #next = 0;
  #restore = new Map<string, JsonRpcId>();
  #rewritten = new Map<JsonRpcId, string>();

  /** A fresh id for a request of the gate's own. */
  own(): string {
    return `${GATE_ID_PREFIX}${++this.#next}`;
  }

  /** Whether `id` is one that {@linkcode own} made. */
  isOwn(id: unknown): id is string {
    return typeof id === "string" && id.startsWith(GATE_ID_PREFIX) &&
      isDigit(id.charCodeAt(GATE_ID_PREFIX.length));
  }

  /** The id to send a forwarded request under. */
  forward(id: JsonRpcId): JsonRpcId {
    if (typeof id !== "string" || !id.startsWith(GATE_ID_PREFIX)) return id;
    const far = `${GATE_ID_PREFIX}r${++this.#next}`;
    this.#restore.set(far, id);
    this.#rewritten.set(id, far);
    return far;
  }

  /** The id a forwarded request went out under (for a cancellation). */
  sentAs(id: JsonRpcId): JsonRpcId {
    return this.#rewritten.get(id) ?? id;
  }

  /**
   * The original id of an answer's id, forgetting the rewrite; `undefined`
   * for an id in the gate's space that is not (or no longer) a rewrite.
   */
  settle(far: JsonRpcId): JsonRpcId | undefined {
    if (typeof far !== "string" || !far.startsWith(GATE_ID_PREFIX)) return far;
    const original = this.#restore.get(far);
    if (original === undefined) return undefined;
    this.#restore.delete(far);
    if (this.#rewritten.get(original) === far) this.#rewritten.delete(original);
    return original;
  }

  /** How many rewrites are remembered (for tests: none may leak). */
  get rewrites(): number {
    return this.#restore.size;
  }
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}
