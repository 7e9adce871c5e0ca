// Internal: the context a pattern tool's handler gets, the call's context
// plus `access`. A wrapper that forwards, not `Object.create(ctx)`: an object
// made a prototype once per call costs V8 a prototype map and its validity
// bookkeeping each time, which kept a pattern tool's server at twice the
// memory of a plain tool's under sustained calls.

import type {
  AuthInfo,
  ElicitationParams,
  ElicitationResult,
  Root,
  SamplingParams,
  SamplingResult,
  ToolContext,
  ToolLogger,
  UrlElicitationParams,
} from "./server/context.ts";

/** `ctx` with `access`; every other member reads through to `ctx`, live. */
export class AccessContext<P> implements ToolContext {
  readonly access: P;
  #ctx: ToolContext;

  constructor(ctx: ToolContext, access: P) {
    this.#ctx = ctx;
    this.access = access;
  }

  get signal(): AbortSignal {
    return this.#ctx.signal;
  }
  get meta(): Readonly<Record<string, unknown>> {
    return this.#ctx.meta;
  }
  get requestId(): string | number {
    return this.#ctx.requestId;
  }
  get sessionId(): string | undefined {
    return this.#ctx.sessionId;
  }
  get toolName(): string {
    return this.#ctx.toolName;
  }
  get log(): ToolLogger {
    return this.#ctx.log;
  }
  get auth(): AuthInfo | undefined {
    return this.#ctx.auth;
  }
  // Read each time: a call that detaches becomes a task midway.
  get taskId(): string | undefined {
    return this.#ctx.taskId;
  }
  progress(done: number, total?: number, message?: string): Promise<void> {
    return this.#ctx.progress(done, total, message);
  }
  sample(params: SamplingParams): Promise<SamplingResult> {
    return this.#ctx.sample(params);
  }
  elicit(
    params: ElicitationParams | UrlElicitationParams,
  ): Promise<ElicitationResult> {
    return this.#ctx.elicit(params);
  }
  urlElicitationRequired(
    elicitations: UrlElicitationParams | UrlElicitationParams[],
  ): Error {
    return this.#ctx.urlElicitationRequired(elicitations);
  }
  roots(): Promise<Root[]> {
    return this.#ctx.roots();
  }
  detach(): Promise<void> {
    return this.#ctx.detach();
  }
}
