// Internal: which directories to watch for one config path. A watch on the
// file itself goes deaf as soon as an editor or Kubernetes replaces the file
// (the watch follows the old inode), so we watch directories: the path's own
// parent, the parent of every symlink hop, and the real file's parent. A
// directory that does not exist is stood in for by its nearest existing
// ancestor, so its creation is seen. Each directory is identified by device
// and inode (and birth time) too, because a directory deleted and recreated
// under the same name needs a new watch.

import { dirname, resolve } from "node:path";

/** A directory to watch and its identity when looked at. */
export interface WatchTarget {
  /** An existing directory. */
  dir: string;
  /** Device, inode and birth time (the path where there are no inodes). */
  id: string;
}

// Linux's own limit on symlink hops in one lookup.
const MAX_HOPS = 40;

/** The directories to watch for the absolute path `path`, deduplicated. */
export async function watchTargets(path: string): Promise<WatchTarget[]> {
  const wanted = [dirname(path)];
  let hop = path;
  for (let i = 0; i < MAX_HOPS; i++) {
    let target: string;
    try {
      if (!(await Deno.lstat(hop)).isSymlink) break;
      target = await Deno.readLink(hop);
    } catch {
      break;
    }
    hop = resolve(dirname(hop), target);
    wanted.push(dirname(hop));
  }
  try {
    wanted.push(dirname(await Deno.realPath(path)));
  } catch {
    // Missing or dangling: the lexical parents above are what can change.
  }
  const targets: WatchTarget[] = [];
  for (const dir of wanted) {
    const found = await nearestDirectory(dir);
    if (!targets.some((target) => target.id === found.id)) targets.push(found);
  }
  return targets;
}

async function nearestDirectory(start: string): Promise<WatchTarget> {
  let dir = start;
  while (true) {
    try {
      const info = await Deno.stat(dir);
      if (info.isDirectory) {
        // ext4 hands a recreated directory the inode number it just freed,
        // so the birth time is part of the identity. Windows has no inode
        // numbers; the path must do there.
        const id = info.ino === null
          ? dir
          : `${info.dev}:${info.ino}:${info.birthtime?.getTime() ?? ""}`;
        return { dir, id };
      }
    } catch {
      // Not there or not reachable: try the parent.
    }
    const parent = dirname(dir);
    if (parent === dir) return { dir, id: dir };
    dir = parent;
  }
}
