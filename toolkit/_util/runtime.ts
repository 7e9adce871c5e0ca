// Internal: what differs between the runtimes the toolkit runs on (Deno,
// Node, Bun, workerd), reached only when called, so that importing a module
// never touches `Deno`. Deno unreferences a timer through `Deno.unrefTimer`,
// Node and Bun through the timer's `unref()`; workerd has neither.

type Timer = ReturnType<typeof setTimeout>;

interface NodeTimer {
  ref?: () => void;
  unref?: () => void;
}

/** Deno's namespace when the module runs on Deno, else `undefined`. */
export function denoNamespace(): typeof Deno | undefined {
  return (globalThis as { Deno?: typeof Deno }).Deno;
}

/** Lets the process exit while `timer` is pending. */
export function unrefTimer(timer: Timer): void {
  const deno = denoNamespace();
  if (deno !== undefined) deno.unrefTimer(timer);
  else (timer as unknown as NodeTimer).unref?.();
}

/** Keeps the process alive while `timer` is pending again. */
export function refTimer(timer: Timer): void {
  const deno = denoNamespace();
  if (deno !== undefined) deno.refTimer(timer);
  else (timer as unknown as NodeTimer).ref?.();
}

/**
 * `Promise.withResolvers()`, which Node has only from 22: the toolkit runs
 * on Node 20 as well.
 */
export function withResolvers<T>(): PromiseWithResolvers<T> {
  let resolve!: (value: T | PromiseLike<T>) => void;
  let reject!: (reason?: unknown) => void;
  const promise = new Promise<T>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}

/**
 * Whether one request can count on memory another left: not on Cloudflare
 * Workers (workerd), which may serve each request in another isolate, and
 * says so in `navigator.userAgent`.
 */
export function sharesMemoryBetweenRequests(): boolean {
  const navigator = (globalThis as { navigator?: { userAgent?: unknown } })
    .navigator;
  return navigator?.userAgent !== "Cloudflare-Workers";
}
