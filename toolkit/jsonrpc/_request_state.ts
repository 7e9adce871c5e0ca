// Internal: the signed `requestState` of 2026-07-28 multi-round requests
// (SEP-2322): what a server has been told so far, carried by the client and
// verified when it comes back. The server's sessions use it for a handler's
// input requests, and the gate for the approvals it asks a host for.

import { isRecord, jsonType } from "../_util/json_type.ts";
import { constantTimeEqual } from "../_util/constant_time_equal.ts";
import { ProtocolError, RPC_ERROR } from "./errors.ts";

/**
 * The answers a handler has been given across the rounds of one
 * multi-round request, carried by the client as an HMAC-signed
 * `requestState` so that any instance holding the key can resume it and a
 * client cannot forge answers it was never asked for.
 */
export class RequestStateSigner {
  readonly #key: Uint8Array;

  constructor(key: Uint8Array = crypto.getRandomValues(new Uint8Array(32))) {
    this.#key = key;
  }

  /** Signs the answers so far, for the request named by `subject`, as an opaque string. */
  sign(subject: string, answers: Record<string, unknown>): string {
    const bytes = new TextEncoder().encode(
      JSON.stringify({ subject, answers }),
    );
    let binary = "";
    for (let i = 0; i < bytes.length; i += 0x8000) {
      binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    }
    const body = btoa(binary);
    return `${body}.${this.#mac(body)}`;
  }

  /**
   * The answers in a `requestState`; -32602 when it was altered or was
   * issued for another request (`subject` names the method and the tool,
   * prompt or resource).
   */
  verify(subject: string, state: unknown): Record<string, unknown> {
    const method = subject.split(" ")[0];
    const invalid = (why: string) =>
      new ProtocolError(
        RPC_ERROR.INVALID_PARAMS,
        `Invalid params for ${method}: requestState: ${why}`,
      );
    if (typeof state !== "string") {
      throw invalid(
        `expected the string the server sent, got ${jsonType(state)}`,
      );
    }
    const dot = state.lastIndexOf(".");
    const body = state.slice(0, dot);
    const mac = new TextEncoder().encode(state.slice(dot + 1));
    const expected = new TextEncoder().encode(this.#mac(body));
    if (
      dot === -1 || !constantTimeEqual(mac, expected)
    ) {
      throw invalid(
        "integrity check failed (it was altered or not issued by this server)",
      );
    }
    let decoded: unknown;
    try {
      decoded = JSON.parse(
        new TextDecoder().decode(
          Uint8Array.from(atob(body), (c) => c.charCodeAt(0)),
        ),
      );
    } catch {
      throw invalid("cannot be decoded");
    }
    if (
      !isRecord(decoded) || decoded.subject !== subject ||
      !isRecord(decoded.answers)
    ) {
      throw invalid(`it was issued for another request than ${subject}`);
    }
    return decoded.answers;
  }

  #mac(body: string): string {
    if (nodeCrypto === undefined) {
      throw new Error(
        "Cannot sign request state: call loadRequestSigning() first",
      );
    }
    return nodeCrypto.createHmac("sha256", this.#key).update(body).digest(
      "base64url",
    );
  }
}

// node:crypto's HMAC is synchronous, but loading it costs ~17 ms of start-up;
// only a 2026-07-28 request that may ask for input needs it, so the session
// loads it then.
let nodeCrypto: typeof import("node:crypto") | undefined;
let loadingCrypto: Promise<void> | undefined;

/** Whether {@linkcode RequestStateSigner} can sign and verify now. */
export function requestSigningLoaded(): boolean {
  return nodeCrypto !== undefined;
}

/** Loads what {@linkcode RequestStateSigner} signs with (once). */
export function loadRequestSigning(): Promise<void> {
  return loadingCrypto ??= import("node:crypto").then((module) => {
    nodeCrypto = module;
  });
}
