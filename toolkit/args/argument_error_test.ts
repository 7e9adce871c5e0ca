import assert from "node:assert/strict";
import { ArgumentError, formatProblems } from "./argument_error.ts";
import { ToolError } from "../result/result.ts";

Deno.test("formatProblems() writes a heading and one line per problem", async (t) => {
  const problems = [
    { path: "path", message: "expected string, got number" },
    { path: "name", message: "required" },
  ];

  await t.step("with the tool's name", () => {
    assert.equal(
      formatProblems(problems, { tool: "greet" }),
      'Invalid arguments for tool "greet":\npath: expected string, got number\nname: required',
    );
  });

  await t.step("without a tool", () => {
    assert.equal(
      formatProblems(problems),
      "Invalid arguments:\npath: expected string, got number\nname: required",
    );
  });

  await t.step("a tool name is quoted as JSON", () => {
    assert.equal(
      formatProblems([{ path: "a", message: "required" }], {
        tool: 'say "hi"',
      }),
      'Invalid arguments for tool "say \\"hi\\"":\na: required',
    );
  });
});

Deno.test("ArgumentError is a ToolError listing its problems", () => {
  const problems = [{ path: "limit", message: "expected integer, got 1.5" }];
  const err = new ArgumentError(problems, { tool: "search" });
  assert.ok(err instanceof ToolError);
  assert.ok(err instanceof Error);
  assert.equal(err.name, "ArgumentError");
  assert.deepEqual(err.problems, problems);
  assert.equal(
    err.message,
    'Invalid arguments for tool "search":\nlimit: expected integer, got 1.5',
  );
  assert.equal(
    new ArgumentError(problems).message,
    "Invalid arguments:\nlimit: expected integer, got 1.5",
  );
});
