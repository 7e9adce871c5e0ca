/**
 * The everything server's tools for the 2026-07-28 scenarios: the probes of
 * the stateless protocol (a tool that needs an undeclared capability, one
 * that logs, ones that change the tool and prompt lists) and the
 * multi-round tools, which ask the client for input with `ctx.elicit`,
 * `ctx.sample` and `ctx.roots` exactly as a 2025 tool does: over a
 * 2026-07-28 request the toolkit answers input-required instead and runs
 * the handler again when the client retries with the answers.
 *
 * @module
 */

import {
  type CallToolResult,
  text,
  type ToolContext,
  type ToolServer,
} from "@forge/toolkit";

/** Names the input request an elicitation or sampling call becomes in 2026-07-28. */
function key(name: string): { _meta: Record<string, string> } {
  return { _meta: { "forge.input_key": name } };
}

const NAME_SCHEMA = {
  type: "object",
  properties: { name: { type: "string" } },
  required: ["name"],
};

async function askName(ctx: ToolContext, inputKey: string, message: string) {
  const answer = await ctx.elicit({
    message,
    requestedSchema: NAME_SCHEMA,
    ...key(inputKey),
  });
  return String(answer.content?.name ?? "nobody");
}

/** The client capabilities a 2026-07-28 request declared in its `_meta`. */
function declared(ctx: ToolContext): Record<string, unknown> {
  const value = ctx.meta["io.modelcontextprotocol/clientCapabilities"];
  return typeof value === "object" && value !== null
    ? value as Record<string, unknown>
    : {};
}

/** Registers the probes of SEP-2575 (stateless protocol). */
function registerProbes(server: ToolServer): void {
  server.tool({
    name: "test_missing_capability",
    description:
      "Asks the client's model a question; a client that did not declare sampling gets -32021",
    handler: async (_args, ctx) => {
      const answer = await ctx.sample({
        messages: [{ role: "user", content: { type: "text", text: "Hi?" } }],
        maxTokens: 10,
        ...key("question"),
      });
      return text(`The model said: ${JSON.stringify(answer.content)}`);
    },
  });
  server.tool({
    name: "test_streaming_elicitation",
    description:
      "Asks the user a question: an input-required result in 2026-07-28, never a request on the stream",
    handler: async (_args, ctx) =>
      text(`Hello, ${await askName(ctx, "user_name", "What is your name?")}!`),
  });
  server.tool({
    name: "test_logging_tool",
    description:
      "Logs at info; a 2026-07-28 client hears it only if its _meta asks for a log level",
    handler: (_args, ctx) => {
      ctx.log.info("test_logging_tool ran");
      return text("Logged one info message");
    },
  });
  server.tool({
    name: "test_trigger_tool_change",
    description: "Adds and removes a tool, so the tool list changes",
    handler: () => {
      server.tool({
        name: "test_transient_tool",
        description: "Exists for a moment",
        handler: () => text("transient"),
      }).remove();
      return text("The tool list changed");
    },
  });
  server.tool({
    name: "test_trigger_prompt_change",
    description: "Adds and removes a prompt, so the prompt list changes",
    handler: () => {
      server.prompt({
        name: "test_transient_prompt",
        description: "Exists for a moment",
        handler: () => ({
          messages: [{
            role: "user",
            content: { type: "text", text: "transient" },
          }],
        }),
      }).remove();
      return text("The prompt list changed");
    },
  });
}

/** Registers a tool whose argument travels in a header too (SEP-2243). */
function registerHeaderTool(server: ToolServer): void {
  server.tool({
    name: "test_mirrored_header",
    description:
      "Looks a query up in a region; the region is mirrored in the Mcp-Param-Region header, which must match",
    input: {
      type: "object",
      properties: {
        region: { type: "string", "x-mcp-header": "Region" },
        query: { type: "string" },
      },
      required: ["region"],
    },
    handler: (args) => {
      const { region, query } = args as { region: string; query?: string };
      return text(`Looked up ${JSON.stringify(query ?? "")} in ${region}`);
    },
  });
}

