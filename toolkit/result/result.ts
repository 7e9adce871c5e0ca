/**
 * Builders for `tools/call` results, and {@linkcode ToolError} for domain
 * errors thrown from anywhere inside a handler.
 *
 * @module
 */

import { jsonType } from "../_util/json_type.ts";

/**
 * Optional annotations a client may use to decide how to show content.
 *
 * @example Show a summary to the user only
 * ```ts
 * import { type CallToolResult, text } from "@forge/toolkit";
 * import { type ContentAnnotations } from "@forge/toolkit/result";
 *
 * const forUser: ContentAnnotations = { audience: ["user"], priority: 0.2 };
 * const result: CallToolResult = text("Done: 3 files written");
 * result.content.push({ type: "text", text: "Took 1.2 s", annotations: forUser });
 * ```
 */
export interface ContentAnnotations {
  /** Who the content is meant for. */
  audience?: ("user" | "assistant")[];
  /** How important the content is, from 0 (least) to 1 (most). */
  priority?: number;
  /** When the content last changed, as an ISO 8601 timestamp. */
  lastModified?: string;
}

/**
 * A text block of a tool result.
 *
 * @example One text block per file name
 * ```ts
 * import type { CallToolResult } from "@forge/toolkit";
 * import type { TextContent } from "@forge/toolkit/result";
 *
 * const lines: TextContent[] = ["a.txt", "b.txt"].map((name) => ({ type: "text", text: name }));
 * const result: CallToolResult = { content: lines };
 * ```
 */
export interface TextContent {
  /** Always `"text"`. */
  type: "text";
  /** The text itself. */
  text: string;
  /** Hints for the client. */
  annotations?: ContentAnnotations;
  /** Extra metadata. */
  _meta?: Record<string, unknown>;
}

/**
 * An image block of a tool result (base64 data).
 *
 * @example Return a chart next to its caption
 * ```ts
 * import type { CallToolResult } from "@forge/toolkit";
 * import type { ImageContent } from "@forge/toolkit/result";
 *
 * const png = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]);
 * const chart: ImageContent = {
 *   type: "image",
 *   data: btoa(String.fromCharCode(...png)),
 *   mimeType: "image/png",
 * };
 * const result: CallToolResult = { content: [{ type: "text", text: "Sales by month" }, chart] };
 * ```
 */
export interface ImageContent {
  /** Always `"image"`. */
  type: "image";
  /** Base64-encoded image bytes. */
  data: string;
  /** The image's MIME type, such as `image/png`. */
  mimeType: string;
  /** Hints for the client. */
  annotations?: ContentAnnotations;
  /** Extra metadata. */
  _meta?: Record<string, unknown>;
}

/**
 * An audio block of a tool result (base64 data).
 *
 * @example Return a spoken answer for the user
 * ```ts
 * import type { CallToolResult } from "@forge/toolkit";
 * import type { AudioContent } from "@forge/toolkit/result";
 *
 * const speech: AudioContent = {
 *   type: "audio",
 *   data: "UklGRiQAAABXQVZF", // base64 WAV bytes from a text-to-speech call
 *   mimeType: "audio/wav",
 *   annotations: { audience: ["user"] },
 * };
 * const result: CallToolResult = { content: [speech] };
 * ```
 */
export interface AudioContent {
  /** Always `"audio"`. */
  type: "audio";
  /** Base64-encoded audio bytes. */
  data: string;
  /** The audio's MIME type, such as `audio/wav`. */
  mimeType: string;
  /** Hints for the client. */
  annotations?: ContentAnnotations;
  /** Extra metadata. */
  _meta?: Record<string, unknown>;
}

/**
 * A link to a resource the client can read with `resources/read`.
 *
 * @example List search hits as links instead of inlining them
 * ```ts
 * import type { CallToolResult } from "@forge/toolkit";
 * import type { ResourceLinkContent } from "@forge/toolkit/result";
 *
 * const hits: ResourceLinkContent[] = ["todo.md", "ideas.md"].map((name) => ({
 *   type: "resource_link",
 *   uri: `notes://${name}`,
 *   name,
 *   mimeType: "text/markdown",
 * }));
 * const result: CallToolResult = { content: hits };
 * ```
 */
