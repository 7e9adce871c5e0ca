import assert from "node:assert/strict";
import { canonicalPath, fileAccess } from "./file.ts";
import { escapeGlob } from "./escape.ts";
import { execAccess } from "./exec.ts";
import { checkPattern } from "../../validate/_pattern_grammar.ts";
import { check, type Expect, prng, refused } from "./_testing.ts";
import { Policy } from "../policy/policy.ts";
import { text, ToolError } from "../result/result.ts";
import { createServer } from "../server/server.ts";
import { registerPatternTool } from "../probe.ts";
import { connect } from "../testing/testing.ts";
import { z } from "zod";

// Root /w, no file system: the lexical rules. Each case: input → pattern.
const PATH_CASES: [string, string, Expect][] = [
  ["a dot-dot inside the root collapses", "./sub/../a.txt", "write:a.txt"],
  ["a doubled slash collapses", "sub//a.txt", "write:sub/a.txt"],
  [
    "a dot-dot leaving the root is refused",
    "../secret",
    refused(
      /^path: "\.\.\/secret" leaves the root \/w: expected a path inside it$/,
    ),
  ],
  [
    "an absolute path inside the root is relative",
    "/w/src/x.ts",
    "write:src/x.ts",
  ],
  [
    "a sibling sharing the prefix stays outside",
    "/w-evil/x",
    "write:/w-evil/x",
  ],
  ["a longer sibling name stays outside", "/wx", "write:/wx"],
  [
    "a NUL is refused",
    "a\0.txt",
    refused(/^path: "a\\u0000.txt" contains a NUL character at offset 1: /),
  ],
  ["a file named * is escaped", "*", "write:\\*"],
  ["brackets in a name are escaped", "src/[ab].ts", "write:src/\\[ab\\].ts"],
  ["braces in a name are escaped", "{a,b}.txt", "write:\\{a,b\\}.txt"],
  ["a question mark is escaped", "a?.txt", "write:a\\?.txt"],
  ["a backslash is escaped", "back\\slash", "write:back\\\\slash"],
  ["a ** name is two escaped stars", "**/x", "write:\\*\\*/x"],
  ["an NFD name becomes NFC", "cafe\u0301.txt", "write:caf\u00e9.txt"],
  ["an NFC name stays NFC", "caf\u00e9.txt", "write:caf\u00e9.txt"],
  [
    "an empty path is refused",
    "",
    refused(/^path: the path is empty: expected a file path/),
  ],
  ["the root itself is .", ".", "write:."],
  ["the root spelled absolutely is .", "/w", "write:."],
  ["the root with a trailing slash is .", "/w/", "write:."],
  ["a name and its dot-dot is the root", "sub/..", "write:."],
  ["a lone ./ is the root", "./", "write:."],
  [
    "an absolute dot-dot out of the root is refused",
    "/w/..",
    refused(/^path: "\/w\/\.\." leaves the root \/w/),
  ],
  [
    "a deeper dot-dot out of the root is refused",
    "a/../../b",
    refused(/leaves the root \/w/),
  ],
  [
    "an absolute climb out through the root is refused",
    "/w/a/../../etc/passwd",
    refused(/leaves the root \/w/),
  ],
  ["an absolute path entering the root is relative", "/etc/../w/a", "write:a"],
  ["a dot-dot at / stays at /", "/..", "write:/"],
  ["a sibling and back is inside", "/w-evil/../w/x", "write:x"],
  ["leading double slashes collapse", "//w//x", "write:x"],
  [
    "a tab is refused",
    "a\tb",
    refused(/contains the control character U\+0009 at offset 1/),
  ],
  ["DEL is refused", "a\u007f", refused(/U\+007F/)],
  ["a C1 control is refused", "a\u0085b", refused(/U\+0085/)],
  ["a line feed is refused", "a\nb", refused(/U\+000A/)],
  ["three dots are a name", ".../x", "write:.../x"],
  ["spaces are kept", "a b.txt", "write:a b.txt"],
  ["case is kept", "Case.TXT", "write:Case.TXT"],
  ["the root's case matters", "/W/x", "write:/W/x"],
  ["a colon in a name is kept", "a:b", "write:a:b"],
];

Deno.test("canonicalPath() names each spelling of a file by one canonical pattern", async (t) => {
  for (const [name, input, expect] of PATH_CASES) {
    await t.step(`${name}: ${JSON.stringify(input)}`, () => {
      check(() => `write:${escapeGlob(canonicalPath("/w", input))}`, expect);
    });
  }
});

