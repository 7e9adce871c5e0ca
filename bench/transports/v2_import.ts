/**
 * The SDK v2 server package alone, imported and nothing else: its share of
 * a transport built on it.
 *
 * ```sh
 * deno run -A bench/transports/v2_import.ts
 * ```
 *
 * @module
 */

import {
  PerRequestHTTPServerTransport,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { importOnly } from "./_requests.ts";

const IMPORTED_MS = performance.now();

if (import.meta.main) {
  // Named, so the import is not dropped as unused.
  for (
    const transport of [
      PerRequestHTTPServerTransport,
      WebStandardStreamableHTTPServerTransport,
    ]
  ) {
    if (typeof transport !== "function") {
      throw new Error("A v2 transport is not a class");
    }
  }
  importOnly(IMPORTED_MS);
}
