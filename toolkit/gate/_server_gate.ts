// Internal: one server behind a gate: spawned (in its fence, when the
// policy says so) or reached at its URL, with a RunningGate in front of it.
// startGate() starts one for the host; the aggregate of servers one per
// entry of `servers:`, each with its policy view and its host side an
// in-process channel.

import type { AuditSandboxEvent, AuditSink } from "./audit/_audit.ts";
import { messageOf } from "./_log.ts";
import { type ServerProcess, spawnServer } from "./upstream/_server_process.ts";
import type { PolicySource } from "./policy/_policy_source.ts";
import { RunningGate, type RunningGateOptions } from "./_running_gate.ts";
import { connectHttpServer } from "./upstream/_http_server.ts";
import type { GatePolicy } from "./policy/policy_file.ts";
import { describeFence, type FenceInput } from "./upstream/_fence.ts";
import {
  sandboxCommand,
  type SandboxedCommand,
  SandboxError,
} from "./upstream/_sandbox.ts";

/** How the server is reached, and what it is given. */
export interface ServerConnection {
  /** A remote server's Streamable HTTP endpoint (the command is then `[]`). */
  url?: string;
  /** Headers sent with every request to `url`. */
  headers?: readonly (readonly [string, string])[];
  /** Variables added to a spawned server's environment. */
  env?: Record<string, string>;
  /** The sandbox option (else the policy file's `sandbox`). */
  sandbox?: boolean | { env?: readonly string[] };
}

/** What the gate in front of the server runs with (its policy, audit, host). */
export interface ServerGateOptions extends RunningGateOptions {
  /** The policy in force, which the fence is derived from. */
  source: PolicySource;
  /** Where the sandbox's line goes, besides the calls'. */
  audit: AuditSink | undefined;
}

/**
 * Starts the server (`command`, or `connection.url`) and a running gate in
 * front of it. A sandboxed server is restarted in a new fence when a
 * reload changes its fence.
 *
 * @throws {SandboxError} When the sandbox is asked for and cannot be had.
 * @throws {Error} When the server cannot be started.
 */
export async function startServerGate(
  command: readonly string[],
  connection: ServerConnection,
  options: ServerGateOptions,
): Promise<RunningGate> {
  const { source, audit, log } = options;
  const remote = connection.url !== undefined;
  let child: ServerProcess;
  let fenced: Fenced | undefined;
  try {
    fenced = await fenceOf(command, connection, source, { remote, log });
    if (fenced !== undefined) await audit?.write(sandboxEvent(fenced));
    child = remote
      ? connectHttpServer(connection.url!, {
        headers: connection.headers,
        log,
      })
      : fenced !== undefined
      ? await spawnServer(fenced.command, fenced.env, { replaceEnv: true })
      : await spawnServer(command, connection.env);
  } catch (error) {
    if (error instanceof SandboxError) throw error;
    const why = error instanceof Deno.errors.NotFound
      ? `command not found: ${command[0]}`
      : messageOf(error);
    throw new Error(`Cannot start the server: ${why}`);
  }
  const gate = new RunningGate(child, options);
  gate.start();
  if (fenced !== undefined) {
    followFence(gate, fenced, { source, audit, log, added: connection.env });
  }
  return gate;
}

/** A fenced command, and how the fence is derived from a version of the policy file. */
interface Fenced extends SandboxedCommand {
  input: (file: GatePolicy) => FenceInput;
}

/** The audit's line for a server started in `fenced`'s fence. */
function sandboxEvent(fenced: SandboxedCommand): AuditSandboxEvent {
  return {
    time: new Date().toISOString(),
    event: "sandbox",
    digest: fenced.digest,
    network: fenced.fence.network.shared,
    writable: fenced.fence.mounts.filter((m) => m.kind === "rw").map((m) =>
      m.path
    ),
  };
}

/**
 * A reload whose fence differs restarts the server in the new fence, once
 * the calls under way have finished, with lines on stderr and a new
 * `sandbox` line in the audit.
 */
function followFence(
  gate: RunningGate,
  first: Fenced,
  context: {
    source: PolicySource;
    audit: AuditSink | undefined;
    log: (line: string) => void;
    added: Record<string, string> | undefined;
  },
): void {
  const { log } = context;
  let latest = first.digest;
  const stop = context.source.onReload?.((file) => {
    sandboxCommand(first.input(file), { added: context.added }).then(
      (next) => {
        if (next.digest === latest) return;
        const from = latest;
        latest = next.digest;
        log(
          `sandbox: the reloaded policy's fence differs (${from} -> ${next.digest}): restarting the server once the calls under way finish`,
        );
        for (const line of describeFence(next.fence)) log(`sandbox: ${line}`);
        return gate.restartServer(async () => {
          const child = await spawnServer(next.command, next.env, {
            replaceEnv: true,
          });
          await context.audit?.write(sandboxEvent(next));
          log(
            `sandbox: the server restarted in its new fence (${next.digest})`,
          );
          return child;
        });
      },
    ).catch((error) =>
      log(
        `sandbox: cannot derive the reloaded policy's fence: ${
          messageOf(error)
        }; the server keeps its fence`,
      )
    );
  });
  // Each session of a gate served over HTTP has its own server and gate:
  // an ended one must not be held by the policy file's listeners.
  if (stop !== undefined) gate.finished.then(stop, stop);
}

/**
 * The fenced command when the sandbox is on (the option, else the policy
 * file's `sandbox`), logged; `undefined` when it is off.
 */
async function fenceOf(
  command: readonly string[],
  options: ServerConnection,
  source: PolicySource,
  context: { remote: boolean; log: (line: string) => void },
): Promise<Fenced | undefined> {
  const file = source.current().file;
  const wanted = options.sandbox ?? file?.sandbox;
  if (!wanted) return undefined;
  if (context.remote) {
    throw new SandboxError(
      "Cannot start the gate: the policy file says sandbox, but a url server cannot be sandboxed: the fence is for a server the gate spawns (run it fenced where it runs)",
    );
  }
  if (file === undefined) {
    throw new SandboxError(
      "Cannot start the gate: sandbox needs a policy file: the fence is derived from its rules and roots",
    );
  }
  const input = (from: GatePolicy) => ({
    rules: from.rules,
    roots: from.roots ?? [],
    command,
    env: [
      ...(typeof wanted === "object" ? wanted.env ?? [] : []),
      ...(from.sandbox?.env ?? []),
      ...Object.keys(options.env ?? {}),
    ],
  });
  const fenced = await sandboxCommand(input(file), { added: options.env });
  for (const line of describeFence(fenced.fence)) {
    context.log(`sandbox: ${line}`);
  }
  return { ...fenced, input };
}
