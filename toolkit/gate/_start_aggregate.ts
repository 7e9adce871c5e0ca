// Internal: startGate() for a policy that names its servers. Each entry of
// `servers:` gets a gate of its own (_server_gate.ts) deciding by the
// entry's view of the policy (_policy_source.ts serverPolicy; for a caller
// identified by its token, the caller's view of the entry,
// _caller_source.ts callerPolicySource), its own
// pins, its fence, and the audit lines naming it; the flows of the
// session are one for all of them. The aggregate (_aggregate.ts) stands in
// front.

import { dirname, resolve } from "node:path";
import type { Decision } from "../policy/mod.ts";
import { Aggregate } from "./aggregate/_aggregate.ts";
import { type AuditLog, serverAudit } from "./audit/_audit.ts";
import { messageOf } from "./_log.ts";
import type { RedisPinStores } from "./pins/_pin_store.ts";
import { Pins } from "./pins/_pins.ts";
import { FlowSession } from "./policy/_flows.ts";
import type { FlowStore } from "./_flow_store.ts";
import type { RememberedStore } from "./_remembered_store.ts";
import type { SharedRounds } from "./_approval_round.ts";
import { type PolicySource, serverPolicy } from "./policy/_policy_source.ts";
import type { GateServer } from "./policy/policy_file.ts";
import type { CallerClaims } from "./policy/_claims.ts";
import { callerPolicySource } from "./policy/_caller_source.ts";
import { expandVariables } from "./policy/_servers.ts";
import { startServerGate } from "./_server_gate.ts";
import { auditCaller } from "./_audit_caller.ts";
import type { GateTelemetry } from "./_telemetry.ts";
import type { MessageTransport } from "../jsonrpc/_message_channel.ts";
import type { CallerApprovals } from "./_approval_routes.ts";

/** How long a server may take to answer the host's initialize before it counts as down. */
export const START_TIMEOUT_MS = 10_000;

/** How long a server that is up may take to answer a ping before it counts as hung. */
export const PING_TIMEOUT_MS = 10_000;

/** What the aggregate's servers share. */
export interface AggregateStart {
  source: PolicySource;
  audit: AuditLog | undefined;
  log: (line: string) => void;
  /** The policy file, which pins paths are relative to. */
  policyPath: string;
  defaults: { unprobed: Decision; tools: ReadonlyMap<string, Decision> };
  newTools?: Decision;
  graceMs: number;
  approvalTtlMs: number;
  /** What the gates of an HTTP gate share for approval rounds. */
  rounds?: SharedRounds;
  readable?: ReadableStream<Uint8Array>;
  writable?: WritableStream<Uint8Array>;
  /** The host as a connection of parsed messages, instead of the streams. */
  host?: MessageTransport;
  telemetry?: GateTelemetry;
  /**
   * Whether the aggregate's end closes the policy source and the audit;
   * the gates of an HTTP gate's sessions share them and leave them open.
   *
   * @default {true}
   */
  closeShared?: boolean;
  /** Whether an approval may last for the rest of the session. */
  remember?: boolean;
  /** Where the caller's flow history lives, shared by gate instances (`--redis`). */
  flowStore?: FlowStore;
  /** Where remembered approvals live, shared by gate instances (`--redis`); each server's apart. */
  rememberedStore?: RememberedStore;
  /** How long a server may take to answer initialize. */
  startTimeoutMs?: number;
  /** How long a server that is up may take to answer a ping. */
  pingTimeoutMs?: number;
  /**
   * The caller the aggregate serves, identified by its token (`auth:`):
   * each server's gate decides by the caller's view of its entry and
   * leaves out of its list the tools the caller can never run. Without
   * it, each decides by the entry's view (serverPolicy).
   */
  caller?: { claims: CallerClaims | undefined };
  /** The approval page of a gate served over HTTP, for this gate's caller. */
  approvals?: CallerApprovals;
  /** Where the servers' pins live when not in their files alone (Redis). */
  pinStores?: RedisPinStores;
}

