/**
 * Atomic file replacement: the new content goes to a temporary file in the
 * target's directory, is flushed to disk, then renamed over the target. A
 * reader sees the old file or the new one, never a mix, and a crash at any
 * point leaves at most a stray temporary file, never half a target.
 *
 * @module
 */

const ENCODER = new TextEncoder();
// New files get the usual permissions (less the umask).
const DEFAULT_MODE = 0o666;

/** Options for {@linkcode writeFileAtomic}. */
export interface WriteAtomicOptions {
  /**
   * Create missing parent directories first.
   *
   * @default {false}
   */
  createParents?: boolean;
}

/**
 * Replaces the file at `path` with `data` atomically. An existing file keeps
 * its permission bits. On failure the temporary file is removed and the
 * target is untouched.
 *
 * @example
 * ```ts
 * import { writeFileAtomic } from "./write_atomic.ts";
 *
 * const dir = await Deno.makeTempDir();
 * await writeFileAtomic(`${dir}/notes/a.txt`, "hello\n", { createParents: true });
 * console.log(await Deno.readTextFile(`${dir}/notes/a.txt`)); // "hello\n"
 * ```
 *
 * @param path The absolute path of the file to replace or create.
 * @param data The new content; text is written as UTF-8.
 * @param options Whether to create parent directories.
 * @returns The number of bytes written.
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: WriteAtomicOptions = {},
): Promise<number> {
  if (typeof path !== "string" || !path.startsWith("/")) {
    throw new TypeError(
      `Cannot write atomically: expected an absolute path, got ${
        JSON.stringify(path)
      }`,
    );
  }
  const bytes = typeof data === "string" ? ENCODER.encode(data) : data;
  const slash = path.lastIndexOf("/");
  const dir = path.slice(0, slash) || "/";
  const name = path.slice(slash + 1);
  if (options.createParents) await Deno.mkdir(dir, { recursive: true });

  let kept: number | undefined;
  try {
    const info = await Deno.stat(path);
    // A directory in the way makes the rename fail below, as it should.
    if (info.isFile && info.mode !== null) kept = info.mode & 0o7777;
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }

  // A dot-name in the same directory: rename(2) is only atomic within one
  // file system, and hidden names keep directory listings tidy meanwhile.
  const temp = `${dir}/.${name}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  const file = await Deno.open(temp, {
    write: true,
    createNew: true,
    mode: DEFAULT_MODE,
  });
  try {
    try {
      // The umask applied at creation; an existing file's bits are kept as is.
      if (kept !== undefined) await Deno.chmod(temp, kept);
      let written = 0;
      while (written < bytes.length) {
        written += await file.write(bytes.subarray(written));
      }
      // Flush before the rename, or a power cut can leave the new name
      // pointing at an empty file on some file systems.
      await file.sync();
    } finally {
      file.close();
    }
    await Deno.rename(temp, path);
  } catch (error) {
    await Deno.remove(temp).catch(() => {});
    throw error;
  }
  return bytes.length;
}
