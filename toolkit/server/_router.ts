// The method table of a server: one table, built once, shared by every
// session; each handler gets the session's Connection as its context. A
// method of a capability the session was not offered (resources on a server
// with none) is not found, as if it were not in the table.

import { isRecord, jsonType } from "../_util/json_type.ts";
import { ProtocolError, RPC_ERROR } from "../jsonrpc/errors.ts";
import type { CallPipeline } from "./_call.ts";
import type { Connection } from "./_connection.ts";
import { LOG_LEVELS } from "./_log_levels.ts";
import type { ElicitationResult, LogLevel } from "./context.ts";
import type { PromptRegistry } from "./prompts.ts";
import type { Placed, RequestContext, ResourceRegistry } from "./resources.ts";
import { cursorParam, paginate } from "./_paging.ts";
import type { RequestExtra, RequestHandler } from "./_session_types.ts";
import type { ToolRegistry } from "./_registry.ts";
import type { SkillCatalog } from "./_skill_catalog.ts";
import { skillRoutes } from "./_skills_methods.ts";
import {
  checkInputResponses,
  declaresTasks,
  ownerOf,
  TASKS_EXTENSION,
  tasksNotDeclared,
} from "./_task_checks.ts";
import { STATELESS_PROTOCOL_VERSIONS } from "./_era.ts";
import type { TaskManager } from "./_tasks.ts";
import type { Mounts } from "./_mounts.ts";

/** MCP caps one completion answer at this many values. */
const MAX_COMPLETIONS = 100;

/** What the router dispatches to. */
export interface RouterParts {
  tools: ToolRegistry;
  calls: CallPipeline;
  resources: ResourceRegistry;
  prompts: PromptRegistry;
  /** The server's tasks (tasks/get, tasks/update, tasks/cancel). */
  tasks: TaskManager;
  /** Items per page of every list; `undefined`: one page. */
  pageSize?: number;
  /** The skills served (skills/list, skills/get, resources/directory/read). */
  skills?: SkillCatalog;
  /** The registries with the servers mounted in this one: what the lists show and reads route by. */
  mounts: Mounts;
}

type TaskRoute = (
  params: Record<string, unknown>,
  owner: string | undefined,
) => Promise<void>;

interface CompleteParams {
  ref: { type: string; name?: string; uri?: string };
  argument: { name: string; value: string };
  context?: { arguments?: Record<string, string> };
}

