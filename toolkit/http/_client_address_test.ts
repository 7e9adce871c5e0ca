import assert from "node:assert/strict";
import { clientKey } from "./_client_address.ts";

function tcp(hostname: string) {
  return { remoteAddr: { transport: "tcp" as const, hostname, port: 40000 } };
}

Deno.test("clientKey() counts IPv4 by address and IPv6 by its /64", async (t) => {
  await t.step("IPv4 is its own key", () => {
    assert.equal(clientKey(tcp("203.0.113.7")), "203.0.113.7");
  });
  await t.step("IPv6 addresses in one /64 share a key", () => {
    const a = clientKey(tcp("2001:db8:1:2::1"));
    assert.equal(a, "2001:db8:1:2::/64");
    assert.equal(clientKey(tcp("2001:db8:1:2:ffff:0:0:9")), a);
    assert.equal(clientKey(tcp("[2001:DB8:1:2::5%eth0]")), a);
    assert.notEqual(clientKey(tcp("2001:db8:1:3::1")), a);
    assert.equal(clientKey(tcp("::1")), "0:0:0:0::/64");
  });
  await t.step("an IPv4-mapped IPv6 address is the IPv4 address", () => {
    assert.equal(clientKey(tcp("::ffff:192.0.2.1")), "192.0.2.1");
    assert.equal(clientKey(tcp("::ffff:c000:201")), "192.0.2.1");
  });
  await t.step("something unparsable is kept whole, not merged", () => {
    assert.equal(clientKey(tcp("1:2:3")), "1:2:3");
  });
  await t.step("no address: no key", () => {
    assert.equal(clientKey(undefined), undefined);
    // What Deno.serve hands a handler on a Unix socket.
    const unix: Deno.Addr = { transport: "unix", path: "/tmp/s" };
    assert.equal(clientKey({ remoteAddr: unix }), undefined);
  });
});
