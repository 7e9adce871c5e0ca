// Internal: handlers may answer with a value or a promise; the toolkit answers
// a value in the same turn and waits only for a promise.

/** Whether `value` is a promise or another thenable. */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === "function";
}
