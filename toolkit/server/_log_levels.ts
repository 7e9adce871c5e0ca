// Internal: the levels of `notifications/message` and `logging/setLevel`,
// least severe first, shared by both eras.

import type { LogLevel } from "./context.ts";

/** The levels of `logging/setLevel`, least severe first. */
export const LOG_LEVELS: readonly LogLevel[] = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
];
