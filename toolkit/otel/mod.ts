/**
 * OpenTelemetry for a server: `server.use(otel())` gives each request a
 * span and a duration measurement, named as the OpenTelemetry semantic
 * conventions for MCP say (`tools/call write_file`, `mcp.method.name`,
 * `gen_ai.tool.name`, `mcp.session.id`, `error.type`, …), carrying on the
 * client's trace from `_meta.traceparent`. It writes through
 * `@opentelemetry/api` only, and Deno exports it: run the server with
 * `OTEL_DENO=true` (OTLP to `OTEL_EXPORTER_OTLP_ENDPOINT`, by default
 * `http://localhost:4318`). A server that does not import this entry never
 * loads the API.
 *
 * @example Trace a server
 * ```ts
 * import { createServer, text } from "@forge/toolkit";
 * import { otel } from "@forge/toolkit/otel";
 *
 * const server = createServer({ name: "notes", version: "1" });
 * server.use(otel({ networkTransport: "pipe" }));
 * server.tool({ name: "ping", description: "Answers pong", handler: () => text("pong") });
 * if (import.meta.main) await server.serve();
 * ```
 *
 * @module
 */

export { otel, type OtelLayers, type OtelOptions } from "./otel.ts";
