/**
 * Checks that a path approved earlier in a call still resolves where it did,
 * for file tools whose patterns were resolved before the handler acts.
 * Deno offers no `openat`, `O_NOFOLLOW` on directories or `renameat` with
 * directory handles, so a check and the act that follows it are two path
 * lookups. These checks are synchronous on purpose: a check and the act run
 * back to back, with no turn of the event loop (which a loaded server can
 * stretch to milliseconds) between them, so the window is the gap between two
 * system calls.
 * See docs/mcp-contract.md, "The remaining race window".
 *
 * @module
 */

/**
 * A path that no longer resolves where it did when the call was approved: a
 * directory on the way was replaced (by a symbolic link, say) during the
 * call. Its message names the absolute path, for the server's log only.
 */
export class PathChangedError extends Error {
  /** The absolute path as approved. */
  readonly path: string;

  /**
   * Creates the error for `path`.
   *
   * @example
   * ```ts
   * import { PathChangedError } from "./confine.ts";
   *
   * const error = new PathChangedError("/srv/notes/a.txt");
   * console.log(error.path); // "/srv/notes/a.txt"
   * ```
   *
   * @param path The absolute path as approved.
   */
  constructor(path: string) {
    super(
      `Cannot act on ${path}: it no longer resolves to where it was approved: a directory on the way was replaced during the call`,
    );
    this.name = "PathChangedError";
    this.path = path;
  }
}

/**
 * Whether `path` resolves to itself (no symbolic link on the way, nothing
 * missing) and, when `file` is given, names that open file.
 *
 * @example
 * ```ts
 * import { resolvesTo } from "./confine.ts";
 *
 * const dir = await Deno.realPath(await Deno.makeTempDir());
 * console.log(resolvesTo(dir)); // true
 * console.log(resolvesTo(`${dir}/missing`)); // false
 * ```
 *
 * @param path An absolute real path.
 * @param file An open file that `path` must name.
 * @returns `true` when `path` is still where it was.
 */
export function resolvesTo(path: string, file?: Deno.FsFile): boolean {
  try {
    if (Deno.realPathSync(path) !== path) return false;
    if (file === undefined) return true;
    const named = Deno.lstatSync(path);
    const open = file.statSync();
    return named.ino === open.ino && named.dev === open.dev;
  } catch (error) {
    if (isMissing(error)) return false;
    throw error;
  }
}

/**
 * The real path `path` resolves to now, or `undefined` when it leads nowhere.
 *
 * @example
 * ```ts
 * import { realPathOf } from "./confine.ts";
 *
 * console.log(realPathOf("/no/such/file")); // undefined
 * ```
 *
 * @param path An absolute path.
 * @returns Its real path, or `undefined` when something on the way is missing.
 */
export function realPathOf(path: string): string | undefined {
  try {
    return Deno.realPathSync(path);
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/**
 * Removes the file at `path`, a path whose directory part was resolved when
 * the call was approved. The file is first renamed aside to a fresh random
 * name in its directory; the unlink then only ever names that random name,
 * and only once it is confirmed to be the file first seen, in the approved
 * directory. If a replaced directory sent the rename elsewhere, the file is
 * renamed back and nothing is removed.
 *
 * @example
 * ```ts
 * import { removeFileConfined } from "./confine.ts";
 *
 * const dir = await Deno.realPath(await Deno.makeTempDir());
 * await Deno.writeTextFile(`${dir}/old.log`, "x");
 * removeFileConfined(`${dir}/old.log`);
 * ```
 *
 * @param path The absolute path of the file; its last component may be a
 * symbolic link, which is removed itself.
 * @throws {PathChangedError} When a directory on the way was replaced.
 * @throws {Deno.errors.IsADirectory} When `path` is a directory.
 * @throws {Deno.errors.NotFound} When nothing is at `path`.
 */
export function removeFileConfined(path: string): void {
  const dir = parentOf(path);
  const name = path.slice(dir.length + 1);
  const seen = Deno.lstatSync(path);
  if (seen.isDirectory) {
    throw new Deno.errors.IsADirectory(`Cannot remove a directory: ${path}`);
  }
  const aside = `${dir}/.${name}.${crypto.randomUUID().slice(0, 8)}.del`;
  // Checked just before the rename, so a replaced directory is most often
  // caught before anything outside is even renamed.
  if (!resolvesTo(dir)) throw new PathChangedError(path);
  Deno.renameSync(path, aside);
  // The directory, not the file: a symbolic link is deleted itself.
  const realDir = realPathOf(dir);
  // Renamed into a directory that has since moved: nothing to unlink.
  if (realDir === undefined) throw new PathChangedError(path);
  const where = `${realDir === "/" ? "" : realDir}/${
    aside.slice(dir.length + 1)
  }`;
  const moved = lstatOrUndefined(where);
  if (
    realDir !== dir || moved === undefined || moved.ino !== seen.ino ||
    moved.dev !== seen.dev
  ) {
    if (moved !== undefined) putBack(where, name);
    throw new PathChangedError(path);
  }
  try {
    Deno.removeSync(aside);
  } catch (error) {
    // The directory moved between the check and the unlink: the random
    // name is not found through the new one, and the file stays aside.
    if (isMissing(error)) throw new PathChangedError(path);
    throw error;
  }
}

/** Gives a file renamed aside its name back, never replacing another file. */
function putBack(where: string, name: string): void {
  const original = `${parentOf(where)}/${name}`;
  try {
    Deno.linkSync(where, original);
    Deno.removeSync(where);
  } catch {
    // The name was taken meanwhile (or links are refused): leave it aside.
  }
}

function lstatOrUndefined(path: string): Deno.FileInfo | undefined {
  try {
    return Deno.lstatSync(path);
  } catch {
    return undefined;
  }
}

function parentOf(path: string): string {
  return path.slice(0, path.lastIndexOf("/")) || "/";
}

function isMissing(error: unknown): boolean {
  return error instanceof Deno.errors.NotFound ||
    error instanceof Deno.errors.NotADirectory;
}
