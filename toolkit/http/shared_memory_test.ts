import assert from "node:assert/strict";
import { createServer } from "../../mod.ts";
import { createHttpHandler } from "./handler.ts";
import { sessions } from "./sessions.ts";
import { asWorkerd } from "../_util/_workerd_test_helpers.ts";

Deno.test("a handler with sessions is refused on Cloudflare Workers, pointing to stateless mode", async (t) => {
  const server = createServer({ name: "s", version: "1" });
  await asWorkerd(async () => {
    await t.step("createHttpHandler() and sessions() throw", () => {
      for (
        const make of [() => createHttpHandler(server), () => sessions(server)]
      ) {
        assert.throws(make, {
          name: "TypeError",
          message:
            /^Cannot create HTTP handler: sessions \(2025-11-25\) keep state in memory between requests, .*Cloudflare Workers.*stateless: true.*taskStore.*sharedMemory: true$/,
        });
      }
    });
    await t.step(
      "stateless, or sharedMemory (a Durable Object), is served",
      async () => {
        for (const options of [{ stateless: true }, { sharedMemory: true }]) {
          const handler = createHttpHandler(server, options);
          const response = await handler(
            new Request("http://localhost/elsewhere"),
          );
          assert.equal(response.status, 404);
          await response.body?.cancel();
          await handler.close();
        }
      },
    );
  });
  await t.step("elsewhere sessions need no option", async () => {
    const handler = createHttpHandler(server);
    await handler.close();
  });
});
