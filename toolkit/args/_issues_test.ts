import assert from "node:assert/strict";
import { describeIssue, formatPath } from "./_issues.ts";

Deno.test("formatPath() renders keys and indexes as a model would write them", () => {
  assert.equal(formatPath([]), "arguments");
  assert.equal(formatPath(["items", 2, "id"]), "items[2].id");
  assert.equal(formatPath(["odd key"]), '["odd key"]');
  assert.equal(formatPath(["a", "b c", 1]), 'a["b c"][1]');
  assert.equal(formatPath(["$ref", "x-y", "_z"]), "$ref.x-y._z");
});

Deno.test("describeIssue() words another library's type mismatch with got, as its own", () => {
  const schema = { type: "object" } as const;
  const input = { name: 1, tags: "x" };
  assert.deepEqual(
    describeIssue(
      {
        message: "Invalid type: Expected string but received 1",
        path: ["name"],
      },
      input,
      schema,
    ),
    [{ path: "name", message: "invalid type: Expected string, got 1" }],
  );
  assert.deepEqual(
    describeIssue(
      {
        message: "Invalid input: expected array, received string",
        path: ["tags"],
      },
      input,
      schema,
    ),
    [{ path: "tags", message: "expected array, got string" }],
  );
  // A message with no mismatch in it is kept.
  assert.deepEqual(
    describeIssue({ message: "Too many tags", path: ["tags"] }, input, schema),
    [{ path: "tags", message: "too many tags" }],
  );
});
