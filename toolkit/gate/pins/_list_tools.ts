// Internal: the server's whole tool list, fetched once by a session of the
// gate's own (for `pins accept -- COMMAND`): the server is started,
// initialized, listed page by page, and stopped.

import { PendingRequests } from "../../jsonrpc/_pending_requests.ts";
import { isRecord } from "../../_util/json_type.ts";
import type { ServerProcess } from "../upstream/_server_process.ts";
import { stopServer } from "../upstream/_shutdown.ts";
import { MAX_LIST_PAGES } from "./_tool_list.ts";
const PROTOCOL_VERSION = "2025-11-25";

/**
 * Lists every tool of the server `child`, then stops it.
 *
 * @throws {Error} When the list does not end: after
 * {@linkcode MAX_LIST_PAGES} pages, or at a cursor given twice (part of a
 * list is not the server's list).
 */
export async function listTools(
  child: ServerProcess,
  log: (line: string) => void,
): Promise<Record<string, unknown>[]> {
  const { transport } = child;
  const waiting = new PendingRequests<number>();
  let nextId = 1;
  let failed: (error: Error) => void = () => {};
  const gone = new Promise<never>((_, reject) => failed = reject);
  child.status.then((status) =>
    failed(new Error(`The server exited with status ${status.code}`))
  );
  transport.onmessage = (message) => {
    if ("method" in message) return;
    if (typeof message.id === "number") waiting.settle(message.id, message);
  };
  transport.start();
  const request = async (method: string, params: Record<string, unknown>) => {
    const id = nextId++;
    const answer = waiting.expect(id);
    await transport.send({ jsonrpc: "2.0", id, method, params });
    const message = await Promise.race([answer, gone]);
    if ("error" in message) {
      throw new Error(`${method}: ${message.error.message}`);
    }
    return "result" in message ? message.result : {};
  };
  try {
    await request("initialize", {
      protocolVersion: PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: "forge-gate-pins", version: "1" },
    });
    await transport.send({
      jsonrpc: "2.0",
      method: "notifications/initialized",
    });
    const tools: Record<string, unknown>[] = [];
    const cursors = new Set<string>();
    let cursor: unknown;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const result = await request(
        "tools/list",
        typeof cursor === "string" ? { cursor } : {},
      );
      if (Array.isArray(result.tools)) {
        tools.push(...result.tools.filter(isRecord));
      }
      cursor = result.nextCursor;
      if (typeof cursor !== "string") return tools;
      if (cursors.has(cursor)) {
        throw new Error(
          "The server's tool list does not end: it gave a cursor twice",
        );
      }
      cursors.add(cursor);
    }
    throw new Error(
      `The server's tool list does not end: more than ${MAX_LIST_PAGES} pages`,
    );
  } finally {
    await transport.close().catch(() => {});
    await child.closeStdin();
    await stopServer(child, { graceMs: 1000, log });
    child.dispose();
  }
}
