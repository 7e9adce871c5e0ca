// Internal: the roots the server resolves paths against. A server such as
// the filesystem server replaces its directories with the client's roots,
// the first one first, while the gate names file targets from the policy's
// first root: the two must be the same. So with `roots` in the policy, the
// server is told its client has roots (whatever the host declared), its
// `roots/list` is answered by the gate with the policy's roots, the host's
// roots and their changes never reach it (nor roots a 2026-07-28 host
// gives in a request's `inputResponses`), and a reload that changes the
// roots tells it to ask again. Without roots in the policy, the host's
// roots pass through as they are.

import type { JsonRpcMessage } from "../jsonrpc/mod.ts";
import { RPC_ERROR } from "../jsonrpc/mod.ts";
import { isRecord } from "../_util/json_type.ts";
import type { Reply } from "./_relay.ts";

// What the server was last given when it was the host's roots.
const HOST = "host";

/** The server's view of the roots, kept to the policy's. */
export class ServerRoots {
  #current: () => readonly string[];
  // Whether the server was told its client has roots (it may ask), and
  // whether by the gate alone (the host has none to give).
  #serverTold = false;
  #gateTold = false;
  // The roots the server was given, or will be when it asks (a key).
  #given: string | undefined;
  #checked: readonly string[] | undefined;

  /** `current` gives the policy's roots in force now (empty: none). */
  constructor(current: () => readonly string[]) {
    this.#current = current;
  }

  /** The params of a host's request `method`, as the server gets them. */
  params(
    method: string,
    params: Record<string, unknown> | undefined,
  ): Record<string, unknown> | undefined {
    if (method === "initialize") return this.#initialize(params);
    const responses = params?.inputResponses;
    if (!isRecord(responses)) return params;
    const roots = this.#current();
    if (roots.length === 0) return params;
    // A list-roots result is the one answer with a `roots` array.
    let mended: Record<string, unknown> | undefined;
    for (const [key, value] of Object.entries(responses)) {
      if (isRecord(value) && Array.isArray(value.roots)) {
        mended ??= { ...responses };
        mended[key] = { ...value, roots: asRoots(roots) };
      }
    }
    return mended === undefined
      ? params
      : { ...params, inputResponses: mended };
  }

  #initialize(
    params: Record<string, unknown> | undefined,
  ): Record<string, unknown> | undefined {
    const capabilities = isRecord(params?.capabilities)
      ? params.capabilities
      : {};
    const hostDeclared = isRecord(capabilities.roots);
    const roots = this.#current();
    if (roots.length === 0) {
      this.#serverTold = hostDeclared;
      return params;
    }
    this.#serverTold = true;
    this.#gateTold = !hostDeclared;
    this.#given = keyOf(roots);
    // listChanged: a reload that changes the roots says so.
    return {
      ...params,
      capabilities: { ...capabilities, roots: { listChanged: true } },
    };
  }

  /**
   * The gate's answer to a server's request `method`: its `roots/list`
   * while the policy has roots (or when only the gate said there were
   * roots); `undefined` for a request the host answers.
   */
  answer(method: string): Reply | undefined {
    if (method !== "roots/list") return undefined;
    const roots = this.#current();
    if (roots.length > 0) {
      this.#given = keyOf(roots);
      return { result: { roots: asRoots(roots) } };
    }
    this.#given = HOST;
    if (!this.#gateTold) return undefined;
    // Told of roots by a policy that has none since: there are none.
    return {
      error: {
        code: RPC_ERROR.METHOD_NOT_FOUND,
        message: "Method not found: the host does not offer roots",
      },
    };
  }

  /** Whether the host's `notifications/roots/list_changed` goes on to the server. */
  hostChanged(): boolean {
    return this.#current().length === 0;
  }

  /**
   * The notification to send the server when the policy's roots are not
   * the ones it was given (a reload changed them); `undefined` when they
   * are, or when it cannot ask.
   */
  refresh(): JsonRpcMessage | undefined {
    if (!this.#serverTold || this.#given === undefined) return undefined;
    const roots = this.#current();
    // The same list until a reload: one comparison per call.
    if (roots === this.#checked) return undefined;
    this.#checked = roots;
    const now = roots.length > 0 ? keyOf(roots) : HOST;
    if (now === this.#given) return undefined;
    this.#given = now;
    return { jsonrpc: "2.0", method: "notifications/roots/list_changed" };
  }
}

/** `file://` and the absolute `path`, each segment percent-encoded. */
export function fileUri(path: string): string {
  return `file://${path.split("/").map(encodeURIComponent).join("/")}`;
}

function asRoots(roots: readonly string[]): { uri: string }[] {
  return roots.map((root) => ({ uri: fileUri(root) }));
}

function keyOf(roots: readonly string[]): string {
  return JSON.stringify(roots);
}
