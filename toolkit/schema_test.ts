import assert from "node:assert/strict";
import { z } from "zod";
import {
  isStandardSchema,
  JSON_SCHEMA_2020_12,
  type JsonSchema,
  type StandardSchema,
  toJsonSchema,
  type ToolSchema,
} from "./schema.ts";

/** Runs `fn`, asserts it throws a TypeError, and returns its message. */
function typeErrorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof TypeError, `expected a TypeError, got ${err}`);
    return err.message;
  }
  assert.fail("expected a TypeError, but nothing was thrown");
}

/** A Standard Schema from another vendor, recording what it was asked. */
function fakeStandardSchema(
  describe?: (io: string, target: string) => JsonSchema,
): StandardSchema & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    "~standard": {
      version: 1,
      vendor: "acme",
      validate: (value: unknown) => ({ value }),
      ...(describe === undefined ? {} : {
        jsonSchema: {
          input: ({ target }: { target: string }) => {
            calls.push(`input ${target}`);
            return describe("input", target);
          },
          output: ({ target }: { target: string }) => {
            calls.push(`output ${target}`);
            return describe("output", target);
          },
        },
      }),
    },
  };
}

Deno.test("toJsonSchema() turns a zod object into JSON Schema 2020-12 with an object root", () => {
  const schema = z.object({
    name: z.string(),
    count: z.number().int().min(1).max(10),
    tags: z.array(z.string()),
    mode: z.enum(["fast", "slow"]),
  });
  assert.deepEqual(toJsonSchema(schema), {
    $schema: JSON_SCHEMA_2020_12,
    type: "object",
    properties: {
      name: { type: "string" },
      count: { type: "integer", minimum: 1, maximum: 10 },
      tags: { type: "array", items: { type: "string" } },
      mode: { type: "string", enum: ["fast", "slow"] },
    },
    required: ["name", "count", "tags", "mode"],
  });
  assert.equal(
    JSON_SCHEMA_2020_12,
    "https://json-schema.org/draft/2020-12/schema",
  );
});

Deno.test("toJsonSchema() keeps descriptions of the object and of its fields", () => {
  const schema = z.object({
    name: z.string().describe("Who to greet"),
    loud: z.boolean().optional().describe("Shout the greeting"),
  }).describe("Greeting arguments");
  const json = toJsonSchema(schema);
  assert.equal(json.description, "Greeting arguments");
  const properties = json.properties as Record<string, JsonSchema>;
  assert.equal(properties.name.description, "Who to greet");
  assert.equal(properties.loud.description, "Shout the greeting");
});

Deno.test("toJsonSchema() describes what a tool accepts (input) or produces (output)", async (t) => {
  const schema = z.object({
    name: z.string(),
    limit: z.number().default(10),
    note: z.string().optional(),
  });

  await t.step(
    "input is the default: a field with a default is optional",
    () => {
      const input = toJsonSchema(schema);
      assert.deepEqual(input, toJsonSchema(schema, { io: "input" }));
      assert.deepEqual(input.required, ["name"]);
      assert.deepEqual(
        (input.properties as Record<string, JsonSchema>).limit,
        { type: "number", default: 10 },
      );
      assert.equal(input.additionalProperties, undefined);
    },
  );

  await t.step("output: a field with a default is always present", () => {
    const output = toJsonSchema(schema, { io: "output" });
    assert.equal(output.$schema, JSON_SCHEMA_2020_12);
    assert.equal(output.type, "object");
    assert.deepEqual(output.required, ["name", "limit"]);
    assert.equal(output.additionalProperties, false);
  });

  await t.step("an optional field is required in neither", () => {
    for (const io of ["input", "output"] as const) {
      const required = toJsonSchema(schema, { io }).required as string[];
      assert.equal(required.includes("note"), false, io);
    }
  });

  await t.step("a transform is described by its input side", () => {
    const parsed = z.object({ n: z.string().transform(Number) });
    assert.deepEqual(toJsonSchema(parsed).properties, {
      n: { type: "string" },
    });
  });
});

Deno.test("toJsonSchema() marks loose and strict zod objects for extra keys", () => {
  const loose = toJsonSchema(z.looseObject({ a: z.string() }));
  assert.deepEqual(loose.additionalProperties, {});
  const strict = toJsonSchema(z.strictObject({ a: z.string() }));
  assert.equal(strict.additionalProperties, false);
});

Deno.test("toJsonSchema() accepts a raw JSON Schema object and returns a copy", async (t) => {
  await t.step("$schema is added when missing", () => {
    const raw = { type: "object", properties: { path: { type: "string" } } };
    assert.deepEqual(toJsonSchema(raw), {
      $schema: JSON_SCHEMA_2020_12,
      type: "object",
      properties: { path: { type: "string" } },
    });
  });

  await t.step("an explicit 2020-12 $schema is kept", () => {
    const raw = { $schema: JSON_SCHEMA_2020_12, type: "object" };
    assert.deepEqual(toJsonSchema(raw), raw);
  });

  await t.step("the caller's object is neither returned nor changed", () => {
    const raw: JsonSchema = {
      type: "object",
      properties: { tags: { type: "array", items: { type: "string" } } },
      required: ["tags"],
    };
    const before = structuredClone(raw);
    const json = toJsonSchema(raw);
    assert.deepEqual(raw, before);
    assert.equal("$schema" in raw, false);
    assert.notEqual(json, raw);
    assert.notEqual(json.properties, raw.properties);
    // Changing the result deep down leaves the original alone.
    const tags = (json.properties as Record<string, JsonSchema>).tags;
    (tags.items as JsonSchema).type = "number";
    (json.required as string[]).push("other");
    assert.deepEqual(raw, before);
  });

  await t.step("the output io does not change a raw schema", () => {
    const raw = { type: "object", properties: { a: { type: "string" } } };
    assert.deepEqual(toJsonSchema(raw, { io: "output" }), toJsonSchema(raw));
  });
});

