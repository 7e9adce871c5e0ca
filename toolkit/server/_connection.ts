// What the server keeps per connected session: the session itself, what its
// client subscribed to, the log level it asked for, and the capabilities
// announced to it (which decide the methods it may call).

import type { LogLevel, Root } from "./context.ts";
import type { Session } from "./_session.ts";

/** One connected session and its state. */
export interface Connection {
  session: Session<Connection>;
  /** Resource URIs the client subscribed to. */
  subscriptions: Set<string>;
  /** The least severe level the client wants; everything until it says. */
  logLevel: LogLevel | undefined;
  /** The capabilities announced at `initialize`. */
  capabilities: Record<string, Record<string, unknown>>;
  /**
   * The client's roots as last listed, kept only when the client promised
   * `notifications/roots/list_changed`, which clears them.
   */
  roots: readonly Root[] | undefined;
  /** Counts roots changes, so an answer that raced one is not kept. */
  rootsVersion: number;
  /** URL-mode elicitations sent to this client and not yet completed, by id. */
  elicitations: Set<string>;
}
