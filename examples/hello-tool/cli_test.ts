import assert from "node:assert/strict";
import { parseCommandLine, UsageError } from "./cli.ts";

Deno.test("parseCommandLine() serves stdio by default and HTTP on --http [host:]port", async (t) => {
  await t.step("no arguments: stdio", () => {
    assert.deepEqual(parseCommandLine([]), { kind: "stdio" });
  });
  await t.step("a bare port listens on 127.0.0.1", () => {
    assert.deepEqual(parseCommandLine(["--http", "8080"]), {
      kind: "http",
      address: { hostname: "127.0.0.1", port: 8080 },
    });
  });
  await t.step("host:port and --http=host:port", () => {
    const expected = {
      kind: "http",
      address: { hostname: "0.0.0.0", port: 3000 },
    };
    assert.deepEqual(parseCommandLine(["--http", "0.0.0.0:3000"]), expected);
    assert.deepEqual(parseCommandLine(["--http=0.0.0.0:3000"]), expected);
  });
  await t.step("a bracketed IPv6 host and port 0", () => {
    assert.deepEqual(parseCommandLine(["--http", "[::1]:0"]), {
      kind: "http",
      address: { hostname: "::1", port: 0 },
    });
  });
  await t.step("--help and -h win over everything else", () => {
    assert.deepEqual(parseCommandLine(["--http", "1", "--help"]), {
      kind: "help",
    });
    assert.deepEqual(parseCommandLine(["-h"]), { kind: "help" });
  });
});

Deno.test("parseCommandLine() says what is wrong with a bad command line", async (t) => {
  const cases: [string, string[], RegExp][] = [
    [
      "an unknown flag",
      ["--port", "1"],
      /Invalid argument: "--port": expected --http/,
    ],
    [
      "--http without an address",
      ["--http"],
      /missing address: expected \[host:\]port/,
    ],
    ["--http followed by a flag", ["--http", "--help"], /missing address/],
    [
      "a port that is not a number",
      ["--http", "web"],
      /port must be a whole number from 0 to 65535, got "web"/,
    ],
    [
      "a port out of range",
      ["--http", "65536"],
      /from 0 to 65535, got "65536"/,
    ],
    ["a negative port", ["--http", "localhost:-1"], /got "-1"/],
    ["an empty host", ["--http", ":80"], /the host is empty/],
    ["an unbracketed IPv6 host", ["--http", "::1:80"], /must be in brackets/],
  ];
  for (const [name, args, message] of cases) {
    await t.step(name, () => {
      assert.throws(() => parseCommandLine(args), (error: Error) => {
        assert.ok(error instanceof UsageError);
        assert.match(error.message, message);
        return true;
      });
    });
  }
});
