// For the tests of gate instances served over HTTP in this process: a
// gate (startGate with `listen`) on a free loopback port, running the
// policy `gate.yaml` of a directory and writing its own audit log there.

import { startGate } from "../gate.ts";
import { FAKE_COMMAND } from "./gate_process.ts";

/** What {@linkcode gateInstance} starts with. */
export interface GateInstanceOptions {
  /** The Redis the instances share; none without it. */
  redis?: string;
  /** The server behind it; none for a policy that names its servers. @default {FAKE_COMMAND} */
  command?: readonly string[];
  /** The gate's lines. @default {nothing} */
  log?: (line: string) => void;
}

/** A gate instance on a free port running `dir`/gate.yaml, its audit log `dir`/`name`.jsonl. */
export async function gateInstance(
  dir: string,
  name: string,
  options: GateInstanceOptions = {},
): Promise<{ url: URL; audit: string } & AsyncDisposable> {
  const { redis, command = FAKE_COMMAND, log = () => {} } = options;
  const audit = `${dir}/${name}.jsonl`;
  const gate = await startGate([...command], {
    policy: `${dir}/gate.yaml`,
    listen: "127.0.0.1:0",
    audit,
    ...(redis === undefined ? {} : { redis }),
    log,
  });
  return {
    url: gate.url!,
    audit,
    async [Symbol.asyncDispose]() {
      await gate.close();
    },
  };
}
