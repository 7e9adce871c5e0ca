// A server with the OpenTelemetry layer, for otlp_test.ts: run it with
// OTEL_DENO=true and Deno exports its spans over OTLP.

import { z } from "zod";
import { createServer } from "../../server/server.ts";
import { error, text } from "../../result/result.ts";
import { otel } from "../mod.ts";

const server = createServer({ name: "traced", version: "1" });
server.use(otel({ networkTransport: "pipe" }));
server.tool({
  name: "write_file",
  description: "Pretends to write a file",
  input: z.object({ path: z.string(), content: z.string() }),
  handler: ({ path }) => text(`wrote ${path}`),
});
server.tool({
  name: "fail",
  description: "Always a domain error",
  input: z.object({ path: z.string() }),
  handler: ({ path }) => error(`cannot write ${path}`),
});
await server.serve();
