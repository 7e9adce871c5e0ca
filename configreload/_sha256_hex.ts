// Internal: the hex SHA-256 digest, shared by configreload (a config's
// content hash) and the gate (the arguments an approval is bound to).

const HEX: readonly string[] = Array.from(
  { length: 256 },
  (_, i) => i.toString(16).padStart(2, "0"),
);

/** Hex SHA-256 of `bytes`, computed by `crypto.subtle`. */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>),
  );
  let hex = "";
  for (const byte of digest) hex += HEX[byte];
  return hex;
}
