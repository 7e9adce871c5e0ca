// Internal: a path the user typed on the gate's command line, as the user
// meant it. `deno task gate …` runs the gate in the folder of deno.json,
// not in the one the user typed the command in; deno task (like npm)
// says that folder in INIT_CWD. A relative path is resolved against it
// when it is set, and left to the working directory otherwise.

import { isAbsolute, join } from "node:path";

/** Where the environment is read from: `Deno.env`, or a test's. */
export interface Env {
  get(name: string): string | undefined;
}

/** `path` against the folder the command was typed in (`INIT_CWD`), when set. */
export function userPath(path: string, env: Env = Deno.env): string {
  let typedIn: string | undefined;
  try {
    typedIn = env.get("INIT_CWD");
  } catch {
    // No permission to read the environment: the working directory.
    return path;
  }
  if (typedIn === undefined || typedIn === "" || isAbsolute(path)) return path;
  return join(typedIn, path);
}
