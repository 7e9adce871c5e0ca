import assert from "node:assert/strict";
import { hostGuard } from "./host_guard.ts";
import {
  errorOf,
  INITIALIZE,
  initializeHead,
  post,
  rawRequest,
  start,
} from "./_test_helpers.ts";

Deno.test("DNS-rebinding protection refuses a foreign Host or Origin with 403", async (t) => {
  await using http = start();
  const port = http.addr.port;

  await t.step("a foreign Host is refused", async () => {
    const reply = await rawRequest(
      port,
      initializeHead("evil.example.com"),
      JSON.stringify(INITIALIZE),
    );
    assert.equal(reply.status, 403);
    assert.match(reply.text, /Host \\"evil\.example\.com\\" is not allowed/);
  });
  await t.step(
    "a foreign Origin is refused even with a local Host",
    async () => {
      const response = await post(http.url, INITIALIZE, {
        origin: "http://evil.example.com",
      });
      assert.equal(response.status, 403);
      assert.match((await errorOf(response)).message, /Origin/);
    },
  );
  await t.step("the opaque origin null is refused", async () => {
    const response = await post(http.url, INITIALIZE, { origin: "null" });
    assert.equal(response.status, 403);
    await response.body?.cancel();
  });
  await t.step(
    "localhost, 127.0.0.1 and [::1] hosts are accepted",
    async () => {
      for (
        const host of [
          `localhost:${port}`,
          `127.0.0.1:${port}`,
          `[::1]:${port}`,
        ]
      ) {
        const reply = await rawRequest(
          port,
          initializeHead(host, `http://${host}`),
          JSON.stringify(INITIALIZE),
        );
        assert.equal(reply.status, 200, host);
      }
    },
  );
});

Deno.test("DNS-rebinding protection follows allowedHosts and allowedOrigins", async (t) => {
  await using http = start({
    allowedHosts: ["mcp.example.com"],
    allowedOrigins: ["https://app.example.com"],
  });
  const port = http.addr.port;
  await t.step("a configured host is accepted on any port", async () => {
    const reply = await rawRequest(
      port,
      initializeHead("mcp.example.com:443"),
      JSON.stringify(INITIALIZE),
    );
    assert.equal(reply.status, 200);
  });
  await t.step("loopback names are no longer accepted", async () => {
    const reply = await rawRequest(
      port,
      initializeHead(`localhost:${port}`),
      JSON.stringify(INITIALIZE),
    );
    assert.equal(reply.status, 403);
  });
  await t.step("only the configured origins are accepted", async () => {
    const good = await rawRequest(
      port,
      initializeHead("mcp.example.com", "https://app.example.com"),
      JSON.stringify(INITIALIZE),
    );
    assert.equal(good.status, 200);
    const bad = await rawRequest(
      port,
      initializeHead("mcp.example.com", "https://mcp.example.com"),
      JSON.stringify(INITIALIZE),
    );
    assert.equal(bad.status, 403);
  });
});

Deno.test("DNS-rebinding protection can be turned off for a trusted proxy", async () => {
  await using http = start({ dnsRebindingProtection: false });
  const reply = await rawRequest(
    http.addr.port,
    initializeHead("anything.example.com", "https://elsewhere.example.com"),
    JSON.stringify(INITIALIZE),
  );
  assert.equal(reply.status, 200);
});
Deno.test("hostGuard() alone: checks Host and Origin before next", async () => {
  const guard = hostGuard({ allowedHosts: ["api.example.com:8443"] });
  const next = (request: Request) =>
    Promise.resolve(new Response(new URL(request.url).host));
  const good = await guard(
    new Request("https://api.example.com:8443/x", {
      headers: { origin: "https://api.example.com:8443" },
    }),
    next,
  );
  assert.equal(await good.text(), "api.example.com:8443");
  // A host entry with a port accepts that port only.
  const otherPort = await guard(new Request("https://api.example.com/"), next);
  assert.equal(otherPort.status, 403);
  await otherPort.body?.cancel();
  const foreignOrigin = await guard(
    new Request("https://api.example.com:8443/", {
      headers: { origin: "https://evil.example" },
    }),
    next,
  );
  assert.equal(foreignOrigin.status, 403);
  assert.match((await errorOf(foreignOrigin)).message, /Origin/);
  assert.throws(
    () => hostGuard({ allowedHosts: [""] }),
    /allowedHosts entries must be host names/,
  );
  assert.throws(
    () => hostGuard({ allowedHosts: "localhost" as unknown as string[] }),
    TypeError,
  );
});