/**
 * Starts every server of `servers` behind its own gate and the aggregate
 * in front of them. A server that cannot start is down and retried, as
 * one that dies later; two servers under the empty prefix that list one
 * name refuse the start, naming both.
 */
export async function startAggregate(
  servers: ReadonlyMap<string, GateServer>,
  options: AggregateStart,
): Promise<Aggregate> {
  const { source, audit, log } = options;
  const flows = new FlowSession();
  const claims = options.caller?.claims;
  const caller = claims === undefined ? undefined : auditCaller(claims, source);
  const env = (name: string) => Deno.env.get(name);
  // Every ${NAME} is filled before anything starts: a missing one is
  // said at once, not as a server that keeps failing.
  const filled = [...servers.values()].map((server) => ({
    server,
    headers: server.headers.map(([key, value]) =>
      [
        key,
        expandVariables(value, env, `servers.${server.name}.headers.${key}`),
      ] as const
    ),
    env: Object.fromEntries(
      Object.entries(server.env).map(([key, value]) => [
        key,
        expandVariables(value, env, `servers.${server.name}.env.${key}`),
      ]),
    ),
  }));
  const aggregate = new Aggregate(
    filled.map(({ server, headers, env }) => ({
      name: server.name,
      prefix: server.prefix,
      pingIntervalMs: server.ping * 1000,
      start: async (host) => {
        const said = (line: string) => log(`server "${server.name}": ${line}`);
        const sink = audit === undefined
          ? undefined
          : serverAudit(audit, server.name);
        const view = options.caller === undefined
          ? serverPolicy(source, server.name, options.defaults)
          : callerPolicySource(source, options.caller.claims, {
            server: server.name,
            defaults: options.defaults,
          });
        const pinsPath = view.current().file?.pins;
        const pinsFile = pinsPath === undefined
          ? undefined
          : resolve(dirname(options.policyPath), pinsPath);
        const pins = pinsFile === undefined
          ? undefined
          : await (async () =>
            Pins.open(pinsFile, {
              newTools: options.newTools,
              audit: sink,
              log: said,
              ...(options.pinStores === undefined
                ? {}
                : { store: await options.pinStores.open(pinsFile) }),
            }))().catch((error) => {
              throw new Error(`Cannot read the pins: ${messageOf(error)}`);
            });
        try {
          const gate = await startServerGate(server.command ?? [], {
            url: server.url,
            headers,
            env,
          }, {
            source: view,
            audit: sink,
            log: said,
            pins,
            graceMs: options.graceMs,
            approvalTtlMs: options.approvalTtlMs,
            ...(options.rounds === undefined ? {} : { rounds: options.rounds }),
            host,
            telemetry: options.telemetry,
            remember: options.remember,
            approvals: options.approvals,
            flows,
            ...(options.flowStore === undefined
              ? {}
              : { flowStore: options.flowStore }),
            ...(options.rememberedStore === undefined
              ? {}
              : { rememberedStore: options.rememberedStore }),
            server: { name: server.name, prefix: server.prefix },
            ...(caller === undefined ? {} : { caller }),
            closeShared: false,
            hideNeverRun: options.caller !== undefined,
          });
          return {
            finished: gate.finished.finally(() => pins?.close()),
            close: () => gate.close(),
          };
        } catch (error) {
          await pins?.close();
          throw error;
        }
      },
    })),
    {
      log,
      readable: options.readable,
      writable: options.writable,
      host: options.host,
      startTimeoutMs: options.startTimeoutMs ?? START_TIMEOUT_MS,
      pingTimeoutMs: options.pingTimeoutMs ?? PING_TIMEOUT_MS,
      ended: options.closeShared === false ? undefined : async () => {
        await source.close().catch(() => {});
        await audit?.close();
      },
    },
  );
  await aggregate.start();
  try {
    await aggregate.checkNames();
  } catch (error) {
    await aggregate.close();
    throw error;
  }
  return aggregate;
}
