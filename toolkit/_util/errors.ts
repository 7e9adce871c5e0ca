// Internal: what a thrown or rejected value says, whatever was thrown: a
// stream cancelled with a string, or a handler that threw one, still
// reaches an onerror listener as an Error, and a line as text.

/** `value` when it is an Error, else an Error whose message is `value` as a string. */
export function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}

/** An error's message, or the thrown value as text. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
