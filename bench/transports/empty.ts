/**
 * Deno alone: a file that imports only the harness's helpers, for the
 * runtime's own share of every cold start.
 *
 * ```sh
 * deno run -A bench/transports/empty.ts
 * ```
 *
 * @module
 */

import { importOnly } from "./_requests.ts";

if (import.meta.main) importOnly(performance.now());
