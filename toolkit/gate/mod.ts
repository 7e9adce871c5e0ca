/**
 * The forge gate: an MCP proxy that puts a policy between any host and any
 * stdio MCP server. Before each `tools/call` of a tool that answers
 * permission-pattern probes it sends the probe, decides the patterns with a
 * `Policy` (deny beats ask beats allow; a pattern no rule matches is asked),
 * and then forwards the call, refuses it with an `isError` result the model
 * can read, or asks the user with `elicitation/create`. Everything else
 * passes through both ways, ids kept straight. A forwarded call carries the
 * approved patterns in `_meta["forge.approved_patterns"]`, which a toolkit
 * server checks against the patterns it recomputes at call time.
 *
 * From a shell: `deno run -A toolkit/gate/main.ts --policy policy.yaml -- <server
 * command>` (see docs/gate.md). From TypeScript, {@linkcode startGate}.
 *
 * @example Gate hello-tool with a policy, over a pair of streams
 * ```ts
 * import { startGate } from "@forge/toolkit/gate";
 * import { Policy } from "@forge/toolkit/policy";
 *
 * const host = new TransformStream<Uint8Array, Uint8Array>();
 * const answers = new TransformStream<Uint8Array, Uint8Array>();
 * const gate = await startGate(
 *   [Deno.execPath(), "run", "-A", "examples/hello-tool/main.ts"],
 *   {
 *     policy: new Policy({ allow: ["write:notes/**"], deny: ["delete:**"] }),
 *     readable: host.readable,
 *     writable: answers.writable,
 *   },
 * );
 * const writer = host.writable.getWriter();
 * await writer.write(new TextEncoder().encode(
 *   '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"demo","version":"1"}}}\n',
 * ));
 * const reader = answers.readable.pipeThrough(new TextDecoderStream()).getReader();
 * console.log((await reader.read()).value); // the server's initialize answer
 * await writer.close(); // host EOF: the gate closes the server's stdin and ends
 * await reader.cancel();
 * console.log(await gate.finished); // 0
 * ```
 *
 * @module
 */

export { type Gate, type GateOptions, startGate } from "./gate.ts";
export {
  type GateFlow,
  type GatePolicy,
  GatePolicyError,
  type GateServer,
  parseGatePolicy,
} from "./policy/policy_file.ts";
export type { GateAuth } from "./policy/_auth.ts";
export type { GateApprovers, GatePrincipal } from "./policy/_principals.ts";
export type { PrincipalMatch } from "./policy/_claims.ts";
