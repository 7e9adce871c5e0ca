/**
 * The handle a registration returns: {@linkcode Registration} changes or
 * removes a tool, resource, resource template or prompt while the server
 * runs, and every change tells the connected clients.
 *
 * @module
 */

/**
 * A registered tool, resource, resource template or prompt, as
 * `server.tool()`, `server.resource()`, `server.resourceTemplate()` and
 * `server.prompt()` return it. Each change is checked as a registration is
 * (a bad patch is a `TypeError` or `RangeError` and changes nothing), and
 * sends the matching `notifications/…/list_changed` to every initialised
 * session; changes made in the same tick send one notification.
 *
 * A disabled entry is absent from its list and answers as an unknown one
 * (a disabled tool's call gets the unknown-tool error, -32602), until it is
 * enabled again. A removed entry is gone for good: its name or URI is free
 * to register again, and its handle refuses further changes.
 *
 * @example Offer a tool only while the user is signed in
 * ```ts
 * import { createServer, text } from "@forge/toolkit";
 *
 * const server = createServer({ name: "mail", version: "1" });
 * const send = server.tool({
 *   name: "send",
 *   description: "Sends an email",
 *   handler: () => text("sent"),
 * });
 * send.disable(); // not listed, not callable
 * // … after sign-in:
 * send.enable();
 * send.update({ description: "Sends an email as ada@example.com" });
 * ```
 */
export interface Registration<D> {
  /** Whether the entry is listed and answers (`false` after `disable()` or `remove()`). */
  readonly enabled: boolean;
  /** Whether `remove()` was called. */
  readonly removed: boolean;
  /** Lists and serves the entry again; does nothing when it is enabled. */
  enable(): void;
  /** Hides the entry: unlisted, and requests for it answer as for an unknown one. */
  disable(): void;
  /**
   * Changes fields of the definition; fields the patch sets to `undefined`
   * are dropped. The whole new definition is checked first, so a bad patch
   * throws and changes nothing. A new name or URI must be free.
   */
  update(patch: Partial<D>): void;
  /** Unregisters the entry; a second call does nothing. */
  remove(): void;
}
