/**
 * Atomic file replacement: the new content goes to a temporary file in the
 * target's directory, is flushed to disk, then renamed over the target. A
 * reader sees the old file or the new one, never a mix, and a crash at any
 * point leaves at most a stray temporary file, never half a target.
 *
 * With `confined`, the path is one resolved when the write was approved, and
 * the write is refused unless it still lands there: see
 * {@linkcode WriteAtomicOptions.confined} and docs/mcp-contract.md for the
 * window that remains.
 *
 * @module
 */

import { PathChangedError, realPathOf, resolvesTo } from "./confine.ts";

const ENCODER = new TextEncoder();
// New files get the usual permissions (less the umask).
const TEMP_FILE: Deno.OpenOptions = {
  write: true,
  createNew: true,
  mode: 0o666,
};

/** Options for {@linkcode writeFileAtomic}. */
export interface WriteAtomicOptions {
  /**
   * Create missing parent directories first.
   *
   * @default {false}
   */
  createParents?: boolean;
  /**
   * `path` is a real path resolved when the write was approved: refuse with
   * {@linkcode PathChangedError} unless every directory created for it, the
   * temporary file (before and after its content is written) and the renamed
   * file still resolve to where that path says. A refused write leaves no
   * content behind: the temporary file is emptied through its open handle,
   * wherever it ended up, and removed when it can still be found.
   *
   * @default {false}
   */
  confined?: boolean;
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
 * @param options Whether to create parent directories and to confine the
 * write to `path` as resolved.
 * @returns The number of bytes written.
 * @throws {PathChangedError} With `confined`, when a directory on the way
 * was replaced during the write.
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
  const confined = options.confined ?? false;
  const bytes = typeof data === "string" ? ENCODER.encode(data) : data;
  const dir = parentOf(path);
  const name = path.slice(path.lastIndexOf("/") + 1);
  if (options.createParents) {
    if (confined) makeParentsConfined(dir, path);
    else await Deno.mkdir(dir, { recursive: true });
  }

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
  // Checked just before the open, so a replaced directory is most often
  // caught before anything is created through it. Confined, the check, the
  // open and the check after it run with no await between them: a turn of
  // the event loop on a loaded server can last milliseconds, long enough for
  // a link to come and go unseen.
  if (confined && !resolvesTo(dir)) throw new PathChangedError(path);
  // createNew (O_EXCL) never follows a link at the last component and
  // never opens a file someone else made.
  const file = confined
    ? Deno.openSync(temp, TEMP_FILE)
    : await Deno.open(temp, TEMP_FILE);
  // Every real path the file was seen at, for withdraw() to look in.
  const seen = new Set([temp]);
  const confirm = () => {
    const real = realPathOf(temp);
    if (real !== undefined) seen.add(real);
    if (real !== temp || !resolvesTo(temp, file)) {
      throw new PathChangedError(path);
    }
  };
  try {
    // Checked while the file is still empty, so a refused write never puts
    // content outside.
    if (confined) confirm();
    // The umask applied at creation; an existing file's bits are kept as is.
    if (kept !== undefined) await Deno.chmod(temp, kept);
    let written = 0;
    while (written < bytes.length) {
      written += await file.write(bytes.subarray(written));
    }
    // Flush before the rename, or a power cut can leave the new name
    // pointing at an empty file on some file systems.
    await file.sync();
    if (confined) {
      confirm();
      renameConfined(temp, path, file, seen);
    } else {
      await Deno.rename(temp, path);
    }
  } catch (error) {
    await withdraw(file, seen);
    throw error;
  } finally {
    file.close();
  }
  return bytes.length;
}

/**
 * Renames the temporary file, just confirmed, over `path` and looks where
 * the rename went, back to back. The rename is one more lookup of the directory;
 * only positive evidence that this file now sits elsewhere undoes it: a link
 * swapped in after the rename proves nothing about where the rename went,
 * and a concurrent write may have replaced the file since.
 */
function renameConfined(
  temp: string,
  path: string,
  file: Deno.FsFile,
  seen: Set<string>,
): void {
  try {
    Deno.renameSync(temp, path);
  } catch (error) {
    // The temporary file vanished from under its name: the directory moved.
    if (error instanceof Deno.errors.NotFound) throw new PathChangedError(path);
    throw error;
  }
  const real = realPathOf(path);
  if (real !== undefined && real !== path && isFile(real, file)) {
    seen.add(real);
    throw new PathChangedError(path);
  }
}

/**
 * Takes back a write that failed: empties the file through its handle (this
 * reaches it wherever a moved directory took it), then removes it from each
 * place it was seen at where that name still holds this very file.
 */
async function withdraw(
  file: Deno.FsFile,
  places: Iterable<string>,
): Promise<void> {
  await file.truncate(0).catch(() => {});
  for (const place of places) {
    // Gone or unreachable: the handle already emptied it.
    if (isFile(place, file)) await Deno.remove(place).catch(() => {});
  }
}

/**
 * Creates the missing directories of `dir` one at a time, checking that each
 * new one resolves to itself before going deeper; a directory created through
 * a replaced parent is removed again.
 */
function makeParentsConfined(dir: string, path: string): void {
  const missing: string[] = [];
  let here = dir;
  while (here !== "/" && !exists(here)) {
    missing.unshift(here);
    here = parentOf(here);
  }
  for (const next of missing) {
    let made = true;
    try {
      Deno.mkdirSync(next);
    } catch (error) {
      // Made by a concurrent call: the check below still applies.
      if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
      made = false;
    }
    if (!resolvesTo(next)) {
      // Only a directory this call made, and only while it is empty.
      if (made) removeEmptyDirectory(next);
      throw new PathChangedError(path);
    }
  }
}

function removeEmptyDirectory(path: string): void {
  try {
    Deno.removeSync(Deno.realPathSync(path));
  } catch {
    // Not empty, or gone already: leave it.
  }
}

/** Whether `path` (its last component not followed) names the open `file`. */
function isFile(path: string, file: Deno.FsFile): boolean {
  try {
    const named = Deno.lstatSync(path);
    const open = file.statSync();
    return named.ino === open.ino && named.dev === open.dev;
  } catch {
    return false;
  }
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

function parentOf(path: string): string {
  return path.slice(0, path.lastIndexOf("/")) || "/";
}
