// Internal: byte strings compared without an early exit, so the time taken
// says nothing about where they differ (a token's digest, a signature).

/** Whether `a` and `b` hold the same bytes; unequal lengths are unequal. */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  let difference = a.length ^ b.length;
  for (let i = 0; i < a.length; i++) difference |= a[i] ^ (b[i] ?? 0);
  return difference === 0;
}