/** Builds the method table of a server. */
export function buildRouter(
  parts: RouterParts,
): ReadonlyMap<string, RequestHandler<Connection>> {
  const { calls, mounts } = parts;
  const routes = new Map<string, RequestHandler<Connection>>();
  const route = (
    method: string,
    handler: RequestHandler<Connection>,
    capability?: string,
  ) => {
    routes.set(
      method,
      capability === undefined ? handler : (params, extra, connection) => {
        if (connection.capabilities[capability] === undefined) {
          throw new ProtocolError(
            RPC_ERROR.METHOD_NOT_FOUND,
            `Method not found: ${method}`,
          );
        }
        return handler(params, extra, connection);
      },
    );
  };
  const context = (extra: RequestExtra): RequestContext => ({
    signal: extra.signal,
    sessionId: extra.sessionId,
    elicit: async (params) =>
      await extra.sendRequest({
        method: "elicitation/create",
        params: params as Record<string, unknown>,
      }) as unknown as ElicitationResult,
  });

  route("logging/setLevel", (params, _extra, connection) => {
    const level = stringParam(params, "level", "logging/setLevel") as LogLevel;
    if (!LOG_LEVELS.includes(level)) {
      throw new ProtocolError(
        RPC_ERROR.INVALID_PARAMS,
        `Invalid log level: expected one of ${LOG_LEVELS.join(", ")}, got ${
          JSON.stringify(level)
        }`,
      );
    }
    connection.logLevel = level;
    return {};
  });
  const { pageSize } = parts;
  const paged = async <T>(
    method: string,
    key: string,
    params: Record<string, unknown>,
    placed: () => Placed<T>[],
  ) => {
    const cursor = cursorParam(params, method);
    const page = await paginate(method, placed(), cursor, pageSize);
    return {
      [key]: page.items,
      ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }),
    };
  };
  route("tools/list", (params, _extra, connection) => {
    // Only a 2026-07-28 request sees `execution.taskSupport`.
    const tasks = connection.session.statelessRequest;
    // The usual case answers the cached list in the same turn.
    return pageSize === undefined && params.cursor === undefined
      ? { tools: mounts.listTools(tasks) }
      : paged("tools/list", "tools", params, () => mounts.toolPlaces(tasks));
  });
  route(
    "tools/call",
    (params, extra, connection) =>
      calls.run(
        connection,
        stringParam(params, "name", "tools/call"),
        params,
        extra,
      ),
  );
  route(
    "resources/list",
    (params, extra) =>
      paged(
        "resources/list",
        "resources",
        params,
        () => mounts.resourcePlaces(context(extra)),
      ),
    "resources",
  );
  route(
    "resources/templates/list",
    (params) =>
      paged(
        "resources/templates/list",
        "resourceTemplates",
        params,
        () => mounts.templatePlaces(),
      ),
    "resources",
  );
  route("resources/read", async (params, extra) => ({
    contents: await mounts.readResource(
      stringParam(params, "uri", "resources/read"),
      context(extra),
    ),
  }), "resources");
  route("resources/subscribe", (params, _extra, connection) => {
    connection.subscriptions.add(
      stringParam(params, "uri", "resources/subscribe"),
    );
    return {};
  }, "resources");
  route("resources/unsubscribe", (params, _extra, connection) => {
    connection.subscriptions.delete(
      stringParam(params, "uri", "resources/unsubscribe"),
    );
    return {};
  }, "resources");
  route(
    "prompts/list",
    (params) =>
      paged("prompts/list", "prompts", params, () => mounts.promptPlaces()),
    "prompts",
  );
  route("prompts/get", async (params, extra) => {
    const args = params.arguments;
    if (args !== undefined && !isRecord(args)) {
      throw new ProtocolError(
        RPC_ERROR.INVALID_PARAMS,
        `Invalid params for prompts/get: arguments: expected object, got ${
          jsonType(args)
        }`,
      );
    }
    return await mounts.getPrompt(
      stringParam(params, "name", "prompts/get"),
      args as Record<string, unknown> | undefined,
      context(extra),
    );
  }, "prompts");
  // tasks/list and tasks/result (2025-11-25's experimental tasks) are gone
  // from the extension: not in the table, so -32601. The extension is a
  // 2026-07-28 one: a session-era client was not offered it, so its methods
  // are not found there either.
  const taskRoute = (method: string, handler: RequestHandler<Connection>) =>
    route(method, (params, extra, connection) => {
      if (!connection.session.statelessRequest) {
        throw new ProtocolError(
          RPC_ERROR.METHOD_NOT_FOUND,
          `Method not found: ${method} (the ${TASKS_EXTENSION} extension is served to ${
            STATELESS_PROTOCOL_VERSIONS[0]
          } requests only)`,
        );
      }
      if (!declaresTasks(connection.session.clientCapabilities)) {
        throw tasksNotDeclared(method);
      }
      return handler(params, extra, connection);
    });
  const task = (method: string, run: TaskRoute) =>
    taskRoute(method, async (params, extra) => {
      await run(params, ownerOf(extra.authInfo));
      return { resultType: "complete" };
    });
  taskRoute(
    "tasks/get",
    (params, extra) =>
      parts.tasks.get(params.taskId as string, ownerOf(extra.authInfo)),
  );
  task("tasks/update", (params, owner) =>
    parts.tasks.update(
      params.taskId as string,
      checkInputResponses(params.inputResponses),
      owner,
    ));
  task(
    "tasks/cancel",
    (params, owner) => parts.tasks.cancel(params.taskId as string, owner),
  );
  route(
    "completion/complete",
    (params) => complete(parts, checkCompleteParams(params)),
    "completions",
  );
  if (parts.skills !== undefined) {
    for (const [method, handler] of skillRoutes(parts.skills, pageSize)) {
      route(method, handler);
    }
  }
  return routes;
}

async function complete(
  { mounts }: RouterParts,
  params: CompleteParams,
): Promise<{ completion: Record<string, unknown> }> {
  const { ref, argument } = params;
  const completer = ref.type === "ref/prompt"
    ? mounts.promptCompleter(ref.name ?? "", argument.name)
    : ref.type === "ref/resource"
    ? mounts.templateCompleter(ref.uri ?? "", argument.name)
    : null;
  if (completer === null) {
    throw new ProtocolError(
      RPC_ERROR.INVALID_PARAMS,
      `Cannot complete: unknown ${
        ref.type === "ref/prompt" ? "prompt" : "reference"
      }: ${JSON.stringify(ref.name ?? ref.uri)}`,
    );
  }
  const values = completer === undefined
    ? []
    : await completer(argument.value, {
      arguments: params.context?.arguments ?? {},
    });
  return {
    completion: {
      values: values.slice(0, MAX_COMPLETIONS),
      total: values.length,
      hasMore: values.length > MAX_COMPLETIONS,
    },
  };
}

function stringParam(
  params: Record<string, unknown>,
  key: string,
  method: string,
): string {
  const value = params[key];
  if (typeof value !== "string") {
    throw new ProtocolError(
      RPC_ERROR.INVALID_PARAMS,
      `Invalid params for ${method}: ${key}: expected string, got ${
        value === undefined ? "nothing" : jsonType(value)
      }`,
    );
  }
  return value;
}

function checkCompleteParams(params: Record<string, unknown>): CompleteParams {
  const ref = params.ref as Record<string, unknown> | undefined;
  const argument = params.argument as Record<string, unknown> | undefined;
  if (
    typeof ref?.type !== "string" || typeof argument !== "object" ||
    argument === null
  ) {
    throw new ProtocolError(
      RPC_ERROR.INVALID_PARAMS,
      "Invalid params for completion/complete: expected { ref: { type, name | uri }, argument: { name, value } }",
    );
  }
  stringParam(argument, "name", "completion/complete argument");
  stringParam(argument, "value", "completion/complete argument");
  return params as unknown as CompleteParams;
}
