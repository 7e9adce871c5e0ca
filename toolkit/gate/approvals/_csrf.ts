// Internal: the token of the approval page's form. A cross-site page can
// make a signed-in approver's browser post the form, but cannot read the
// page, so it cannot know the token: an HMAC, under the gate's key, of the
// viewer's subject and the approval's id. It is good for that viewer on
// that page only; instances behind one load balancer share the key, so a
// page served by one is posted to another.

import { constantTimeEqual } from "../../_util/constant_time_equal.ts";

/** The shortest key the page takes: 256 bits. */
export const MIN_KEY_BYTES = 32;

/** Signs and checks form tokens under one key. */
export class FormTokens {
  readonly #key: Promise<CryptoKey>;

  constructor(key: Uint8Array) {
    if (!(key instanceof Uint8Array) || key.length < MIN_KEY_BYTES) {
      throw new RangeError(
        `Cannot sign approval forms: the key must be at least ${MIN_KEY_BYTES} bytes, got ${
          key instanceof Uint8Array ? key.length : typeof key
        }`,
      );
    }
    this.#key = crypto.subtle.importKey(
      "raw",
      new Uint8Array(key),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"],
    );
  }

  /** The token for `sub` on the page of approval `id`, base64url. */
  async token(sub: string, id: string): Promise<string> {
    const message = new TextEncoder().encode(
      `forge-gate approval form\n${sub.length}:${sub}\n${id}`,
    );
    const mac = new Uint8Array(
      await crypto.subtle.sign("HMAC", await this.#key, message),
    );
    return btoa(String.fromCharCode(...mac)).replaceAll("+", "-")
      .replaceAll("/", "_").replace(/=+$/, "");
  }

  /** Whether `token` is the one for `sub` on approval `id`, compared in constant time. */
  async check(token: unknown, sub: string, id: string): Promise<boolean> {
    if (typeof token !== "string") return false;
    const encoder = new TextEncoder();
    return constantTimeEqual(
      encoder.encode(token),
      encoder.encode(await this.token(sub, id)),
    );
  }
}