export interface ResourceLinkContent {
  /** Always `"resource_link"`. */
  type: "resource_link";
  /** The resource's URI. */
  uri: string;
  /** A programmatic name for the resource. */
  name: string;
  /** A human-readable title. */
  title?: string;
  /** What the resource is. */
  description?: string;
  /** The resource's MIME type. */
  mimeType?: string;
  /** Hints for the client. */
  annotations?: ContentAnnotations;
  /** Extra metadata. */
  _meta?: Record<string, unknown>;
}

/**
 * The contents of an embedded resource: text or base64 blob.
 *
 * @example Text and binary contents
 * ```ts
 * import type { ResourceContents } from "@forge/toolkit/result";
 *
 * const note: ResourceContents = { uri: "notes://todo", mimeType: "text/markdown", text: "# Todo" };
 * const logo: ResourceContents = { uri: "assets://logo", mimeType: "image/png", blob: "iVBORw0KGgo=" };
 * ```
 */
export type ResourceContents =
  | {
    uri: string;
    mimeType?: string;
    text: string;
    _meta?: Record<string, unknown>;
  }
  | {
    uri: string;
    mimeType?: string;
    blob: string;
    _meta?: Record<string, unknown>;
  };

/**
 * A resource embedded in a tool result.
 *
 * @example Embed a binary file, which `resource()` does not cover
 * ```ts
 * import type { CallToolResult } from "@forge/toolkit";
 * import type { EmbeddedResourceContent } from "@forge/toolkit/result";
 *
 * const archive: EmbeddedResourceContent = {
 *   type: "resource",
 *   resource: { uri: "file:///out/build.zip", mimeType: "application/zip", blob: "UEsDBA==" },
 * };
 * const result: CallToolResult = { content: [archive] };
 * ```
 */
export interface EmbeddedResourceContent {
  /** Always `"resource"`. */
  type: "resource";
  /** The resource's contents. */
  resource: ResourceContents;
  /** Hints for the client. */
  annotations?: ContentAnnotations;
  /** Extra metadata. */
  _meta?: Record<string, unknown>;
}

/**
 * One block of a tool result's `content`.
 *
 * @example Read the text of a result in a test
 * ```ts
 * import { type Content, text } from "@forge/toolkit";
 *
 * function textOf(blocks: Content[]): string {
 *   return blocks.map((block) => block.type === "text" ? block.text : `[${block.type}]`).join("\n");
 * }
 * textOf(text("Hello").content); // "Hello"
 * ```
 */
export type Content =
  | TextContent
  | ImageContent
  | AudioContent
  | ResourceLinkContent
  | EmbeddedResourceContent;

/**
 * The result of `tools/call`, as it goes on the wire.
 *
 * @example Combine builders into one result
 * ```ts
 * import { type CallToolResult, json, resourceLink } from "@forge/toolkit";
 *
 * function report(count: number): CallToolResult {
 *   const result = json({ count });
 *   result.content.push(...resourceLink("reports://latest", "latest").content);
 *   return result;
 * }
 * ```
 */
export interface CallToolResult {
  /** What the tool produced, for the model to read. */
  content: Content[];
  /** Machine-readable output matching the tool's output schema. */
  structuredContent?: Record<string, unknown>;
  /** `true` for a domain error the model should see and fix. */
  isError?: boolean;
  /** Extra metadata, such as a probe's patterns. */
  _meta?: Record<string, unknown>;
}

/**
 * A successful result with one text block.
 *
 * @example Greet
 * ```ts
 * import { text } from "@forge/toolkit";
 *
 * const result = text("Hello, Ada!");
 * // { content: [{ type: "text", text: "Hello, Ada!" }] }
 * ```
 */
export function text(value: string): CallToolResult {
  return { content: [{ type: "text", text: value }] };
}

/**
 * A successful result carrying `value` twice: as pretty-printed JSON text for
 * models that read text, and as `structuredContent` for clients that validate
 * against the tool's output schema. `value` must be a plain object, because
 * MCP requires `structuredContent` to be one.
 *
 * @example Structured output
 * ```ts
 * import { json } from "@forge/toolkit";
 *
 * const result = json({ count: 3 });
 * // result.structuredContent → { count: 3 }
 * ```
 */