/** Registers the multi-round tools of SEP-2322. */
function registerInputTools(server: ToolServer): void {
  server.tool({
    name: "test_input_required_result_elicitation",
    description: "Asks the user's name (input request user_name), then greets",
    handler: async (_args, ctx) =>
      text(`Hello, ${await askName(ctx, "user_name", "What is your name?")}!`),
  });
  server.tool({
    name: "test_input_required_result_sampling",
    description: "Asks the client's model for the capital of France",
    handler: async (_args, ctx) => {
      const answer = await ctx.sample({
        messages: [{
          role: "user",
          content: { type: "text", text: "What is the capital of France?" },
        }],
        maxTokens: 100,
        ...key("capital_question"),
      });
      return text(`The model said: ${String(answer.content.text ?? "")}`);
    },
  });
  server.tool({
    name: "test_input_required_result_list_roots",
    description: "Lists the client's roots",
    handler: async (_args, ctx) => {
      const roots = await ctx.roots();
      return text(`Roots: ${roots.map((root) => root.uri).join(", ")}`);
    },
  });
  server.tool({
    name: "test_input_required_result_request_state",
    description: "Asks for a confirmation; the signed requestState carries it",
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit({
        message: "Please confirm",
        requestedSchema: {
          type: "object",
          properties: { ok: { type: "boolean" } },
          required: ["ok"],
        },
        ...key("confirm"),
      });
      return text(`state-ok: confirmed=${answer.content?.ok === true}`);
    },
  });
  server.tool({
    name: "test_input_required_result_multiple_inputs",
    description: "Asks for a name, a greeting and the roots at once",
    handler: async (_args, ctx) => {
      const [name, greeting, roots] = await Promise.all([
        askName(ctx, "user_name", "What is your name?"),
        ctx.sample({
          messages: [{
            role: "user",
            content: { type: "text", text: "Generate a greeting" },
          }],
          maxTokens: 50,
          ...key("greeting"),
        }),
        ctx.roots(),
      ]);
      return text(
        `${
          String(greeting.content.text ?? "Hi")
        }, ${name} (${roots.length} roots)`,
      );
    },
  });
  server.tool({
    name: "test_input_required_result_multi_round",
    description: "Asks for a name, then a favourite colour: two rounds",
    handler: async (_args, ctx) => {
      const name = await askName(ctx, "step1", "Step 1: What is your name?");
      const colour = await ctx.elicit({
        message: "Step 2: What is your favorite color?",
        requestedSchema: {
          type: "object",
          properties: { color: { type: "string" } },
          required: ["color"],
        },
        ...key("step2"),
      });
      return text(`${name} likes ${String(colour.content?.color)}`);
    },
  });
  server.tool({
    name: "test_input_required_result_tampered_state",
    description:
      "Asks the user's name; a retry with an altered requestState is refused",
    handler: async (_args, ctx) =>
      text(`Hello, ${await askName(ctx, "user_name", "What is your name?")}!`),
  });
  server.tool({
    name: "test_input_required_result_capabilities",
    description:
      "Asks only through the capabilities the request declared: sampling, elicitation or both",
    handler: async (_args, ctx): Promise<CallToolResult> => {
      const capabilities = declared(ctx);
      const asks: Promise<unknown>[] = [];
      if (capabilities.sampling !== undefined) {
        asks.push(ctx.sample({
          messages: [{ role: "user", content: { type: "text", text: "Hi?" } }],
          maxTokens: 10,
        }));
      }
      if (capabilities.elicitation !== undefined) {
        asks.push(askName(ctx, "user_name", "What is your name?"));
      }
      await Promise.all(asks);
      return text(`Asked through ${asks.length} capabilities`);
    },
  });
}

/** Registers the prompt of SEP-2322's non-tool scenario. */
function registerInputPrompt(server: ToolServer): void {
  server.prompt({
    name: "test_input_required_result_prompt",
    description: "Asks the user what context the prompt should use",
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit({
        message: "What context should the prompt use?",
        requestedSchema: {
          type: "object",
          properties: { context: { type: "string" } },
          required: ["context"],
        },
        ...key("user_context"),
      });
      return {
        messages: [{
          role: "user",
          content: {
            type: "text",
            text: `Use this context: ${String(answer.content?.context)}`,
          },
        }],
      };
    },
  });
}

/**
 * Registers the tools and the prompt of the 2026-07-28 scenarios.
 *
 * @example
 * ```ts ignore
 * registerRevision2026Tools(server);
 * ```
 */
export function registerRevision2026Tools(server: ToolServer): void {
  registerProbes(server);
  registerHeaderTool(server);
  registerInputTools(server);
  registerInputPrompt(server);
}
