/**
 * The everything server: one toolkit server that implements every feature
 * the MCP conformance suite's server scenarios exercise, under the names the
 * scenarios call. `main.ts` serves it over stdio or Streamable HTTP.
 *
 * @module
 */

import {
  type CallToolResult,
  createServer,
  error,
  image,
  resource,
  type ServerOptions,
  text,
  type ToolContext,
  type ToolServer,
} from "@forge/toolkit";
import { otel } from "@forge/toolkit/otel";
import { z } from "zod";
import { registerRevision2026Tools } from "./revision_2026.ts";
import { registerSkills } from "./skills.ts";
import { registerTaskTools, sleep } from "./tasks.ts";

/** A 1×1 teal PNG, generated for this example. */
export const PIXEL_PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR42mOQn9cJAAImAUet7oGCAAAAAElFTkSuQmCC";

/** The URI whose subscribers hear about `update_watched_resource`. */
export const WATCHED_URI = "test://watched-resource";

const STEP_MS = 50;

/**
 * A short WAV clip: 8-bit mono PCM at 8 kHz, 20 ms of a 440 Hz tone, built
 * here rather than shipped as a blob.
 */
export function toneWav(): Uint8Array {
  const rate = 8000;
  const samples = rate / 50;
  const bytes = new Uint8Array(44 + samples);
  const view = new DataView(bytes.buffer);
  const ascii = (offset: number, value: string) => {
    for (let i = 0; i < value.length; i++) {
      bytes[offset + i] = value.charCodeAt(i);
    }
  };
  ascii(0, "RIFF");
  view.setUint32(4, 36 + samples, true);
  ascii(8, "WAVE");
  ascii(12, "fmt ");
  view.setUint32(16, 16, true); // fmt chunk size
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, 1, true); // mono
  view.setUint32(24, rate, true);
  view.setUint32(28, rate, true); // bytes per second
  view.setUint16(32, 1, true); // block align
  view.setUint16(34, 8, true); // bits per sample
  ascii(36, "data");
  view.setUint32(40, samples, true);
  for (let i = 0; i < samples; i++) {
    bytes[44 + i] = Math.round(
      128 + 100 * Math.sin(2 * Math.PI * 440 * i / rate),
    );
  }
  return bytes;
}

/** Concatenates the content blocks of several results into one result. */
function combine(...results: CallToolResult[]): CallToolResult {
  return { content: results.flatMap((r) => r.content) };
}

function registerContentTools(server: ToolServer): void {
  server.tool({
    name: "test_simple_text",
    description: "Answers one text block",
    annotations: { readOnlyHint: true },
    handler: () => text("This is a simple text response for testing."),
  });
  server.tool({
    name: "test_image_content",
    description: "Answers one PNG image block",
    annotations: { readOnlyHint: true },
    handler: () => image(PIXEL_PNG_BASE64, "image/png"),
  });
  server.tool({
    name: "test_audio_content",
    description: "Answers one WAV audio block",
    annotations: { readOnlyHint: true },
    handler: () => ({
      content: [{
        type: "audio",
        data: btoa(String.fromCharCode(...toneWav())),
        mimeType: "audio/wav",
      }],
    }),
  });
  server.tool({
    name: "test_embedded_resource",
    description: "Answers one embedded text resource",
    annotations: { readOnlyHint: true },
    handler: () =>
      resource(
        "test://embedded-resource",
        "This is an embedded resource content.",
        "text/plain",
      ),
  });
  server.tool({
    name: "test_multiple_content_types",
    description: "Answers text, an image and an embedded resource together",
    annotations: { readOnlyHint: true },
    handler: () =>
      combine(
        text("Multiple content types test:"),
        image(PIXEL_PNG_BASE64, "image/png"),
        resource(
          "test://mixed-content-resource",
          JSON.stringify({ test: "data", value: 123 }),
          "application/json",
        ),
      ),
  });
  server.tool({
    name: "test_error_handling",
    description: "Always fails with a domain error (isError)",
    handler: () =>
      error("This tool intentionally returns an error for testing"),
  });
  server.tool({
    name: "json_schema_2020_12_tool",
    description: "Tool with JSON Schema 2020-12 features",
    input: {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      $defs: {
        address: {
          $anchor: "addressDef",
          type: "object",
          properties: {
            street: { type: "string" },
            city: { type: "string" },
          },
        },
      },
      properties: {
        name: { type: "string" },
        address: { $ref: "#/$defs/address" },
        contactMethod: { type: "string", enum: ["phone", "email"] },
        phone: { type: "string" },
        email: { type: "string" },
      },
      // Composition and conditionals (SEP-2106) pass through to tools/list as written.
      allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
      if: {
        properties: { contactMethod: { const: "phone" } },
        required: ["contactMethod"],
      },
      then: { required: ["phone"] },
      else: { required: ["email"] },
      additionalProperties: false,
    },
    handler: (args) => text(`Received: ${JSON.stringify(args)}`),
  });
}

