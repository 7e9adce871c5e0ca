/**
 * The server: {@linkcode createServer} makes a {@linkcode ToolServer} that
 * registers tools, resources and prompts, runs each tool call through its
 * call layers (`server.use()`), and serves one or many sessions over any
 * transport with a real lifecycle. This entry has every type of that API;
 * the package's main entry has the ones most servers use.
 *
 * Runs on Deno, Node (20 and later), Bun and Cloudflare Workers (workerd):
 * nothing reaches for `Deno` at import, and a server is served anywhere
 * through `connect()` or the HTTP handler. `server.serve()` (stdio,
 * signals, exit) needs Deno.
 *
 * @example A tool, a resource and a logging layer
 * ```ts
 * import { createServer, text } from "@forge/toolkit";
 *
 * const server = createServer({ name: "notes", version: "0.1.0" });
 * server.use(async (call, next) => {
 *   const started = performance.now();
 *   const result = await next();
 *   console.error(`${call.name}: ${(performance.now() - started).toFixed(1)} ms`);
 *   return result;
 * });
 * server.tool({ name: "count", description: "Counts notes", handler: () => text("3") });
 * server.resource({
 *   uri: "notes://index",
 *   name: "index",
 *   read: (uri) => ({ uri: uri.href, text: "todo, ideas" }),
 * });
 * if (import.meta.main) await server.serve();
 * ```
 *
 * @module
 */

export {
  createServer,
  type RootsChange,
  type ServeOptions,
  type ServerInfo,
  type ServerOptions,
  ToolServer,
} from "./server.ts";
export type {
  ListedTool,
  ToolAnnotations,
  ToolDefinition,
  ToolHandler,
} from "./tool.ts";
export type {
  ElicitationParams,
  ElicitationResult,
  LogLevel,
  Root,
  SamplingMessage,
  SamplingParams,
  SamplingResult,
  ToolContext,
  ToolLogger,
  UrlElicitationParams,
} from "./context.ts";
export type { CallLayer, CallNext, RequestLayer, ToolCall } from "./layer.ts";
export type { Registration } from "./registration.ts";
export type { Icon } from "./icon.ts";
export type { StoredTask, TaskOptions, TaskStore } from "./tasks.ts";
export type { NotificationBus } from "./notification_bus.ts";
export type {
  Completer,
  ListedResource,
  ReadResult,
  RequestContext,
  ResourceDefinition,
  ResourceTemplateDefinition,
} from "./resources.ts";
export type {
  PromptArgument,
  PromptDefinition,
  PromptMessage,
  PromptResult,
} from "./prompts.ts";
