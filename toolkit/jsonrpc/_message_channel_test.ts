import assert from "node:assert/strict";
import { messageChannel } from "./_message_channel.ts";
import type { JsonRpcMessage } from "./types.ts";

Deno.test("messageChannel() delivers in order, after start, then the end", async () => {
  const [a, b] = messageChannel();
  const got: JsonRpcMessage[] = [];
  const ended = Promise.withResolvers<void>();
  b.onmessage = (message) => got.push(message);
  b.onend = () => ended.resolve();
  await a.send({ jsonrpc: "2.0", method: "one" });
  await a.send({ jsonrpc: "2.0", id: 1, method: "two" });
  await a.close();
  // Nothing arrives before the receiving end starts.
  await Promise.resolve();
  assert.equal(got.length, 0);
  await b.start();
  await ended.promise;
  assert.deepEqual(got.map((m) => "method" in m && m.method), ["one", "two"]);
  await assert.rejects(a.send({ jsonrpc: "2.0", method: "late" }), /closed/);
});

Deno.test("messageChannel() reports a throwing handler and keeps delivering", async () => {
  const [a, b] = messageChannel();
  const errors: Error[] = [];
  const second = Promise.withResolvers<void>();
  b.onmessage = (message) => {
    if ("method" in message && message.method === "bad") throw new Error("x");
    second.resolve();
  };
  b.onerror = (error) => errors.push(error);
  await b.start();
  await a.send({ jsonrpc: "2.0", method: "bad" });
  await a.send({ jsonrpc: "2.0", method: "good" });
  await second.promise;
  assert.equal(errors.length, 1);
});