function registerStreamingTools(server: ToolServer): void {
  server.tool({
    name: "test_tool_with_logging",
    description: "Sends three info log messages while it runs",
    handler: async (_args, ctx) => {
      ctx.log.info("Tool execution started");
      await sleep(STEP_MS, ctx.signal);
      ctx.log.info("Tool processing data");
      await sleep(STEP_MS, ctx.signal);
      ctx.log.info("Tool execution completed");
      return text("Tool with logging executed successfully");
    },
  });
  server.tool({
    name: "test_tool_with_progress",
    description: "Reports progress 0, 50 and 100 of 100 while it runs",
    handler: async (_args, ctx) => {
      for (const done of [0, 50, 100]) {
        if (done > 0) await sleep(STEP_MS, ctx.signal);
        await ctx.progress(done, 100, `Completed step ${done} of 100`);
      }
      return text("Tool with progress executed successfully");
    },
  });
  server.tool({
    name: "test_reconnection",
    description:
      "Answers after a short pause, long enough for a client to lose and resume its SSE stream",
    handler: async (_args, ctx) => {
      await sleep(2 * STEP_MS, ctx.signal);
      return text("Reconnection test completed successfully");
    },
  });
  server.tool({
    name: "test_sampling",
    description: "Asks the client's model to answer a prompt",
    input: z.object({
      prompt: z.string().describe("The prompt to send to the LLM"),
    }),
    handler: async ({ prompt }, ctx) => {
      try {
        const answer = await ctx.sample({
          messages: [{ role: "user", content: { type: "text", text: prompt } }],
          maxTokens: 100,
        });
        const said = answer.content.type === "text"
          ? String(answer.content.text)
          : `[${answer.content.type}]`;
        return text(`LLM response: ${said}`);
      } catch (cause) {
        return error(`Sampling failed: ${(cause as Error).message}`);
      }
    },
  });
}

async function elicitAndReport(
  ctx: ToolContext,
  message: string,
  requestedSchema: Record<string, unknown>,
  prefix: string,
): Promise<CallToolResult> {
  try {
    const answer = await ctx.elicit({ message, requestedSchema });
    return text(
      `${prefix}: action=${answer.action}, content=${
        JSON.stringify(answer.content ?? {})
      }`,
    );
  } catch (cause) {
    return error(`Elicitation failed: ${(cause as Error).message}`);
  }
}

function registerElicitationTools(server: ToolServer): void {
  server.tool({
    name: "test_elicitation",
    description: "Asks the user for a username and an email address",
    input: z.object({
      message: z.string().describe("The message to show the user"),
    }),
    handler: ({ message }, ctx) =>
      elicitAndReport(ctx, message, {
        type: "object",
        properties: {
          username: { type: "string", description: "User's response" },
          email: { type: "string", description: "User's email address" },
        },
        required: ["username", "email"],
      }, "User response"),
  });
  server.tool({
    name: "test_elicitation_sep1034_defaults",
    description:
      "Asks for one field of each primitive type, each with a default",
    handler: (_args, ctx) =>
      elicitAndReport(ctx, "Please review the fields; defaults are filled in", {
        type: "object",
        properties: {
          name: { type: "string", description: "Name", default: "John Doe" },
          age: { type: "integer", description: "Age", default: 30 },
          score: { type: "number", description: "Score", default: 95.5 },
          status: {
            type: "string",
            description: "Status",
            enum: ["active", "inactive", "pending"],
            default: "active",
          },
          verified: {
            type: "boolean",
            description: "Verified",
            default: true,
          },
        },
      }, "Elicitation completed"),
  });
  server.tool({
    name: "test_elicitation_sep1330_enums",
    description: "Asks for five choices, one of each enum form",
    handler: (_args, ctx) =>
      elicitAndReport(ctx, "Please make five choices", {
        type: "object",
        properties: {
          untitledSingle: {
            type: "string",
            enum: ["option1", "option2", "option3"],
          },
          titledSingle: {
            type: "string",
            oneOf: [
              { const: "value1", title: "First Option" },
              { const: "value2", title: "Second Option" },
              { const: "value3", title: "Third Option" },
            ],
          },
          legacyEnum: {
            type: "string",
            enum: ["opt1", "opt2", "opt3"],
            enumNames: ["Option One", "Option Two", "Option Three"],
          },
          untitledMulti: {
            type: "array",
            items: { type: "string", enum: ["option1", "option2", "option3"] },
          },
          titledMulti: {
            type: "array",
            items: {
              anyOf: [
                { const: "value1", title: "First Choice" },
                { const: "value2", title: "Second Choice" },
                { const: "value3", title: "Third Choice" },
              ],
            },
          },
        },
      }, "Elicitation completed"),
  });
}

