/**
 * The toolkit's stdio transport: newline-delimited JSON-RPC over stdin and
 * stdout, or over any pair of web streams.
 *
 * Unlike the SDK's stdio transport it frames by scanning only the bytes that
 * arrived (a 1 MiB line costs one pass, not one per chunk), answers a
 * malformed line with -32700 and a malformed message with -32600 and keeps
 * serving, answers an oversized message with an error instead of exiting,
 * batches writes that happen in the same tick, and reports stdin EOF.
 *
 * @example Serve a server over a pair of web streams
 * ```ts
 * import { createServer, text } from "@forge/toolkit";
 * import { StdioTransport } from "@forge/toolkit/stdio";
 *
 * const server = createServer({ name: "s", version: "1" });
 * server.tool({ name: "ping", description: "Answers pong", handler: () => text("pong") });
 * const request = '{"jsonrpc":"2.0","id":1,"method":"ping"}\n';
 * const output = new TransformStream<Uint8Array, Uint8Array>();
 * const transport = new StdioTransport({
 *   readable: new Blob([request]).stream(),
 *   writable: output.writable,
 * });
 * await server.connect(transport);
 * ```
 *
 * @module
 */

export {
  DEFAULT_MAX_MESSAGE_BYTES,
  StdioTransport,
  type StdioTransportOptions,
} from "./stdio.ts";
