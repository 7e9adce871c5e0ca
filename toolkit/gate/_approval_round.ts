// Internal: asking a 2026-07-28 host for approval in rounds (SEP-2322).
// That revision sends no requests from server to client, so the gate answers
// the call with an input-required result that holds the question, and the
// host calls again with the user's answer and the gate's signed
// `requestState`. The state binds the answer to the tool, the arguments and
// the patterns the user was asked about, and keeps what the host's call held
// before the gate asked (a server's own round of the same call), which goes
// on to the server with the approved call.

import { isRecord } from "../_util/json_type.ts";
import { sha256Hex } from "../../configreload/_sha256_hex.ts";
import {
  loadRequestSigning,
  RequestStateSigner,
} from "../jsonrpc/_request_state.ts";

/** The key of the gate's question among a round's input requests. */
export const APPROVAL_KEY = "forge-gate/approval";

/** What the host's call held under the two round fields before the gate asked. */
interface Before {
  requestState?: unknown;
  inputResponses?: unknown;
}

/** What the gate signs into its `requestState`. */
interface Asked {
  arguments: string;
  patterns: string[];
  before: Before;
}

/** One 2026-07-28 call, read for the gate's own round. */
export interface ApprovalRound {
  /**
   * The params to send the server: the call's, with the gate's answer and
   * state replaced by what the host's call held before the gate asked.
   */
  readonly params: Record<string, unknown>;
  /**
   * The user's answer (`accept`, `decline`, `cancel`, or `error` for an
   * answer without an action) when this call answers the gate's question
   * about these very arguments and patterns; `undefined` otherwise.
   */
  answer(patterns: readonly string[]): string | undefined;
  /** The input-required result that asks the user `question` about `patterns`. */
  ask(question: string, patterns: readonly string[]): Record<string, unknown>;
}

// One key per gate: only this process issued the states it accepts.
const SIGNER = new RequestStateSigner();

/**
 * Reads a 2026-07-28 `tools/call` for an earlier round of the gate's: its
 * `requestState`, when the gate signed it, and the answer under
 * {@linkcode APPROVAL_KEY}.
 */
export async function readApprovalRound(
  tool: string,
  params: Record<string, unknown>,
): Promise<ApprovalRound> {
  await loadRequestSigning();
  const subject = `tools/call ${tool}`;
  const digest = await argumentsDigest(params.arguments);
  const { requestState, inputResponses, ...rest } = params;
  let asked: Asked | undefined;
  if (requestState !== undefined) {
    try {
      asked = SIGNER.verify(subject, requestState) as unknown as Asked;
    } catch {
      // Not the gate's: a server's own round, which goes on as it came.
    }
  }
  const before: Before = asked?.before ??
    { requestState, inputResponses: withoutApproval(inputResponses) };
  const reply = asked !== undefined && isRecord(inputResponses)
    ? inputResponses[APPROVAL_KEY]
    : undefined;
  return {
    params: { ...rest, ...defined(before) },
    answer(patterns) {
      if (
        asked === undefined || reply === undefined ||
        asked.arguments !== digest || !sameList(asked.patterns, patterns)
      ) {
        return undefined;
      }
      return isRecord(reply) && typeof reply.action === "string"
        ? reply.action
        : "error";
    },
    ask(question, patterns) {
      const state: Asked = {
        arguments: digest,
        patterns: [...patterns],
        before: defined(before),
      };
      return {
        resultType: "input_required",
        inputRequests: {
          [APPROVAL_KEY]: {
            method: "elicitation/create",
            params: {
              message: question,
              requestedSchema: { type: "object", properties: {} },
            },
          },
        },
        requestState: SIGNER.sign(
          subject,
          state as unknown as Record<string, unknown>,
        ),
      };
    },
  };
}

/** SHA-256 of the arguments as sent: a changed argument is another call. */
function argumentsDigest(args: unknown): Promise<string> {
  return sha256Hex(new TextEncoder().encode(JSON.stringify(args ?? null)));
}

/** A host's answers without one to the gate's question, which only the gate reads. */
function withoutApproval(responses: unknown): unknown {
  if (!isRecord(responses) || !Object.hasOwn(responses, APPROVAL_KEY)) {
    return responses;
  }
  const { [APPROVAL_KEY]: _, ...rest } = responses;
  return Object.keys(rest).length === 0 ? undefined : rest;
}

function defined(before: Before): Before {
  const kept: Before = {};
  if (before.requestState !== undefined) {
    kept.requestState = before.requestState;
  }
  if (before.inputResponses !== undefined) {
    kept.inputResponses = before.inputResponses;
  }
  return kept;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}
