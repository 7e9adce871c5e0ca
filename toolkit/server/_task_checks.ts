// Internal: the rules at the edges of the tasks extension (SEP-2663): its
// id and defaults, a tool definition's `task` option, whether a client
// declared the extension, whose a task is, and what `tasks/update` must
// carry. The records are `_task_records.ts`'; running tasks are `_tasks.ts`'.

import { isRecord, jsonType } from "../_util/json_type.ts";
import { ProtocolError, RPC_ERROR } from "../jsonrpc/errors.ts";
import type { AuthInfo } from "./context.ts";
import type { TaskOptions } from "./tasks.ts";
import { checkWholeNumber } from "../_util/whole_number.ts";

/** The extension's id, in capabilities and in errors. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** How long a task stays readable after its last change, unless the tool says. */
export const DEFAULT_TASK_TTL_MS = 3_600_000;

/** How often clients are told to poll, unless the tool says. */
export const DEFAULT_POLL_INTERVAL_MS = 1_000;

/** A tool's task settings, checked. */
export interface TaskMode {
  support: "optional" | "required";
  ttlMs: number | null;
  pollIntervalMs: number;
  detach: "start" | "manual";
}

/** Checks a definition's `task`; `undefined` for a tool that never runs as one. */
export function checkTaskOption(
  value: unknown,
  named: string,
): TaskMode | undefined {
  if (value === undefined || value === false || value === "forbidden") {
    return undefined;
  }
  const options: TaskOptions = value === true || value === "optional"
    ? {}
    : value === "required"
    ? { support: "required" }
    : value as TaskOptions;
  if (!isRecord(options as unknown)) {
    throw new TypeError(
      `${named}: task: expected true, "optional", "required" or { support, ttlMs, pollIntervalMs, detach }, got ${
        typeof value === "string" ? JSON.stringify(value) : jsonType(value)
      }`,
    );
  }
  const support = options.support ?? "optional";
  if (support !== "optional" && support !== "required") {
    throw new TypeError(
      `${named}: task.support: expected "optional" or "required", got ${
        JSON.stringify(support)
      }`,
    );
  }
  const detach = options.detach ?? "start";
  if (detach !== "start" && detach !== "manual") {
    throw new TypeError(
      `${named}: task.detach: expected "start" or "manual", got ${
        JSON.stringify(detach)
      }`,
    );
  }
  const ttlMs = options.ttlMs === undefined
    ? DEFAULT_TASK_TTL_MS
    : options.ttlMs;
  checkWholeNumber(named, "task.ttlMs", ttlMs, {
    min: 1,
    or: null,
    unit: "milliseconds",
  });
  const pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  checkWholeNumber(named, "task.pollIntervalMs", pollIntervalMs, {
    min: 1,
    unit: "milliseconds",
  });
  return { support, ttlMs, pollIntervalMs, detach };
}

/** Whether client capabilities declare the tasks extension. */
export function declaresTasks(
  capabilities: Record<string, unknown> | undefined,
): boolean {
  const extensions = capabilities?.extensions;
  return isRecord(extensions) && isRecord(extensions[TASKS_EXTENSION]);
}

/** -32021: the tasks extension is needed and was not declared. */
export function tasksNotDeclared(what: string): ProtocolError {
  return new ProtocolError(
    RPC_ERROR.MISSING_CLIENT_CAPABILITY,
    `Missing client capability: ${what} needs the ${TASKS_EXTENSION} extension, which the client did not declare in its capabilities' extensions`,
    {
      data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    },
  );
}

/** Whom a call belongs to, from its verified token. */
export function ownerOf(auth: AuthInfo | undefined): string | undefined {
  if (auth === undefined) return undefined;
  return auth.subject !== undefined
    ? `sub:${auth.subject}`
    : auth.clientId !== undefined
    ? `client:${auth.clientId}`
    : undefined;
}

/** Checks `tasks/update`'s `inputResponses`: an object of result objects, by key. */
export function checkInputResponses(
  value: unknown,
): Record<string, Record<string, unknown>> {
  if (!isRecord(value)) {
    throw new ProtocolError(
      RPC_ERROR.INVALID_PARAMS,
      `Invalid params for tasks/update: inputResponses: expected an object of answers by key, got ${
        value === undefined ? "nothing" : jsonType(value)
      }`,
    );
  }
  for (const [key, answer] of Object.entries(value)) {
    if (!isRecord(answer)) {
      throw new ProtocolError(
        RPC_ERROR.INVALID_PARAMS,
        `Invalid params for tasks/update: inputResponses.${key}: expected a result object, got ${
          jsonType(answer)
        }`,
      );
    }
  }
  return value as Record<string, Record<string, unknown>>;
}
