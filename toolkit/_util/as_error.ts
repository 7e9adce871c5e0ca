// Internal: what a thrown or rejected value becomes where an `Error` is
// promised (a transport's onerror): a stream cancelled with a string, or a
// handler that threw one, still reaches the listener as an Error.

/** `value` when it is an Error, else an Error whose message is `value` as a string. */
export function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}