Deno.test("canonicalPath() normalises the root and checks it", async (t) => {
  await t.step("a root with dots and slashes is normalised", () => {
    assert.equal(canonicalPath("/w//./x/..", "/w/a"), "a");
  });
  await t.step("with root / everything is relative", () => {
    assert.equal(canonicalPath("/", "/etc/x"), "etc/x");
    assert.throws(() => canonicalPath("/", "../x"), ToolError);
  });
  await t.step("a relative root is a TypeError", () => {
    assert.throws(
      () => canonicalPath("w", "a"),
      new TypeError(
        'Cannot canonicalise a path: root must be an absolute path, got "w"',
      ),
    );
  });
  await t.step("a non-string path is a TypeError", () => {
    assert.throws(
      () => canonicalPath("/w", 3 as unknown as string),
      /must be a string, got number/,
    );
  });
});

// Seeded so a failure reproduces; mulberry32.
const PIECES = [
  "a",
  "b",
  "..",
  ".",
  "",
  "w",
  "w-evil",
  "*",
  "[x]",
  "{y}",
  "\\",
  " ",
  "e\u0301",
  "\u00e9",
  "...",
  "?",
];

Deno.test("canonicalPath() is idempotent and never escapes the root, for random paths", () => {
  const random = prng(20240605);
  let accepted = 0;
  for (let n = 0; n < 5000; n++) {
    const count = 1 + Math.floor(random() * 7);
    const parts = Array.from(
      { length: count },
      () => PIECES[Math.floor(random() * PIECES.length)],
    );
    const input = (random() < 0.3 ? "/" : "") + parts.join("/");
    if (input === "") continue;
    let name: string;
    try {
      name = canonicalPath("/w", input);
    } catch (error) {
      assert.ok(error instanceof ToolError, `${input}: ${error}`);
      assert.match(error.message, /leaves the root \/w/, input);
      continue;
    }
    accepted++;
    assert.equal(canonicalPath("/w", name), name, `idempotent: ${input}`);
    assert.equal(name, name.normalize("NFC"), `NFC: ${input}`);
    const segments = name.split("/");
    assert.ok(!segments.includes(".."), `no dot-dot: ${input} → ${name}`);
    if (!input.startsWith("/")) {
      assert.ok(!name.startsWith("/"), `stays inside: ${input} → ${name}`);
    }
    const pattern = `write:${escapeGlob(name)}`;
    assert.equal(typeof checkPattern(pattern), "object", pattern);
  }
  assert.ok(accepted > 1000, `too few accepted paths: ${accepted}`);
});

interface Sandbox extends AsyncDisposable {
  root: string;
  outside: string;
}

/** A temp dir holding the root `w/` (with `sub/`) and a sibling `outside/`. */
async function sandbox(): Promise<Sandbox> {
  const base = await Deno.realPath(await Deno.makeTempDir());
  await Deno.mkdir(`${base}/w/sub`, { recursive: true });
  await Deno.mkdir(`${base}/outside`);
  return {
    root: `${base}/w`,
    outside: `${base}/outside`,
    [Symbol.asyncDispose]: () => Deno.remove(base, { recursive: true }),
  };
}

