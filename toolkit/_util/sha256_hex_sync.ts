// Internal: the hex SHA-256 of bytes or text, at once, for the gate's paths
// that cannot wait for `crypto.subtle` (a decision, an audit line written
// in step with its anchor). The async `configreload/_sha256_hex.ts` serves
// the rest.

import { createHash } from "node:crypto";

/**
 * Hex SHA-256 of `data` (text as UTF-8), computed synchronously.
 *
 * @example
 * ```ts
 * import { sha256HexSync } from "./sha256_hex_sync.ts";
 * sha256HexSync("abc").slice(0, 8); // "ba7816bf"
 * ```
 */
export function sha256HexSync(data: Uint8Array | string): string {
  return createHash("sha256").update(data).digest("hex");
}
