// A value that prints as [redacted] everywhere but reveal().

const REDACTED = "[redacted]";
const ENCODER = new TextEncoder();

/**
 * A secret value. It prints as `[redacted]` through `String()`, template
 * literals, `JSON.stringify`, `console.log` and `Deno.inspect`, so logging a
 * whole config object cannot leak it; {@linkcode Secret.prototype.reveal}
 * is the one, greppable, way to get the text.
 *
 * @example Use a token without leaking it
 * ```ts
 * import { Secret } from "@forge/toolkit/env";
 *
 * const token = new Secret("s3cret");
 * `${token}`; // "[redacted]"
 * JSON.stringify({ token }); // '{"token":"[redacted]"}'
 * token.reveal(); // "s3cret"
 * token.equals("s3cret"); // true
 * ```
 */
export class Secret {
  #value: string;

  /**
   * Wraps a secret value.
   *
   * @param value The secret text.
   */
  constructor(value: string) {
    if (typeof value !== "string") {
      throw new TypeError(
        `Cannot create a secret: expected a string, got ${typeof value}`,
      );
    }
    this.#value = value;
  }

  /**
   * The secret text. Call this only where the value is used, never to log it.
   *
   * @example
   * ```ts
   * import { Secret } from "@forge/toolkit/env";
   *
   * const token = new Secret("s3cret");
   * const headers = { authorization: `Bearer ${token.reveal()}` };
   * ```
   */
  reveal(): string {
    return this.#value;
  }

  /**
   * Compares `candidate` with the secret in time that does not depend on
   * where they differ, for checking bearer tokens and similar. The length of
   * the secret is not hidden.
   *
   * @example Check a bearer token
   * ```ts
   * import { Secret } from "@forge/toolkit/env";
   *
   * const token = new Secret("s3cret");
   * token.equals("guess"); // false
   * ```
   */
  equals(candidate: string | Secret): boolean {
    const a = ENCODER.encode(this.#value);
    const b = ENCODER.encode(
      candidate instanceof Secret ? candidate.#value : String(candidate),
    );
    let diff = a.length ^ b.length;
    for (let i = 0; i < b.length; i++) {
      diff |= b[i] ^ (a.length === 0 ? 0 : a[i % a.length]);
    }
    return diff === 0;
  }

  /**
   * Always `[redacted]`.
   *
   * @example
   * ```ts
   * import { Secret } from "@forge/toolkit/env";
   *
   * String(new Secret("s3cret")); // "[redacted]"
   * ```
   */
  toString(): string {
    return REDACTED;
  }

  /**
   * Always `[redacted]`, so `JSON.stringify` never writes the value.
   *
   * @example
   * ```ts
   * import { Secret } from "@forge/toolkit/env";
   *
   * JSON.stringify(new Secret("s3cret")); // '"[redacted]"'
   * ```
   */
  toJSON(): string {
    return REDACTED;
  }

  /**
   * What `console.log` and `Deno.inspect` print: `[redacted]`.
   *
   * @example
   * ```ts
   * import { Secret } from "@forge/toolkit/env";
   *
   * Deno.inspect({ token: new Secret("s3cret") }); // "{ token: [redacted] }"
   * ```
   */
  [Symbol.for("Deno.customInspect")](): string {
    return REDACTED;
  }

  /**
   * What Node's `util.inspect` prints: `[redacted]`.
   *
   * @example
   * ```ts
   * import { inspect } from "node:util";
   * import { Secret } from "@forge/toolkit/env";
   *
   * inspect({ token: new Secret("s3cret") }); // "{ token: [redacted] }"
   * ```
   */
  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return REDACTED;
  }
}
