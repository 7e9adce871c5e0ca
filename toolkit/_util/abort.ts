// Internal: an abort that costs nothing until someone looks at its signal.
// Most calls finish without anyone reading `ctx.signal`; creating an
// AbortController (and a dependent signal per call) showed up in profiles.

/** A cancellation whose `AbortSignal` is created only when read. */
export class LazyAbort {
  /** Whether it has been aborted. */
  aborted = false;
  /** Why, once aborted. */
  reason: unknown = undefined;
  #controller: AbortController | undefined;
  #listeners: ((reason: unknown) => void)[] = [];

  /** The signal, made on first read (born aborted if the abort came first). */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.aborted) this.#controller.abort(this.reason);
    }
    return this.#controller.signal;
  }

  /** Calls `listener` once on abort (at once if already aborted). */
  onabort(listener: (reason: unknown) => void): void {
    if (this.aborted) listener(this.reason);
    else this.#listeners.push(listener);
  }

  /** Aborts once; later calls do nothing. */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.#controller?.abort(reason);
    const listeners = this.#listeners;
    this.#listeners = [];
    for (const listener of listeners) listener(reason);
  }

  /** `run`'s outcome, unless the abort comes first: then its reason, at once. */
  race<T>(run: Promise<T>): Promise<T> {
    if (this.aborted) return Promise.reject(this.reason);
    return new Promise<T>((resolve, reject) => {
      this.#listeners.push(reject);
      run.then(resolve, reject);
    });
  }
}