Deno.test("fileAccess() resolves targets on the real file system", async (t) => {
  await using box = await sandbox();
  const { root, outside } = box;
  const files = fileAccess(root);
  await Deno.writeTextFile(`${outside}/secret.txt`, "s");
  await Deno.symlink(`${outside}/secret.txt`, `${root}/link.txt`);
  await Deno.symlink("/etc", `${root}/etc-link`);
  await Deno.symlink(outside, `${root}/out`);
  await Deno.symlink("sub", `${root}/alias`);
  await Deno.symlink(`${outside}/not-yet/file`, `${root}/dangling`);
  await Deno.symlink("loop-b", `${root}/loop-a`);
  await Deno.symlink("loop-a", `${root}/loop-b`);
  await Deno.writeTextFile(`${root}/*`, "star");

  await t.step("a plain new file", async () => {
    const target = await files.write("./sub/../a.txt");
    assert.deepEqual(target.patterns, ["write:a.txt"]);
    assert.equal(target.path, `${root}/a.txt`);
    assert.equal(target.target, "a.txt");
    assert.equal(target.verb, "write");
  });
  await t.step(
    "a link inside the root to a file outside names its real target",
    async () => {
      const target = await files.write("link.txt");
      assert.deepEqual(target.patterns, [
        "write:link.txt",
        `write:${outside}/secret.txt`,
      ]);
      assert.equal(target.path, `${outside}/secret.txt`);
    },
  );
  await t.step(
    "a deny on that real target wins over an allow on the root",
    async () => {
      const policy = new Policy({
        allow: ["write:**"],
        deny: [`write:${escapeGlob(outside)}/**`],
      });
      const target = await files.write("link.txt");
      const result = policy.evaluate(target.patterns);
      assert.equal(result.decision, "deny");
      assert.deepEqual(result.patterns.map((p) => p.decision), [
        "allow",
        "deny",
      ]);
    },
  );
  await t.step(
    "a new file under a link to /etc is write:/etc/new",
    async () => {
      const target = await files.write("etc-link/new");
      assert.deepEqual(target.patterns, [
        "write:etc-link/new",
        "write:/etc/new",
      ]);
      assert.equal(target.path, "/etc/new");
    },
  );
  await t.step(
    "a link inside the root to inside the root names both",
    async () => {
      const target = await files.read("alias/x.md");
      assert.deepEqual(target.patterns, ["read:alias/x.md", "read:sub/x.md"]);
      assert.equal(target.path, `${root}/sub/x.md`);
    },
  );
  await t.step(
    "a dangling link is followed to where a write would land",
    async () => {
      const target = await files.write("dangling");
      assert.deepEqual(target.patterns, [
        "write:dangling",
        `write:${outside}/not-yet/file`,
      ]);
    },
  );
  await t.step(
    "the handler writes exactly where the pattern points",
    async () => {
      const target = await files.write("out/written.txt");
      assert.deepEqual(target.patterns, [
        "write:out/written.txt",
        `write:${outside}/written.txt`,
      ]);
      await Deno.writeTextFile(target.path, "ok");
      assert.equal(await Deno.readTextFile(`${outside}/written.txt`), "ok");
    },
  );
  await t.step("deleting a link names the link, not its target", async () => {
    const target = await files.delete("link.txt");
    assert.deepEqual(target.patterns, ["delete:link.txt"]);
    assert.equal(target.path, `${root}/link.txt`);
  });
  await t.step(
    "a rename emits delete of the source and write of the destination",
    async () => {
      const move = await files.rename("a.txt", "sub/b.txt");
      assert.deepEqual(move.patterns, ["delete:a.txt", "write:sub/b.txt"]);
      assert.equal(move.from.path, `${root}/a.txt`);
      assert.equal(move.to.path, `${root}/sub/b.txt`);
    },
  );
  await t.step(
    "a rename into a link out of the root names the real destination",
    async () => {
      const move = await files.rename("sub/b.txt", "out/b.txt");
      assert.deepEqual(move.patterns, [
        "delete:sub/b.txt",
        "write:out/b.txt",
        `write:${outside}/b.txt`,
      ]);
    },
  );
  await t.step("rename errors name the from and to arguments", async () => {
    await assert.rejects(
      files.rename("../x", "y"),
      new ToolError(
        `from: "../x" leaves the root ${root}: expected a path inside it`,
      ),
    );
    await assert.rejects(
      files.rename("x", ""),
      /^ToolError: to: the path is empty/,
    );
  });
  await t.step(
    "an absolute path inside the root is root-relative",
    async () => {
      const target = await files.read(`${root}/sub/x.ts`);
      assert.deepEqual(target.patterns, ["read:sub/x.ts"]);
    },
  );
  await t.step(
    "a sibling directory sharing the prefix is outside",
    async () => {
      await Deno.mkdir(`${root}-evil`, { recursive: true });
      const target = await files.write(`${root}-evil/x`);
      assert.deepEqual(target.patterns, [`write:${root}-evil/x`]);
    },
  );
  await t.step("a file named * on disk is escaped", async () => {
    const target = await files.read("*");
    assert.deepEqual(target.patterns, ["read:\\*"]);
    assert.equal(await Deno.readTextFile(target.path), "star");
  });
  await t.step(
    "NFD and NFC spellings give one pattern, each the path as spelled",
    async () => {
      const nfd = await files.write("cafe\u0301.txt");
      const nfc = await files.write("caf\u00e9.txt");
      assert.deepEqual(nfd.patterns, ["write:caf\u00e9.txt"]);
      assert.deepEqual(nfc.patterns, ["write:caf\u00e9.txt"]);
      // The handler opens the name it was given, as the kernel looks it up.
      assert.equal(nfd.path, `${root}/cafe\u0301.txt`);
      assert.equal(nfc.path, `${root}/caf\u00e9.txt`);
    },
  );
  await t.step(
    "a link named in NFD is followed when the path spells it so",
    async () => {
      await Deno.mkdir(`${root}/vault`);
      await Deno.symlink("vault", `${root}/cafe\u0301`);
      const target = await files.write("cafe\u0301/k");
      assert.deepEqual(target.patterns, ["write:caf\u00e9/k", "write:vault/k"]);
      assert.equal(target.path, `${root}/vault/k`);
    },
  );
  await t.step("a link loop is refused", async () => {
    await assert.rejects(
      files.write("loop-a/x"),
      /^ToolError: path: cannot resolve "loop-a\/x": too many levels of symbolic links/,
    );
  });
  await t.step(
    "leaving the root is refused before touching the disk",
    async () => {
      await assert.rejects(
        files.write("../outside/secret.txt", { argument: "file" }),
        new ToolError(
          `file: "../outside/secret.txt" leaves the root ${root}: expected a path inside it`,
        ),
      );
    },
  );
  await t.step("a path through a file is named as spelled", async () => {
    const target = await files.write("*/x");
    assert.deepEqual(target.patterns, ["write:\\*/x"]);
  });
});

