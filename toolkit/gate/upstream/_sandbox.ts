// Internal: a fence (_fence.ts) as a bubblewrap command line, and the
// check that bubblewrap can run here. A sandbox that cannot be built is an
// error, never a server started without it.

import { join } from "node:path";
import {
  deriveFence,
  type Fence,
  fenceDigest,
  type FenceInput,
  PRIVATE_DIRS,
} from "./_fence.ts";

/** The line that installs bubblewrap, named in every refusal. */
export const INSTALL_LINE = "apt-get install bubblewrap";

/** Why the gate cannot fence a server. */
export class SandboxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SandboxError";
  }
}

/**
 * The path of `bwrap` on `path` (the gate's PATH), or a
 * {@linkcode SandboxError} naming the install line when it is missing or
 * the platform is not Linux.
 */
export function findBwrap(
  path: string | undefined = Deno.env.get("PATH"),
  os: string = Deno.build.os,
): string {
  if (os !== "linux") {
    throw new SandboxError(
      `Cannot sandbox the server: the sandbox needs Linux and bubblewrap, and this is ${os}; the server is not started unfenced`,
    );
  }
  for (const dir of (path ?? "").split(":")) {
    if (dir === "") continue;
    const candidate = join(dir, "bwrap");
    try {
      if (Deno.statSync(candidate).isFile) return candidate;
    } catch {
      // Not here.
    }
  }
  throw new SandboxError(
    `Cannot sandbox the server: bubblewrap (bwrap) is not installed: install it with \`${INSTALL_LINE}\` (Debian, Ubuntu); the server is not started unfenced`,
  );
}

/**
 * bubblewrap's arguments for `fence`, followed by `--` and `command`. The
 * environment is not among them: it is the process's own (so no value shows
 * in the process list).
 */
export function bwrapArgs(fence: Fence, command: readonly string[]): string[] {
  const args = [
    // Namespaces of its own (user, pid, ipc, uts, cgroup, and the network
    // unless shared); no root or setuid needed where user namespaces are on.
    "--unshare-all",
    ...(fence.network.shared ? ["--share-net"] : []),
    // Gone with bwrap, which the gate's process group and watchdog reach.
    "--die-with-parent",
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
  ];
  for (const dir of PRIVATE_DIRS) args.push("--tmpfs", dir);
  for (const mount of fence.mounts) {
    if (mount.kind === "ro") args.push("--ro-bind", mount.path, mount.path);
    else if (mount.kind === "rw") args.push("--bind", mount.path, mount.path);
    else if (mount.kind === "hide") {
      args.push("--tmpfs", mount.path, "--remount-ro", mount.path);
    } else args.push("--ro-bind", "/dev/null", mount.path);
  }
  args.push("--", ...command);
  return args;
}

/** A server's command wrapped in its fence, ready to spawn. */
export interface SandboxedCommand {
  /** `bwrap …fence… -- command`. */
  command: string[];
  /** The server's whole environment (the fence's, plus the gate's `env` option). */
  env: Record<string, string>;
  fence: Fence;
  /** {@linkcode fenceDigest} of the fence. */
  digest: string;
}

/**
 * Derives the fence of `input.command` and wraps the command in it;
 * `added` are the variables the gate's `env` option gives the server
 * (named, so passed on). Throws a {@linkcode SandboxError} where
 * bubblewrap cannot run.
 */
export async function sandboxCommand(
  input: FenceInput,
  options: {
    added?: Readonly<Record<string, string>>;
    environment?: Readonly<Record<string, string>>;
  } = {},
): Promise<SandboxedCommand> {
  const environment = options.environment ?? Deno.env.toObject();
  const bwrap = findBwrap(environment.PATH);
  const fence = await deriveFence(input, { environment });
  const env = { ...fence.env, ...options.added };
  return {
    command: [bwrap, ...bwrapArgs(fence, input.command)],
    env,
    fence,
    digest: fenceDigest(fence),
  };
}
