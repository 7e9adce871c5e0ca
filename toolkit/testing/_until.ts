// The one polling wait of the toolkit's tests: for a condition no event
// announces (a file on disk, a child's state), checked every few
// milliseconds and bounded, so a test never sleeps a fixed time for it.
// configreload/ keeps its own (it imports nothing of toolkit/).

/** Options for {@linkcode until}. */
export interface UntilOptions {
  /** Give up after this long. @default {5000} */
  timeoutMs?: number;
  /** How often to check. @default {5} */
  intervalMs?: number;
}

/**
 * Resolves once `condition` holds; throws naming `what` after the timeout.
 *
 * @example
 * ```ts ignore
 * await until("the file is written", async () => (await Deno.stat(p)).size > 0);
 * ```
 */
export async function until(
  what: string,
  condition: () => boolean | Promise<boolean>,
  options: UntilOptions = {},
): Promise<void> {
  const { timeoutMs = 5000, intervalMs = 5 } = options;
  const end = performance.now() + timeoutMs;
  while (!(await condition())) {
    if (performance.now() > end) {
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
