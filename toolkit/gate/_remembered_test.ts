import assert from "node:assert/strict";
import { Policy } from "../policy/mod.ts";
import {
  approvalSchema,
  RememberedApprovals,
  remembersSession,
} from "./_remembered.ts";

Deno.test("RememberedApprovals covers a call only when every pattern was remembered, exactly", () => {
  const remembered = new RememberedApprovals();
  remembered.remember(["write:notes/a", "x-fake:always"]);
  assert.equal(remembered.covers(["write:notes/a"]), true);
  assert.equal(remembered.covers(["x-fake:always", "write:notes/a"]), true);
  assert.equal(remembered.covers(["write:notes/a", "write:notes/b"]), false);
  // No widening: a remembered pattern is not a glob.
  assert.equal(remembered.covers(["write:notes/a/b"]), false);
  // A call without patterns is decided by name: nothing covers it.
  assert.equal(remembered.covers([]), false);
});

Deno.test("RememberedApprovals remembers only calls with canonical patterns", () => {
  const remembered = new RememberedApprovals();
  const policy = new Policy({});
  assert.equal(remembered.canRemember(["write:notes/a"], policy), true);
  assert.equal(remembered.canRemember([], policy), false);
  assert.equal(remembered.canRemember(["write:notes/../a"], policy), false);
});

interface Field {
  enum: string[];
  enumNames: string[];
  default: string;
}

Deno.test("approvalSchema offers the scope only when asked to; remembersSession reads it", () => {
  assert.deepEqual(approvalSchema(false), { type: "object", properties: {} });
  const field = (approvalSchema(true).properties as Record<string, Field>)
    .remember;
  assert.deepEqual(field.enum, ["call", "session"]);
  assert.equal(field.default, "call");
  assert.match(field.enumNames[1], /rest of the session/);
  assert.equal(
    remembersSession({ action: "accept", content: { remember: "session" } }),
    true,
  );
  assert.equal(
    remembersSession({ action: "accept", content: { remember: "call" } }),
    false,
  );
  assert.equal(remembersSession({ action: "accept" }), false);
  assert.equal(remembersSession(null), false);
});
