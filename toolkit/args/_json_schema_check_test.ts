import assert from "node:assert/strict";
import type { ArgumentProblem } from "./argument_error.ts";
import { checkJsonSchema } from "./_json_schema_check.ts";
import type { JsonSchema } from "../schema.ts";

/** The lines `path: message` the checker gives for `value` against `schema`. */
function linesOf(schema: JsonSchema, value: unknown): string[] {
  const problems: ArgumentProblem[] = [];
  checkJsonSchema(schema, value, [], problems);
  return problems.map((p) => `${p.path}: ${p.message}`);
}

Deno.test("checkJsonSchema() checks the raw JSON Schema keywords a tool may use", async (t) => {
  const check = (schema: JsonSchema, value: unknown) =>
    linesOf({ type: "object", properties: { a: schema } }, { a: value });

  await t.step("a type list", () => {
    assert.deepEqual(check({ type: ["string", "null"] }, 1), [
      "a: expected string or null, got number",
    ]);
  });

  await t.step("const", () => {
    assert.deepEqual(check({ const: 3 }, 4), ["a: expected 3, got 4"]);
  });

  await t.step("enum of objects compares by value", () => {
    const schema = { enum: [{ x: 1 }, [1, 2]] };
    assert.deepEqual(check(schema, { x: 1 }), []);
    assert.deepEqual(check(schema, { x: 2 }), [
      'a: expected one of {"x":1}, [1,2], got object',
    ]);
  });

  await t.step("pattern and length together", () => {
    assert.deepEqual(
      check({ type: "string", minLength: 2, pattern: "^[a-z]+$" }, "A"),
      [
        "a: expected at least 2 characters, got 1",
        'a: expected a string matching /^[a-z]+$/, got "A"',
      ],
    );
  });

  await t.step("exclusiveMaximum and multipleOf", () => {
    assert.deepEqual(check({ type: "number", exclusiveMaximum: 5 }, 5), [
      "a: expected a number < 5, got 5",
    ]);
    assert.deepEqual(check({ type: "number", multipleOf: 0.5 }, 0.75), [
      "a: expected a multiple of 0.5, got 0.75",
    ]);
  });

  await t.step("minItems", () => {
    assert.deepEqual(check({ type: "array", minItems: 2 }, [1]), [
      "a: expected at least 2 items, got 1",
    ]);
  });

  await t.step("anyOf, oneOf and allOf", () => {
    assert.deepEqual(
      check({ anyOf: [{ type: "string" }, { type: "number" }] }, true),
      ["a: does not match any of the allowed forms, got true"],
    );
    assert.deepEqual(
      check({ oneOf: [{ type: "number" }, { type: "integer" }] }, 2),
      ["a: matches 2 of the forms where exactly one is allowed"],
    );
    assert.deepEqual(
      check({ allOf: [{ type: "number" }, { minimum: 3 }] }, 2),
      ["a: expected a number >= 3, got 2"],
    );
  });

  await t.step(
    "an invalid pattern in the tool's own schema is not the caller's fault",
    () => {
      assert.deepEqual(check({ type: "string", pattern: "(" }, "x"), []);
    },
  );
});
