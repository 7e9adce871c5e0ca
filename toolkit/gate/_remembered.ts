// Internal: approvals that last. When the user accepts a call with the
// scope "session", its canonical patterns are remembered in memory, and a
// later call whose every pattern is among them is not asked again. The
// policy decides first: only a call it would ask about is let through by
// a remembered approval, so a deny (one a reload adds, too) still wins.
// Patterns match exactly, never as globs: an approval of write:a says
// nothing of write:a/b. A call without patterns (a tool decided by name)
// has nothing to remember.

import type { Policy } from "../policy/mod.ts";

/** The value of the form's `remember` field that makes an approval last. */
export const REMEMBER_SESSION = "session";
/** The form's field that offers the scope of an approval. */
const FIELD = "remember";

/** Whether the host's answer asks to remember the approval: its `remember` field says `session`. */
export function remembersSession(reply: unknown): boolean {
  if (typeof reply !== "object" || reply === null) return false;
  const content = (reply as { content?: unknown }).content;
  return typeof content === "object" && content !== null &&
    (content as Record<string, unknown>)[FIELD] === REMEMBER_SESSION;
}

/**
 * The requested schema of an approval form: with the choice of scope when
 * the call's patterns can be remembered, empty otherwise. `lasting` names
 * how long "session" lasts for this host.
 */
export function approvalSchema(
  offer: boolean,
  lasting = "for the rest of the session",
): Record<string, unknown> {
  if (!offer) return { type: "object", properties: {} };
  return {
    type: "object",
    properties: {
      [FIELD]: {
        type: "string",
        title: "Approve",
        enum: ["call", REMEMBER_SESSION],
        enumNames: [
          "This call only",
          `These permissions ${lasting}`,
        ],
        default: "call",
      },
    },
  };
}

/** The patterns a gate's user approved for the session. */
export class RememberedApprovals {
  #patterns = new Set<string>();

  /**
   * Whether the call's `patterns` may be remembered: it has some, and each
   * is canonical (an exact match is only meaningful for those).
   */
  canRemember(patterns: readonly string[], policy: Policy): boolean {
    return patterns.length > 0 &&
      policy.evaluate(patterns).patterns.every((p) => p.problem === undefined);
  }

  /** Remembers each of `patterns` as approved. */
  remember(patterns: readonly string[]): void {
    for (const pattern of patterns) this.#patterns.add(pattern);
  }

  /** Whether every one of `patterns` (at least one) was remembered. */
  covers(patterns: readonly string[]): boolean {
    return patterns.length > 0 &&
      patterns.every((pattern) => this.#patterns.has(pattern));
  }
}