function registerResources(server: ToolServer): void {
  server.resource({
    uri: "test://static-text",
    name: "static-text",
    description: "A fixed text resource",
    mimeType: "text/plain",
    read: (uri) => ({
      uri: uri.href,
      mimeType: "text/plain",
      text: "This is the content of the static text resource.",
    }),
  });
  server.resource({
    uri: "test://static-binary",
    name: "static-binary",
    description: "A fixed PNG image",
    mimeType: "image/png",
    read: (uri) => ({
      uri: uri.href,
      mimeType: "image/png",
      blob: PIXEL_PNG_BASE64,
    }),
  });
  let watched = { version: 1, updatedAt: new Date().toISOString() };
  server.resource({
    uri: WATCHED_URI,
    name: "watched-resource",
    description:
      "A resource that changes when update_watched_resource is called; subscribe to hear about it",
    mimeType: "application/json",
    read: (uri) => ({
      uri: uri.href,
      mimeType: "application/json",
      text: JSON.stringify(watched),
    }),
  });
  server.tool({
    name: "update_watched_resource",
    description: `Changes ${WATCHED_URI} and notifies its subscribers`,
    handler: async () => {
      watched = {
        version: watched.version + 1,
        updatedAt: new Date().toISOString(),
      };
      await server.resourceUpdated(WATCHED_URI);
      return text(`${WATCHED_URI} is now version ${watched.version}`);
    },
  });
  server.resourceTemplate({
    uriTemplate: "test://template/{id}/data",
    name: "template-data",
    description: "JSON data for any id",
    mimeType: "application/json",
    complete: {
      id: (typed) => ["1", "42", "123"].filter((id) => id.startsWith(typed)),
    },
    read: (uri, { id }) => ({
      uri: uri.href,
      mimeType: "application/json",
      text: JSON.stringify({
        id,
        templateTest: true,
        data: `Data for ID: ${id}`,
      }),
    }),
  });
}

const ARG1_SUGGESTIONS = ["paris", "park", "party", "test", "testing"];

function registerPrompts(server: ToolServer): void {
  server.prompt({
    name: "test_simple_prompt",
    description: "A prompt without arguments",
    handler: () => ({
      messages: [{
        role: "user",
        content: { type: "text", text: "This is a simple prompt for testing." },
      }],
    }),
  });
  server.prompt({
    name: "test_prompt_with_arguments",
    description: "A prompt that repeats its two arguments",
    arguments: [
      {
        name: "arg1",
        description: "First test argument",
        required: true,
        complete: (typed) =>
          ARG1_SUGGESTIONS.filter((value) => value.startsWith(typed)),
      },
      { name: "arg2", description: "Second test argument", required: true },
    ],
    handler: ({ arg1, arg2 }) => ({
      messages: [{
        role: "user",
        content: {
          type: "text",
          text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`,
        },
      }],
    }),
  });
  server.prompt({
    name: "test_prompt_with_embedded_resource",
    description: "A prompt that embeds the resource it is given",
    arguments: [{
      name: "resourceUri",
      description: "URI of the resource to embed",
      required: true,
    }],
    handler: ({ resourceUri }) => ({
      messages: [
        {
          role: "user",
          content: {
            type: "resource",
            resource: {
              uri: resourceUri,
              mimeType: "text/plain",
              text: "Embedded resource content for testing.",
            },
          },
        },
        {
          role: "user",
          content: {
            type: "text",
            text: "Please process the embedded resource above.",
          },
        },
      ],
    }),
  });
  server.prompt({
    name: "test_prompt_with_image",
    description: "A prompt that shows an image",
    handler: () => ({
      messages: [
        {
          role: "user",
          content: {
            type: "image",
            data: PIXEL_PNG_BASE64,
            mimeType: "image/png",
          },
        },
        {
          role: "user",
          content: { type: "text", text: "Please analyze the image above." },
        },
      ],
    }),
  });
}

/**
 * Builds the everything server; `options` are added to its own (for
 * instance the `requestStateKey` instances behind a load balancer share).
 *
 * @example
 * ```ts ignore
 * const server = createEverythingServer();
 * await server.serve();
 * ```
 */
export function createEverythingServer(
  options: ServerOptions = {},
): ToolServer {
  const server = createServer({
    name: "forge-everything",
    title: "Everything (toolkit example)",
    version: "0.1.0",
  }, {
    instructions:
      "A test server: every tool, resource and prompt exists to exercise one MCP feature.",
    ...options,
  });
  // A span per request; exported only under OTEL_DENO=true (docs/observability.md).
  server.use(otel());
  registerContentTools(server);
  registerStreamingTools(server);
  registerElicitationTools(server);
  registerResources(server);
  registerPrompts(server);
  registerRevision2026Tools(server);
  registerSkills(server);
  registerTaskTools(server);
  return server;
}
