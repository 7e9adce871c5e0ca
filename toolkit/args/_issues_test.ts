import assert from "node:assert/strict";
import { formatPath } from "./_issues.ts";

Deno.test("formatPath() renders keys and indexes as a model would write them", () => {
  assert.equal(formatPath([]), "arguments");
  assert.equal(formatPath(["items", 2, "id"]), "items[2].id");
  assert.equal(formatPath(["odd key"]), '["odd key"]');
  assert.equal(formatPath(["a", "b c", 1]), 'a["b c"][1]');
  assert.equal(formatPath(["$ref", "x-y", "_z"]), "$ref.x-y._z");
});
