import assert from "node:assert/strict";
import { ToolError } from "@forge/toolkit";
import { PathChangedError } from "./confine.ts";
import {
  checkPathBounds,
  fileProblem,
  MAX_NAME_BYTES,
  MAX_PATH_DEPTH,
  MAX_PATH_LENGTH,
} from "./file_errors.ts";
import { startSession, textOf } from "./_main_process.ts";

const PROBE = { meta: { "forge.permission_patterns": true } };
const ROOT = "/srv/hello";
const WHERE = { argument: "path", shown: "notes/a.txt", root: ROOT };

function osError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

Deno.test("checkPathBounds() refuses a path too long, too deep or with a name too long", () => {
  checkPathBounds("notes/a.txt", "path");
  checkPathBounds("a/".repeat(MAX_PATH_DEPTH), "path");
  checkPathBounds("é".repeat(MAX_NAME_BYTES / 2), "path");
  assert.throws(
    () => checkPathBounds("x".repeat(5000), "path"),
    new ToolError(
      `path: too long: 5000 characters, expected at most ${MAX_PATH_LENGTH}`,
    ),
  );
  assert.throws(
    () => checkPathBounds("a/".repeat(200), "path"),
    new ToolError(
      `path: too deep: 200 names, expected at most ${MAX_PATH_DEPTH}`,
    ),
  );
  assert.throws(
    () => checkPathBounds(`sub/${"é".repeat(128)}`, "file"),
    new ToolError(
      `file: name too long: "${
        "é".repeat(16)
      }…" is 256 bytes, expected at most ${MAX_NAME_BYTES}`,
    ),
  );
});

Deno.test("fileProblem() makes the failures a model can act on domain errors, relative to the root", async (t) => {
  const cases: [string, unknown, RegExp][] = [
    [
      "missing",
      new Deno.errors.NotFound(`No such file (os error 2): '${ROOT}/x'`),
      /^path: no such file: notes\/a\.txt$/,
    ],
    [
      "permission denied",
      new Deno.errors.PermissionDenied(
        `Permission denied (os error 13): open '${ROOT}/notes/a.txt'`,
      ),
      /^path: permission denied for notes\/a\.txt: /,
    ],
    [
      "no space",
      osError("ENOSPC", `No space left on device (os error 28): '${ROOT}/a'`),
      /^path: no space left for notes\/a\.txt: /,
    ],
    [
      "over quota",
      osError("EDQUOT", "Disk quota exceeded (os error 122)"),
      /^path: no space left for notes\/a\.txt: /,
    ],
    [
      "name too long",
      osError("ENAMETOOLONG", `File name too long (os error 36): '${ROOT}/x'`),
      /^path: a name in notes\/a\.txt is too long for the file system: /,
    ],
    [
      "read-only",
      osError("EROFS", "Read-only file system (os error 30)"),
      /^path: notes\/a\.txt is on a read-only file system: /,
    ],
    [
      "a directory",
      new Deno.errors.IsADirectory("Is a directory (os error 21)"),
      /^path: notes\/a\.txt is a directory: expected a file$/,
    ],
    [
      "a file as parent",
      new Deno.errors.NotADirectory("Not a directory (os error 20)"),
      /^path: a parent of notes\/a\.txt is a file/,
    ],
    [
      "a directory replaced meanwhile",
      new PathChangedError(`${ROOT}/notes/a.txt`),
      /^path: notes\/a\.txt changed during the call: /,
    ],
  ];
  for (const [name, error, expected] of cases) {
    await t.step(name, () => {
      const answer = fileProblem(error, WHERE);
      assert.ok(answer instanceof ToolError, `${name}: ${answer}`);
      assert.match(answer.message, expected);
      assert.ok(!answer.message.includes(ROOT), answer.message);
    });
  }
  await t.step("a toolkit refusal loses the root's absolute path", () => {
    const answer = fileProblem(
      new ToolError(
        `path: "../x" leaves the root ${ROOT}: expected a path inside it`,
      ),
      WHERE,
    );
    assert.equal(
      answer.message,
      'path: "../x" leaves the root: expected a path inside it',
    );
  });
  await t.step(
    "anything else stays the server's failure, without the server's paths",
    () => {
      const answer = fileProblem(
        osError("EIO", `Input/output error (os error 5): write '${ROOT}/a'`),
        WHERE,
      );
      assert.ok(!(answer instanceof ToolError));
      assert.equal(answer.message, "Input/output error (os error 5)");
    },
  );
});

Deno.test("write_file and delete_file answer paths over the limits and file-system refusals with isError, never the server's path", async () => {
  const base = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "hello-errors-" }),
  );
  await Deno.mkdir(`${base}/root`);
  await Deno.writeTextFile(`${base}/config.json`, '{"greeting": "Hi"}');
  try {
    await using server = await startSession({
      HELLO_ROOT: `${base}/root`,
      HELLO_CONFIG: `${base}/config.json`,
    });
    const long = "x".repeat(300);
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ["write_file", { path: long, content: "x" }, /^path: name too long: /],
      [
        "write_file",
        { path: `sub/${long}/a.txt`, content: "x" },
        /^path: name too long: /,
      ],
      ["delete_file", { path: long }, /^path: name too long: /],
      [
        "write_file",
        { path: "y".repeat(5000), content: "x" },
        /^path: too long: 5000 characters, expected at most 4096$/,
      ],
      [
        "write_file",
        { path: "d/".repeat(200) + "a.txt", content: "x" },
        /^path: too deep: 201 names, expected at most 128$/,
      ],
      [
        "delete_file",
        { path: "no/such/dir/a.txt" },
        /^path: no such file: no\/such\/dir\/a\.txt$/,
      ],
      [
        "write_file",
        { path: "../x.txt", content: "x" },
        /^path: "\.\.\/x\.txt" leaves the root: expected a path inside it$/,
      ],
    ];
    for (const [tool, args, expected] of cases) {
      // A missing file is found by the call; the probe only names it.
      const probe = !/no such file/.test(expected.source);
      for (const meta of probe ? [PROBE, undefined] : [undefined]) {
        // A JSON-RPC error (-32603) rejects here and fails the test.
        const result = await server.call(tool, args, meta);
        const answer = textOf(result);
        assert.equal(result.isError, true, `${tool} ${answer}`);
        assert.match(answer, expected);
        assert.ok(!answer.includes(base), answer);
      }
    }
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});
