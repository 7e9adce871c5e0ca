/**
 * The SDK v1 transport module alone, imported and nothing else: its share
 * of `@forge/toolkit/http`'s start-up, which a transport of the toolkit's
 * own would not pay.
 *
 * ```sh
 * deno run -A bench/transports/v1_import.ts
 * ```
 *
 * @module
 */

import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { importOnly } from "./_requests.ts";

const IMPORTED_MS = performance.now();

if (import.meta.main) {
  // Named, so the import is not dropped as unused.
  if (typeof WebStandardStreamableHTTPServerTransport !== "function") {
    throw new Error("The SDK v1 transport is not a class");
  }
  importOnly(IMPORTED_MS);
}
