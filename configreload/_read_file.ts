// Internal: one look at the config file. Resolves the real path, opens it,
// stats the open handle (so the stat and the bytes describe the same file
// even if a rename lands in between), reads at most `maxBytes + 1` bytes and
// hashes them with SHA-256.

import { sha256Hex } from "./_sha256_hex.ts";

/** What one look at the file found. */
export type FileLook =
  | { kind: "ok"; bytes: Uint8Array; hash: string; realPath: string }
  | { kind: "missing" }
  | { kind: "not-a-file"; realPath: string }
  | { kind: "too-large"; size: number }
  | { kind: "unreadable"; error: unknown };

/** Reads and hashes the file at `path`, refusing more than `maxBytes`. */
export async function lookAtFile(
  path: string,
  maxBytes: number,
): Promise<FileLook> {
  let realPath: string;
  let file: Deno.FsFile;
  try {
    realPath = await Deno.realPath(path);
    file = await Deno.open(realPath, { read: true });
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return { kind: "missing" };
    // ENOTDIR: a path component became a file; for us it is not there.
    if (error instanceof Deno.errors.NotADirectory) return { kind: "missing" };
    return { kind: "unreadable", error };
  }
  try {
    const info = await file.stat();
    if (!info.isFile) return { kind: "not-a-file", realPath };
    if (info.size > maxBytes) return { kind: "too-large", size: info.size };
    const bytes = await readAtMost(file, info.size, maxBytes);
    if (bytes === undefined) return { kind: "too-large", size: maxBytes + 1 };
    return { kind: "ok", bytes, hash: await sha256Hex(bytes), realPath };
  } catch (error) {
    return { kind: "unreadable", error };
  } finally {
    file.close();
  }
}

// The file may grow after the stat, so the read itself is bounded too.
async function readAtMost(
  file: Deno.FsFile,
  sizeHint: number,
  maxBytes: number,
): Promise<Uint8Array | undefined> {
  const limit = maxBytes + 1;
  let buffer = new Uint8Array(Math.min(sizeHint + 1, limit));
  let filled = 0;
  while (true) {
    if (filled === buffer.length) {
      if (buffer.length >= limit) return undefined;
      const bigger = new Uint8Array(Math.min(buffer.length * 2, limit));
      bigger.set(buffer);
      buffer = bigger;
    }
    const read = await file.read(buffer.subarray(filled));
    if (read === null) return buffer.subarray(0, filled);
    filled += read;
  }
}
