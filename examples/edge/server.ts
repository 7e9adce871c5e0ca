/**
 * The edge server: the everything server's tools, resources and prompts
 * (`../everything/server.ts`, not a copy) behind one stateless
 * `Request → Response` function, as the module every edge runtime loads:
 * Cloudflare Workers and workerd, Deno Deploy, Bun and Node (through
 * `_node.ts`'s adapter) call its default export's `fetch`.
 *
 * Stateless, because an edge runtime promises no memory shared between
 * requests: each request is served on its own, and 2026-07-28 multi-round
 * requests carry their state in the request (signed with
 * `MCP_REQUEST_STATE_KEY` when set, so that any instance can resume them).
 *
 * Its variables are workerd's bindings (`wrangler secret put MCP_TOKEN`),
 * or the process environment (Deno, Deno Deploy, Node, Bun):
 *
 * - `MCP_TOKEN`: when set, requests need `Authorization: Bearer <token>`.
 * - `MCP_ALLOWED_HOSTS`: comma-separated host names the server answers to
 *   besides loopback (the deployment's, `mcp.example.workers.dev`).
 * - `MCP_REQUEST_STATE_KEY`: Base64 of at least 32 random bytes.
 *
 * @module
 */

import { createHttpHandler, LOOPBACK_HOSTS } from "@forge/toolkit/http";
import { createEverythingServer } from "../everything/server.ts";

/** The bindings the edge server reads; every one is optional. */
export interface EdgeEnv {
  /** The bearer token requests must carry; none needed when unset. */
  readonly MCP_TOKEN?: string;
  /** Host names accepted besides loopback, comma-separated. */
  readonly MCP_ALLOWED_HOSTS?: string;
  /** Base64 of the key that signs 2026-07-28 request state. */
  readonly MCP_REQUEST_STATE_KEY?: string;
}

type Handler = (request: Request) => Promise<Response>;

// One handler per configuration, built on the first request that carries
// it: workerd hands `env` to `fetch`, not to the module.
let built: { key: string; handler: Handler } | undefined;

function handlerFor(env: EdgeEnv): Handler {
  const key = JSON.stringify([
    env.MCP_TOKEN,
    env.MCP_ALLOWED_HOSTS,
    env.MCP_REQUEST_STATE_KEY,
  ]);
  if (built?.key === key) return built.handler;
  const server = createEverythingServer({
    requestStateKey: env.MCP_REQUEST_STATE_KEY
      ? Uint8Array.from(atob(env.MCP_REQUEST_STATE_KEY), (c) => c.charCodeAt(0))
      : undefined,
  });
  const extraHosts = (env.MCP_ALLOWED_HOSTS ?? "").split(",")
    .map((host) => host.trim()).filter((host) => host !== "");
  const handler = createHttpHandler(server, {
    stateless: true,
    allowedHosts: [...LOOPBACK_HOSTS, ...extraHosts],
    auth: env.MCP_TOKEN ? { token: env.MCP_TOKEN } : undefined,
  });
  built = { key, handler };
  return handler;
}

const VARIABLES = [
  "MCP_TOKEN",
  "MCP_ALLOWED_HOSTS",
  "MCP_REQUEST_STATE_KEY",
] as const;

/** A variable of the process environment, where the runtime has one. */
function fromProcess(name: string): string | undefined {
  const runtime = globalThis as {
    Deno?: { env: { get(name: string): string | undefined } };
    process?: { env?: Record<string, string | undefined> };
  };
  return runtime.Deno?.env.get(name) ?? runtime.process?.env?.[name];
}

/**
 * What every runtime calls: `fetch(request, env)`. Each variable comes from
 * `env` (workerd's bindings) when it holds it, else from the process
 * environment: `deno serve` and Deno Deploy pass connection info there.
 */
export default {
  fetch(request: Request, env?: EdgeEnv): Promise<Response> {
    const read: Record<string, string | undefined> = {};
    for (const name of VARIABLES) {
      const bound = (env as Record<string, unknown> | undefined)?.[name];
      read[name] = typeof bound === "string" ? bound : fromProcess(name);
    }
    return handlerFor(read as EdgeEnv)(request);
  },
};
