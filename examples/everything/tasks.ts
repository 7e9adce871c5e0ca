/**
 * The everything server's task tools, under the names the conformance
 * suite's `tasks-*` scenarios call (SEP-2663): a plain tool, a long
 * computation that runs as a task and stops when cancelled, a tool error
 * and a crash inside a task, tasks that wait for the user's input, and one
 * that gathers input in the request before it becomes a task.
 *
 * @module
 */

import { error, text, type ToolServer } from "@forge/toolkit";
import { z } from "zod";

/** Waits `ms`, or rejects with the signal's reason once it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    }, { once: true });
  });
}

const CONFIRM_SCHEMA = {
  type: "object",
  properties: { confirm: { type: "boolean" } },
  required: ["confirm"],
};

const NAME_SCHEMA = {
  type: "object",
  properties: { name: { type: "string" } },
  required: ["name"],
};

/** Registers the task scenarios' tools. */
export function registerTaskTools(server: ToolServer): void {
  server.tool({
    name: "greet",
    description: "Greets someone, at once (never a task)",
    input: z.object({ name: z.string() }),
    handler: ({ name }) => text(`Hello, ${name}!`),
  });
  server.tool({
    name: "slow_compute",
    description: "Sleeps for `seconds`, then answers; runs as a task",
    input: z.object({
      seconds: z.number().min(0).max(600),
      label: z.string().optional(),
    }),
    task: true,
    handler: async ({ seconds, label }, ctx) => {
      await sleep(seconds * 1000, ctx.signal);
      return text(`${label ?? "computed"}: done after ${seconds} s`);
    },
  });
  server.tool({
    name: "failing_job",
    description: "Fails with a tool error after a second; only as a task",
    task: "required",
    handler: async (_args, ctx) => {
      await sleep(1000, ctx.signal);
      return error("The job failed: the input batch is empty");
    },
  });
  server.tool({
    name: "protocol_error_job",
    description: "Crashes (a server error, not a tool error); runs as a task",
    task: true,
    handler: async (_args, ctx) => {
      await sleep(100, ctx.signal);
      throw new Error("the worker crashed");
    },
  });
  server.tool({
    name: "confirm_delete",
    description: "Asks the user to confirm, then deletes (pretends to)",
    input: z.object({ filename: z.string() }),
    task: true,
    handler: async ({ filename }, ctx) => {
      const answer = await ctx.elicit({
        message: `Delete ${filename}?`,
        requestedSchema: CONFIRM_SCHEMA,
      });
      const confirmed = answer.action === "accept" &&
        answer.content?.confirm === true;
      return text(confirmed ? `Deleted ${filename}` : `Kept ${filename}`);
    },
  });
  server.tool({
    name: "multi_input",
    description: "Asks two questions at once, then answers with both",
    task: true,
    handler: async (_args, ctx) => {
      const [first, second] = await Promise.all([
        ctx.elicit({ message: "First name?", requestedSchema: NAME_SCHEMA }),
        ctx.elicit({ message: "Second name?", requestedSchema: NAME_SCHEMA }),
      ]);
      return text(
        `Got ${first.content?.name ?? "nothing"} and ${
          second.content?.name ?? "nothing"
        }`,
      );
    },
  });
  server.tool({
    name: "test_tool_with_task",
    description: "Asks for a name within the request, then works on as a task",
    task: { support: "required", detach: "manual" },
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit({
        message: "Whom is the report for?",
        requestedSchema: NAME_SCHEMA,
        _meta: { "forge.input_key": "user_name" },
      });
      await ctx.detach();
      await sleep(200, ctx.signal);
      return text(`Report ready for ${answer.content?.name ?? "nobody"}`);
    },
  });
}
