import assert from "node:assert/strict";
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
