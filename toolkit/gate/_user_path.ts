// Internal: a path the user typed on the gate's command line, as the user
// meant it. `deno task gate …` runs the gate in the folder of deno.json,
// not in the one the user typed the command in. deno task (like npm) says
// that folder in INIT_CWD, but INIT_CWD is inherited by every process a
// task starts, so a gate started any other way (a bundle run by a host
// that an npm script started, say) would read it too. So the gate task
// alone passes it on, as FORGE_GATE_TYPED_IN, and the gate takes it out of
// its environment before it starts the server.

import { isAbsolute, join } from "node:path";

/** The variable the `gate` task of deno.json sets to its INIT_CWD. */
export const TYPED_IN = "FORGE_GATE_TYPED_IN";

/** Where the environment is read from: `Deno.env`, or a test's. */
export interface Env {
  get(name: string): string | undefined;
  delete(name: string): void;
}

/**
 * The folder the gate task was typed in, removed from the environment so
 * that the server (another gate, perhaps) does not inherit it; `undefined`
 * when the gate was not started by its task.
 */
export function takeTypedIn(env: Env = Deno.env): string | undefined {
  try {
    const typedIn = env.get(TYPED_IN);
    env.delete(TYPED_IN);
    return typedIn === "" ? undefined : typedIn;
  } catch {
    // No permission to read the environment: the working directory.
    return undefined;
  }
}

/** `path` against the folder the command was typed in, when there is one. */
export function userPath(path: string, typedIn: string | undefined): string {
  return typedIn === undefined || isAbsolute(path) ? path : join(typedIn, path);
}
