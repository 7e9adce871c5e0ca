import assert from "node:assert/strict";
import { netAccess } from "./net.ts";
import { check, type Expect, refused } from "./_testing.ts";
import { ToolError } from "../result/result.ts";

const NET_CASES: [string, string, Expect, string?][] = [
  [
    "case, trailing dot and default port",
    "https://EXAMPLE.com.:443/a",
    ["net:https://example.com"],
    "https://example.com/a",
  ],
  [
    "userinfo hiding another host",
    "https://u:p@evil.com@good.com/",
    refused(
      /^url: "https:\/\/u:p@evil.com@good.com\/" carries user information/,
    ),
  ],
  ["empty userinfo", "http://@x.com", refused(/carries user information/)],
  [
    "a decimal IPv4",
    "http://2130706433/",
    ["net:http://127.0.0.1"],
    "http://127.0.0.1/",
  ],
  ["a hex short IPv4", "http://0x7f.1/", ["net:http://127.0.0.1"]],
  ["a short IPv4", "http://127.1", ["net:http://127.0.0.1"]],
  ["an octal IPv4", "http://0177.0.0.1", ["net:http://127.0.0.1"]],
  [
    "an IPv4-mapped IPv6",
    "http://[::ffff:127.0.0.1]:8080/x",
    ["net:http://127.0.0.1:8080"],
    "http://127.0.0.1:8080/x",
  ],
  ["a long IPv6", "http://[0:0::1]/", ["net:http://\\[::1\\]"]],
  [
    "an IDN host is punycoded",
    "https://b\u00fccher.de",
    ["net:https://xn--bcher-kva.de"],
    "https://xn--bcher-kva.de/",
  ],
  [
    "a wildcard host",
    "https://*.example.com",
    refused(/contains "\*": expected one concrete host/),
  ],
  [
    "a javascript: URL",
    "javascript:alert(1)",
    refused(
      /^url: scheme "javascript:" of "javascript:alert\(1\)" is refused: expected http, https, ws or wss$/,
    ),
  ],
  ["a file: URL", "file:///etc/passwd", refused(/scheme "file:"/)],
  ["an ftp: URL", "ftp://x.com/", refused(/scheme "ftp:"/)],
  [
    "a percent escape in the host",
    "http://ex%61mple.com/",
    refused(/contains "%": expected a plain host name/),
  ],
  ["ws default port", "ws://x.com:80", ["net:ws://x.com"]],
  ["wss other port", "wss://x.com:8443", ["net:wss://x.com:8443"]],
  ["upper-case scheme and host", "HTTP://X.COM", ["net:http://x.com"]],
  [
    "no scheme",
    "example.com",
    refused(
      /^url: "example.com" is not an absolute URL: expected scheme:\/\/host/,
    ),
  ],
  ["an empty label", "http://a..b/", refused(/has an empty label/)],
  ["a leading dot", "http://.a.com/", refused(/has an empty label/)],
  ["a bang in the host", "http://a!b.com/", refused(/contains "!"/)],
  ["braces in the host", "http://a{b}.com/", refused(/contains "\{"/)],
  [
    "a control character",
    "http://x.com/\n",
    refused(/contains the control character U\+000A/),
  ],
  [
    "backslashes as slashes",
    "http:\\\\x.com\\y",
    ["net:http://x.com"],
    "http://x.com/y",
  ],
  ["query and fragment are not in the pattern", "https://x.com/p?q=1#f", [
    "net:https://x.com",
  ], "https://x.com/p?q=1#f"],
];

Deno.test("netAccess() names each spelling of a host by one pattern and keeps the URL to fetch", async (t) => {
  for (const [name, input, expect, href] of NET_CASES) {
    await t.step(`${name}: ${JSON.stringify(input)}`, () => {
      check(() => netAccess(input).patterns, expect);
      if (href !== undefined) assert.equal(netAccess(input).url.href, href);
    });
  }
});

Deno.test("netAccess() honours its options", async (t) => {
  await t.step("schemes restricts what is accepted", () => {
    assert.throws(
      () => netAccess("http://x.com", { schemes: ["https"] }),
      new ToolError(
        'url: scheme "http:" of "http://x.com" is refused: expected https',
      ),
    );
    assert.deepEqual(
      netAccess("https://x.com", { schemes: ["https"] }).patterns,
      [
        "net:https://x.com",
      ],
    );
  });
  await t.step("an unknown scheme option is a RangeError", () => {
    assert.throws(
      () => netAccess("https://x.com", { schemes: ["ftp" as "http"] }),
      RangeError,
    );
  });
  await t.step("argument names the argument in messages", () => {
    assert.throws(
      () => netAccess("nope", { argument: "endpoint" }),
      /^ToolError: endpoint: "nope" is not an absolute URL/,
    );
  });
  await t.step("the URL cannot be changed through the target", () => {
    const target = netAccess("https://x.com/a");
    target.url.hostname = "evil.com";
    assert.equal(target.url.href, "https://x.com/a");
  });
});
