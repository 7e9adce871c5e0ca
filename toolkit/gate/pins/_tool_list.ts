// Internal: what the gate knows of the server's tools: which answer
// permission-pattern probes. It learns them from every tools/list answer
// the host gets, forgets them when the server says the list changed, and
// fetches the list itself for a call of a tool it has not seen.

import type { JsonRpcMessage } from "../../jsonrpc/mod.ts";
import { META_SUPPORTS_PERMISSION_PATTERNS } from "../../patterns/probe_meta.ts";
import { isRecord } from "../../_util/json_type.ts";

/** What the gate needs to know of one tool. */
export interface ToolInfo {
  /** Whether it lists `forge.supports_permission_patterns`. */
  probed: boolean;
  /** Its `annotations` (`readOnlyHint`, `destructiveHint`), as listed. */
  annotations?: Record<string, unknown>;
}

/** Sends a request to the server and resolves with its answer. */
export type RequestServer = (
  method: string,
  params: Record<string, unknown>,
) => Promise<JsonRpcMessage>;

/** What reviews the list (the pins). */
export interface ListReviewer {
  /** Reviews one page: resolves with the page the host may see. */
  review(result: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** The gate's own walk of the list ended before its last page. */
  unfinished(why: string): Promise<void>;
}

/**
 * A walk of the list stops after this many pages, or at a cursor it has
 * had before: a list that goes on is a server that never finishes it.
 */
export const MAX_LIST_PAGES = 100;

/** The server's tools, as far as the gate has seen them. */
export class ToolList {
  #tools = new Map<string, ToolInfo>();
  #fetching: Promise<void> | undefined;
  #request: RequestServer;
  #reviewer: ListReviewer | undefined;

  constructor(request: RequestServer, reviewer?: ListReviewer) {
    this.#request = request;
    this.#reviewer = reviewer;
  }

  /** The names of the tools seen. */
  names(): Iterable<string> {
    return this.#tools.keys();
  }

  /** The tool `name`, or `undefined` when no list seen holds it. */
  get(name: string): ToolInfo | undefined {
    return this.#tools.get(name);
  }

  /**
   * Learns the tools of one page of a `tools/list` result; with a reviewer,
   * resolves with the page the host may see once it has reviewed it.
   */
  learn(
    result: Record<string, unknown>,
  ): Promise<Record<string, unknown>> | undefined {
    if (this.#reviewer === undefined) {
      this.#learn(result);
      return undefined;
    }
    return this.#reviewer.review(result).then((shown) => {
      // Withheld tools are known too: their calls are refused, not unlisted.
      this.#learn(result);
      return shown;
    });
  }

  #learn(result: Record<string, unknown>): void {
    if (!Array.isArray(result.tools)) return;
    for (const tool of result.tools) {
      if (!isRecord(tool) || typeof tool.name !== "string") continue;
      const meta = isRecord(tool._meta) ? tool._meta : {};
      this.#tools.set(tool.name, {
        probed: meta[META_SUPPORTS_PERMISSION_PATTERNS] === true,
        ...(isRecord(tool.annotations)
          ? { annotations: tool.annotations }
          : {}),
      });
    }
  }

  /** Forgets every tool: the server's list changed. */
  clear(): void {
    this.#tools.clear();
  }

  /**
   * Asks the server for its whole list (every page), with `era`'s `_meta`
   * on each request; calls that need it meanwhile share one walk. A walk
   * that ends before the last page (after {@linkcode MAX_LIST_PAGES}, or
   * at a repeated cursor) is told to the reviewer.
   */
  fetch(era: Record<string, unknown> | undefined): Promise<void> {
    this.#fetching ??= (async () => {
      let cursor: unknown;
      const cursors = new Set<string>();
      // A bounded walk: a server whose list goes on cannot hold a call forever.
      for (let page = 0; page < MAX_LIST_PAGES; page++) {
        const answer = await this.#request("tools/list", {
          ...(typeof cursor === "string" ? { cursor } : {}),
          ...(era === undefined ? {} : { _meta: era }),
        });
        if (!("result" in answer)) return;
        await this.learn(answer.result);
        cursor = answer.result.nextCursor;
        if (typeof cursor !== "string") return;
        if (cursors.has(cursor)) {
          await this.#reviewer?.unfinished("it gave a cursor twice");
          return;
        }
        cursors.add(cursor);
      }
      await this.#reviewer?.unfinished(
        `it did not end within ${MAX_LIST_PAGES} pages`,
      );
    })().finally(() => this.#fetching = undefined);
    return this.#fetching;
  }
}
