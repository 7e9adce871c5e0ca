/**
 * What a tool call answers: {@linkcode text}, {@linkcode json},
 * {@linkcode image}, {@linkcode audio}, {@linkcode resource} and
 * {@linkcode resourceLink} build successful results; {@linkcode error}
 * builds a domain error (`isError`) that the model reads and can fix, and
 * {@linkcode ToolError} is the same thrown from anywhere in a handler.
 *
 * Runs on Deno, Node (20 and later), Bun and Cloudflare Workers (workerd):
 * nothing here reaches for `Deno` at import or when called.
 *
 * @example A success and a domain error
 * ```ts
 * import { error, json, text } from "@forge/toolkit";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(text("done"), { content: [{ type: "text", text: "done" }] });
 * assert.equal(error("not found: a.txt").isError, true);
 * assert.deepEqual(json({ n: 1 }).structuredContent, { n: 1 });
 * ```
 *
 * @module
 */

export {
  audio,
  type AudioContent,
  type CallToolResult,
  type Content,
  type ContentAnnotations,
  type EmbeddedResourceContent,
  error,
  image,
  type ImageContent,
  json,
  resource,
  type ResourceContents,
  resourceLink,
  type ResourceLinkContent,
  type ResourceLinkOptions,
  text,
  type TextContent,
  ToolError,
} from "./result.ts";