Deno.test("fileAccess() keeps root-relative names when the root is a link", async () => {
  await using box = await sandbox();
  const { root } = box;
  const linked = `${root}-link`;
  await Deno.symlink(root, linked);
  const files = fileAccess(linked);
  const relative = await files.write("sub/a.txt");
  assert.deepEqual(relative.patterns, ["write:sub/a.txt"]);
  assert.equal(relative.path, `${root}/sub/a.txt`);
  const viaReal = await files.write(`${root}/sub/a.txt`);
  assert.deepEqual(viaReal.patterns, ["write:sub/a.txt"]);
  const fromUrl = fileAccess(new URL(`file://${linked}/`));
  assert.deepEqual((await fromUrl.read("sub")).patterns, ["read:sub"]);
});

Deno.test("fileAccess() reports a missing root and retries once it exists", async () => {
  await using box = await sandbox();
  const { root } = box;
  const later = `${root}/later`;
  const files = fileAccess(later);
  await assert.rejects(
    files.read("a"),
    new Error(`Cannot resolve file root: directory does not exist: ${later}`),
  );
  await Deno.mkdir(later);
  assert.deepEqual((await files.read("a")).patterns, ["read:a"]);
  await Deno.writeTextFile(`${root}/plain`, "");
  await assert.rejects(
    fileAccess(`${root}/plain`).read("a"),
    /^Error: Cannot resolve file root: not a directory: /,
  );
  assert.throws(
    () => fileAccess("relative/root"),
    /^TypeError: Cannot create file access: root must be an absolute path, got "relative\/root"$/,
  );
});

Deno.test("a pattern tool built on fileAccess() acts on exactly what its probe named", async (t) => {
  await using box = await sandbox();
  const { root, outside } = box;
  await Deno.symlink(outside, `${root}/out`);
  const files = fileAccess(root);
  const server = createServer({ name: "files", version: "1.0.0" });
  registerPatternTool(server, {
    name: "write_file",
    description: "Writes a text file under the root",
    input: z.object({ path: z.string(), content: z.string() }),
    patterns: async ({ path }) => [await files.write(path)],
    handler: async ({ content }, ctx) => {
      const [target] = ctx.access;
      await Deno.writeTextFile(target.path, content);
      return text(`written: ${target.target}`);
    },
  });
  await using client = await connect(server);

  await t.step(
    "the probe names the canonical target and writes nothing",
    async () => {
      const answer = await client.probe("write_file", {
        path: "sub//../a.txt",
        content: "x",
      });
      assert.deepEqual(answer.patterns, ["write:a.txt"]);
      await assert.rejects(Deno.stat(`${root}/a.txt`), Deno.errors.NotFound);
    },
  );
  await t.step("the call writes the target the probe named", async () => {
    const result = await client.call("write_file", {
      path: "sub//../a.txt",
      content: "x",
    });
    assert.deepEqual(result.content, [{
      type: "text",
      text: "written: a.txt",
    }]);
    assert.equal(await Deno.readTextFile(`${root}/a.txt`), "x");
  });
  await t.step(
    "a link out of the root is probed by its real target",
    async () => {
      const answer = await client.probe("write_file", {
        path: "out/b.txt",
        content: "y",
      });
      assert.deepEqual(answer.patterns, [
        "write:out/b.txt",
        `write:${outside}/b.txt`,
      ]);
    },
  );
  await t.step(
    "leaving the root is a domain error the model sees",
    async () => {
      const result = await client.call("write_file", {
        path: "../x",
        content: "z",
      });
      assert.equal(result.isError, true);
      assert.deepEqual(result.content, [{
        type: "text",
        text: `path: "../x" leaves the root ${root}: expected a path inside it`,
      }]);
    },
  );
});

Deno.test("an empty options.argument is refused, saying what was expected", async () => {
  const files = fileAccess(await Deno.makeTempDir());
  await assert.rejects(
    files.write("a.txt", { argument: "" }),
    new TypeError(
      `Cannot build a file target: options.argument must be the name of the caller's argument, such as "path", got an empty string`,
    ),
  );
  assert.throws(
    () => execAccess(["ls"], { argument: "" }),
    /options\.argument must be the name of the caller's argument, such as "path", got an empty string$/,
  );
});
