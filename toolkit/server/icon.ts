/**
 * Icons a client may show beside a tool, resource, resource template, prompt
 * or the server itself (MCP 2025-11-25).
 *
 * @module
 */

/**
 * One icon, as MCP's `icons` lists carry it. `src` must be an `https:` URL or
 * a `data:` URI; the server refuses anything else at registration with a
 * `TypeError` (a plain `http:` icon would be fetched in the clear, and other
 * schemes mean nothing to a client).
 *
 * @example Give a tool a light and a dark icon
 * ```ts
 * import { createServer, text } from "@forge/toolkit";
 * import type { Icon } from "@forge/toolkit/server";
 *
 * const icons: Icon[] = [
 *   { src: "https://example.com/sun.png", mimeType: "image/png", sizes: ["48x48"], theme: "light" },
 *   { src: "https://example.com/sun-dark.svg", mimeType: "image/svg+xml", sizes: ["any"], theme: "dark" },
 * ];
 * createServer({ name: "weather", version: "1", icons }).tool({
 *   name: "forecast",
 *   description: "Tomorrow's weather",
 *   icons,
 *   handler: () => text("Sunny"),
 * });
 * ```
 */
export interface Icon {
  /** The image: an `https:` URL or a `data:` URI. */
  src: string;
  /** Its MIME type, when `src` does not make it clear, such as `image/png`. */
  mimeType?: string;
  /** Sizes it suits, each `WxH` (`48x48`) or `any`; absent: any size. */
  sizes?: string[];
  /** The background it is drawn for; absent: either. */
  theme?: "light" | "dark";
}
