import assert from "node:assert/strict";
import type { JsonRpcMessage } from "../jsonrpc/mod.ts";
import {
  callToForward,
  probeParams,
  readProbeAnswer,
} from "./_pattern_meta.ts";
import type { HostRequest } from "./_relay.ts";

const ERA = { "io.modelcontextprotocol/protocolVersion": "2026-07-28" };

function answer(result: Record<string, unknown>): JsonRpcMessage {
  return { jsonrpc: "2.0", id: "forge-gate:1", result };
}

Deno.test("probeParams() asks for the call's patterns in the call's revision", () => {
  assert.deepEqual(
    probeParams({ name: "write", arguments: { path: "a" }, extra: 1 }, ERA),
    {
      name: "write",
      arguments: { path: "a" },
      _meta: { ...ERA, "forge.permission_patterns": true },
    },
  );
});

Deno.test("readProbeAnswer() reads the always patterns first, then the call's", () => {
  const read = readProbeAnswer(
    answer({
      _meta: { "forge.patterns": ["write:a"], "forge.always": ["net:x"] },
    }),
    "write",
    undefined,
  );
  assert.deepEqual(read, { patterns: ["net:x", "write:a"] });
});

Deno.test("readProbeAnswer() passes the probe's error and isError result back as they came", () => {
  const error = { code: -32602, message: "bad" };
  assert.deepEqual(
    readProbeAnswer({ jsonrpc: "2.0", id: 1, error }, "write", undefined),
    { reply: { error } },
  );
  const result = { content: [], isError: true };
  assert.deepEqual(readProbeAnswer(answer(result), "write", undefined), {
    reply: { result },
  });
});

Deno.test("readProbeAnswer() refuses an answer without patterns, complete for a 2026-07-28 call", () => {
  for (
    const [result, why] of [
      [{}, "carries no _meta with forge.patterns"],
      [{ _meta: { "forge.patterns": "a" } }, "has no list of strings"],
      [
        { _meta: { "forge.patterns": [], "forge.always": [1] } },
        "has something other than a list of strings",
      ],
    ] as const
  ) {
    const read = readProbeAnswer(answer(result), "write", ERA);
    assert.ok("reply" in read && "result" in read.reply);
    const refused = read.reply.result;
    assert.equal(refused.isError, true);
    assert.equal(refused.resultType, "complete");
    const [{ text }] = refused.content as { text: string }[];
    assert.match(text, /^The gate cannot check this call of write/);
    assert.ok(text.includes(why), text);
  }
});

Deno.test("callToForward() sets the approved patterns and drops the host's own", () => {
  const call: HostRequest = {
    jsonrpc: "2.0",
    id: 7,
    method: "tools/call",
    params: {
      name: "write",
      _meta: { "forge.approved_patterns": ["**"], progressToken: 1 },
    },
  };
  assert.deepEqual(callToForward(call, ["write:a"]).params?._meta, {
    progressToken: 1,
    "forge.approved_patterns": ["write:a"],
  });
  assert.deepEqual(callToForward(call, undefined).params?._meta, {
    progressToken: 1,
  });
  assert.equal(callToForward(call, undefined, { strip: false }), call);
});

Deno.test("callToForward() sends a round's params, and an untouched call as it came", () => {
  const call: HostRequest = {
    jsonrpc: "2.0",
    id: 7,
    method: "tools/call",
    params: { name: "write", requestState: "gate's" },
  };
  assert.equal(callToForward(call, undefined), call);
  const params = { name: "write" };
  assert.deepEqual(callToForward(call, undefined, { params }), {
    ...call,
    params,
  });
  assert.deepEqual(callToForward(call, [], { params }).params, {
    name: "write",
    _meta: { "forge.approved_patterns": [] },
  });
});