export function json(value: Record<string, unknown>): CallToolResult {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new TypeError(
      `Cannot build a JSON result: expected a plain object, got ${
        jsonType(value)
      }`,
    );
  }
  return {
    content: [{ type: "text", text: JSON.stringify(value, null, 2) }],
    structuredContent: value,
  };
}

/**
 * A domain error: the call reached the tool, and the tool tells the model what
 * was wrong so that it can correct itself. On the wire this is a normal result
 * with `isError: true`, not a JSON-RPC error.
 *
 * @example Not found
 * ```ts
 * import { error } from "@forge/toolkit";
 *
 * const result = error("not found: notes/todo.md");
 * // { content: [{ type: "text", text: "not found: notes/todo.md" }], isError: true }
 * ```
 */
export function error(message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}

/**
 * A successful result with one image block.
 *
 * @example A PNG
 * ```ts
 * import { image } from "@forge/toolkit";
 *
 * const result = image(new Uint8Array([137, 80, 78, 71]), "image/png");
 * ```
 */
export function image(
  data: Uint8Array | string,
  mimeType: string,
): CallToolResult {
  return { content: [{ type: "image", data: toBase64(data), mimeType }] };
}

/**
 * A successful result with one audio block.
 *
 * @example A WAV clip
 * ```ts
 * import { audio } from "@forge/toolkit";
 *
 * const result = audio("UklGRg==", "audio/wav");
 * ```
 */
export function audio(
  data: Uint8Array | string,
  mimeType: string,
): CallToolResult {
  return { content: [{ type: "audio", data: toBase64(data), mimeType }] };
}

/**
 * Optional fields of a resource link.
 *
 * @example Describe a linked file
 * ```ts
 * import { resourceLink } from "@forge/toolkit";
 * import { type ResourceLinkOptions } from "@forge/toolkit/result";
 *
 * const pdf: ResourceLinkOptions = {
 *   title: "Q3 report",
 *   description: "Revenue and costs for July to September",
 *   mimeType: "application/pdf",
 * };
 * const result = resourceLink("file:///reports/q3.pdf", "q3.pdf", pdf);
 * ```
 */
export interface ResourceLinkOptions {
  /** A human-readable title. */
  title?: string;
  /** What the resource is. */
  description?: string;
  /** The resource's MIME type. */
  mimeType?: string;
}

/**
 * A successful result with one link to a resource the client can read.
 *
 * @example Link a report
 * ```ts
 * import { resourceLink } from "@forge/toolkit";
 *
 * const result = resourceLink("file:///reports/q3.pdf", "q3.pdf", {
 *   mimeType: "application/pdf",
 * });
 * ```
 */
export function resourceLink(
  uri: string,
  name: string,
  options: ResourceLinkOptions = {},
): CallToolResult {
  return { content: [{ type: "resource_link", uri, name, ...options }] };
}

/**
 * A successful result with one embedded text resource.
 *
 * @example Embed a file's text
 * ```ts
 * import { resource } from "@forge/toolkit";
 *
 * const result = resource("file:///notes/a.md", "# Notes", "text/markdown");
 * ```
 */
export function resource(
  uri: string,
  contents: string,
  mimeType?: string,
): CallToolResult {
  return {
    content: [{
      type: "resource",
      resource: mimeType === undefined
        ? { uri, text: contents }
        : { uri, mimeType, text: contents },
    }],
  };
}

/**
 * Thrown from anywhere inside a handler, a `ToolError` becomes a domain error
 * result (`isError: true`) carrying its message. Any other thrown value is an
 * infrastructure failure and becomes a JSON-RPC error instead.
 *
 * @example Refuse a path
 * ```ts
 * import { ToolError } from "@forge/toolkit";
 *
 * function checkPath(path: string): void {
 *   if (path.startsWith("/")) throw new ToolError(`path: expected a relative path, got "${path}"`);
 * }
 * ```
 */
export class ToolError extends Error {
  /**
   * Creates a domain error.
   *
   * @param message What went wrong, written for the model to act on.
   * @param options Standard error options such as `cause`.
   */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "ToolError";
  }
}

function toBase64(data: Uint8Array | string): string {
  if (typeof data === "string") return data;
  // Chunked so large payloads do not overflow the argument limit of apply.
  let binary = "";
  for (let i = 0; i < data.length; i += 0x8000) {
    binary += String.fromCharCode(...data.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}