Deno.test("toJsonSchema() refuses a root that is not an object with a TypeError naming what came", async (t) => {
  const cases: [string, ToolSchema, string][] = [
    ["zod string", z.string(), 'got type "string"'],
    ["zod array", z.array(z.string()), 'got type "array"'],
    [
      "zod union of objects",
      z.union([z.object({ a: z.string() }), z.object({ b: z.string() })]),
      "got no type",
    ],
    ["raw array schema", { type: "array" }, 'got type "array"'],
    ["raw schema without type", { properties: {} }, "got no type"],
    [
      "raw nullable object",
      { type: ["object", "null"] },
      'got type ["object","null"]',
    ],
  ];
  for (const [label, schema, what] of cases) {
    await t.step(label, () => {
      assert.equal(
        typeErrorOf(() => toJsonSchema(schema)),
        `Cannot use the schema for a tool: expected an object at the root, ${what}`,
      );
    });
  }
});

Deno.test("toJsonSchema() refuses what is neither a Standard Schema nor a JSON Schema object", async (t) => {
  const cases: [string, unknown, string][] = [
    ["null", null, "null"],
    ["an array", [{ type: "object" }], "array"],
    ["a string", "object", "string"],
    ["a number", 1, "number"],
    ["undefined", undefined, "undefined"],
  ];
  for (const [label, value, type] of cases) {
    await t.step(label, () => {
      assert.equal(
        typeErrorOf(() => toJsonSchema(value as ToolSchema)),
        `Cannot describe the schema as JSON Schema: expected a Standard Schema or a JSON Schema object, got ${type}`,
      );
    });
  }
});

Deno.test("toJsonSchema() refuses a draft-07 schema", async (t) => {
  const draft07 = "http://json-schema.org/draft-07/schema#";
  const message =
    `Cannot use the schema: expected JSON Schema 2020-12, got $schema "${draft07}"`;

  await t.step("raw", () => {
    assert.equal(
      typeErrorOf(() => toJsonSchema({ $schema: draft07, type: "object" })),
      message,
    );
  });

  await t.step(
    "from a Standard Schema that describes itself as draft-07",
    () => {
      const schema = fakeStandardSchema(() => ({
        $schema: draft07,
        type: "object",
      }));
      assert.equal(typeErrorOf(() => toJsonSchema(schema)), message);
    },
  );
});

Deno.test("toJsonSchema() asks a Standard Schema for 2020-12 in the chosen io", () => {
  const schema = fakeStandardSchema((io) => ({
    type: "object",
    properties: { [io]: { type: "string" } },
  }));
  assert.deepEqual(toJsonSchema(schema), {
    $schema: JSON_SCHEMA_2020_12,
    type: "object",
    properties: { input: { type: "string" } },
  });
  assert.deepEqual(toJsonSchema(schema, { io: "output" }).properties, {
    output: { type: "string" },
  });
  assert.deepEqual(schema.calls, [
    "input draft-2020-12",
    "output draft-2020-12",
  ]);
});

Deno.test("toJsonSchema() refuses a Standard Schema without Standard JSON Schema and says what to do", () => {
  const message = typeErrorOf(() => toJsonSchema(fakeStandardSchema()));
  assert.equal(
    message,
    "Cannot describe the schema as JSON Schema: the acme schema does not implement Standard JSON Schema (use zod 4.2 or later, or pass a JSON Schema object)",
  );
});

Deno.test("toJsonSchema() turns a zod schema JSON Schema cannot express into a TypeError", async (t) => {
  await t.step("a date field", () => {
    const message = typeErrorOf(() =>
      toJsonSchema(z.object({ when: z.date() }))
    );
    assert.match(
      message,
      /^Cannot describe the schema as JSON Schema: .*Date cannot be represented/,
    );
  });

  await t.step("a transform in the output", () => {
    const message = typeErrorOf(() =>
      toJsonSchema(z.object({ n: z.string().transform(Number) }), {
        io: "output",
      })
    );
    assert.match(
      message,
      /^Cannot describe the schema as JSON Schema: .*Transforms cannot be represented/,
    );
  });
});

Deno.test("isStandardSchema() tells a validator from plain JSON Schema", () => {
  assert.equal(isStandardSchema(z.object({})), true);
  assert.equal(isStandardSchema(fakeStandardSchema()), true);
  assert.equal(isStandardSchema({ type: "object" }), false);
  assert.equal(isStandardSchema({ "~standard": {} }), false);
  assert.equal(isStandardSchema({ "~standard": null }), false);
  assert.equal(isStandardSchema(null), false);
  assert.equal(isStandardSchema("object"), false);
});
