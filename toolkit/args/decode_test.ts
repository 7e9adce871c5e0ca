import assert from "node:assert/strict";
import { z } from "zod";
import type { ArgumentProblem } from "./argument_error.ts";
import { decodeArguments, type DecodeResult } from "./decode.ts";
import {
  type JsonSchema,
  type StandardSchema,
  toJsonSchema,
} from "../schema.ts";

/** Decodes with a zod schema the way the server does. */
function decodeZod(
  schema: StandardSchema,
  args: unknown,
): Promise<DecodeResult<unknown>> {
  return decodeArguments(args, toJsonSchema(schema), { schema });
}

/** Decodes against a raw JSON Schema only. */
function decodeRaw(
  json: JsonSchema,
  args: unknown,
): Promise<DecodeResult<unknown>> {
  return decodeArguments(args, toJsonSchema(json));
}

/** The problems of a failed decode; fails the test when it succeeded. */
function problemsOf(result: DecodeResult<unknown>): ArgumentProblem[] {
  if (result.ok) {
    assert.fail(`expected the arguments to be refused, got ${result.value}`);
  }
  return result.problems;
}

/** The lines `path: message` of a failed decode. */
function linesOf(result: DecodeResult<unknown>): string[] {
  return problemsOf(result).map((p) => `${p.path}: ${p.message}`);
}

// The same tool, declared once with zod and once as the JSON Schema a
// hand-written server would send, so both paths are held to one wording.
const GREET = z.strictObject({
  path: z.string(),
  mode: z.enum(["a", "b"]),
  name: z.string(),
  count: z.number().int().min(1).max(10).optional(),
  ratio: z.number().gt(0).lte(1).optional(),
  tag: z.string().min(3).max(5).optional(),
  items: z.array(z.strictObject({ id: z.string() })).max(3).optional(),
});
const GREET_RAW: JsonSchema = {
  type: "object",
  properties: {
    path: { type: "string" },
    mode: { type: "string", enum: ["a", "b"] },
    name: { type: "string" },
    count: { type: "integer", minimum: 1, maximum: 10 },
    ratio: { type: "number", exclusiveMinimum: 0, maximum: 1 },
    tag: { type: "string", minLength: 3, maxLength: 5 },
    items: {
      type: "array",
      maxItems: 3,
      items: {
        type: "object",
        properties: { id: { type: "string" } },
        required: ["id"],
        additionalProperties: false,
      },
    },
  },
  required: ["path", "mode", "name"],
  additionalProperties: false,
};
const VALID = { path: "a.txt", mode: "a", name: "Ada" };

function bothWays(
  args: Record<string, unknown>,
): Promise<[string, DecodeResult<unknown>][]> {
  return Promise.all([
    decodeZod(GREET, args).then((r) => ["zod", r] as [string, typeof r]),
    decodeRaw(GREET_RAW, args).then((r) => ["raw", r] as [string, typeof r]),
  ]);
}

Deno.test("decodeArguments() names each bad argument with what was expected and what came", async (t) => {
  await t.step("type, enum and missing, one problem each", async () => {
    for (const [how, result] of await bothWays({ path: 1, mode: "c" })) {
      assert.deepEqual(
        new Set(linesOf(result)),
        new Set([
          "path: expected string, got number",
          'mode: expected one of "a", "b", got "c"',
          "name: required",
        ]),
        how,
      );
      assert.equal(problemsOf(result).length, 3, how);
    }
  });

  await t.step("integer against float and against string", async () => {
    for (const [how, result] of await bothWays({ ...VALID, count: 1.5 })) {
      assert.deepEqual(
        linesOf(result),
        ["count: expected integer, got 1.5"],
        how,
      );
    }
    const zod = await decodeZod(GREET, { ...VALID, count: "3" });
    assert.deepEqual(linesOf(zod), ["count: expected number, got string"]);
    const raw = await decodeRaw(GREET_RAW, { ...VALID, count: "3" });
    assert.deepEqual(linesOf(raw), ["count: expected integer, got string"]);
  });

  await t.step("numeric bounds, inclusive and exclusive", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ count: 0 }, "count: expected a number >= 1, got 0"],
      [{ count: 11 }, "count: expected a number <= 10, got 11"],
      [{ ratio: 0 }, "ratio: expected a number > 0, got 0"],
      [{ ratio: 1.5 }, "ratio: expected a number <= 1, got 1.5"],
    ];
    for (const [extra, line] of cases) {
      for (const [how, result] of await bothWays({ ...VALID, ...extra })) {
        assert.deepEqual(linesOf(result), [line], how);
      }
    }
  });

  await t.step("string length and array size bounds", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ tag: "ab" }, "tag: expected at least 3 characters, got 2"],
      [
        { tag: "abcdef" },
        "tag: expected at most 5 characters, got 6",
      ],
      // Characters, not UTF-16 units: three emoji are three characters.
      [
        { tag: "😀😀" },
        "tag: expected at least 3 characters, got 2",
      ],
      [
        { tag: "😀".repeat(6) },
        "tag: expected at most 5 characters, got 6",
      ],
      // A lone surrogate is one character.
      [
        { tag: "a\uD800" },
        "tag: expected at least 3 characters, got 2",
      ],
      [
        { items: [{ id: "a" }, { id: "b" }, { id: "c" }, { id: "d" }] },
        "items: expected at most 3 items, got 4",
      ],
    ];
    for (const [extra, line] of cases) {
      for (const [how, result] of await bothWays({ ...VALID, ...extra })) {
        assert.deepEqual(linesOf(result), [line], how);
      }
    }
  });

  await t.step("a nested path names the index and the key", async () => {
    const args = { ...VALID, items: [{ id: "a" }, { id: "b" }, { id: 3 }] };
    for (const [how, result] of await bothWays(args)) {
      assert.deepEqual(linesOf(result), [
        "items[2].id: expected string, got number",
      ], how);
    }
  });

  await t.step("arguments that are not an object", async () => {
    for (
      const [args, type] of [[[1], "array"], [null, "null"], ["x", "string"]]
    ) {
      for (
        const result of [
          await decodeZod(GREET, args),
          await decodeRaw(GREET_RAW, args),
        ]
      ) {
        assert.deepEqual(linesOf(result), [
          `arguments: expected object, got ${type}`,
        ]);
      }
    }
  });

  await t.step("no arguments at all count as an empty object", async () => {
    for (
      const result of [
        await decodeZod(GREET, undefined),
        await decodeRaw(GREET_RAW, undefined),
      ]
    ) {
      assert.deepEqual(
        new Set(linesOf(result)),
        new Set(["path: required", "mode: required", "name: required"]),
      );
    }
  });
});

Deno.test("decodeArguments() refuses unknown keys, with a did-you-mean for a near miss", async (t) => {
  await t.step(
    "a near miss next to a missing argument (zod, raw)",
    async () => {
      const args = { path: "a.txt", mode: "a", nme: "Ada" };
      for (const [how, result] of await bothWays(args)) {
        assert.deepEqual(
          new Set(linesOf(result)),
          new Set([
            "name: required",
            'nme: unknown argument; did you mean "name"?',
          ]),
          how,
        );
      }
    },
  );

  await t.step(
    "a near miss is found among declared keys the call left out",
    async () => {
      // The call sends only `path`; "nme" must still be matched to `name`.
      for (const [how, result] of await bothWays({ path: "a", nme: "Ada" })) {
        assert.deepEqual(
          new Set(linesOf(result)),
          new Set([
            "mode: required",
            "name: required",
            'nme: unknown argument; did you mean "name"?',
          ]),
          how,
        );
      }
    },
  );

  await t.step("a different case is a near miss", async () => {
    const result = await decodeZod(z.object({ name: z.string() }), {
      NAME: "x",
    });
    assert.deepEqual(linesOf(result), [
      "name: required",
      'NAME: unknown argument; did you mean "name"?',
    ]);
  });

  await t.step("no near miss lists what is accepted", async () => {
    const schema = z.object({ name: z.string(), age: z.number() });
    const result = await decodeZod(schema, { name: "x", age: 1, zzzzzz: 1 });
    assert.deepEqual(linesOf(result), [
      'zzzzzz: unknown argument; expected one of "name", "age"',
    ]);
    const raw = await decodeRaw(
      {
        type: "object",
        properties: { name: { type: "string" }, age: { type: "number" } },
        additionalProperties: false,
      },
      { name: "x", zzzzzz: 1 },
    );
    assert.deepEqual(linesOf(raw), [
      'zzzzzz: unknown argument; expected one of "name", "age"',
    ]);
  });

  await t.step("a tool that takes no arguments says so", async () => {
    for (const schema of [z.object({}), z.strictObject({})]) {
      const result = await decodeZod(schema, { verbose: true });
      assert.deepEqual(linesOf(result), [
        "verbose: unknown argument; this takes no arguments here",
      ]);
    }
  });

  await t.step("nested unknown keys carry their full path", async () => {
    const args = {
      ...VALID,
      items: [{ id: "a" }, { id: "b" }, { id: "c", idd: 1 }],
    };
    for (const [how, result] of await bothWays(args)) {
      assert.deepEqual(
        linesOf(result),
        ['items[2].idd: unknown argument; did you mean "id"?'],
        how,
      );
    }
    const plain = z.object({ inner: z.object({ name: z.string() }) });
    const result = await decodeZod(plain, { inner: { name: "x", nam: 1 } });
    assert.deepEqual(linesOf(result), [
      'inner.nam: unknown argument; did you mean "name"?',
    ]);
    // Behind anyOf the declared keys are not looked up; the sent ones serve.
    const nullable = z.object({
      inner: z.strictObject({ name: z.string() }).nullable(),
    });
    const behind = await decodeZod(nullable, { inner: { name: "x", nam: 1 } });
    assert.deepEqual(linesOf(behind), [
      'inner.nam: unknown argument; did you mean "name"?',
    ]);
  });

  await t.step("each unknown key is reported once", async () => {
    const result = await decodeZod(GREET, { ...VALID, nme: 1 });
    assert.deepEqual(linesOf(result), [
      'nme: unknown argument; did you mean "name"?',
    ]);
  });
});

Deno.test("decodeArguments() lets z.looseObject and open JSON Schemas keep extra keys", async () => {
  const loose = await decodeZod(z.looseObject({ a: z.string() }), {
    a: "x",
    extra: 1,
  });
  assert.deepEqual(loose, { ok: true, value: { a: "x", extra: 1 } });
  // A raw schema is applied as JSON Schema says: no additionalProperties
  // means any extra key is allowed.
  const open = await decodeRaw(
    { type: "object", properties: { a: { type: "string" } } },
    { a: "x", extra: 1 },
  );
  assert.deepEqual(open, { ok: true, value: { a: "x", extra: 1 } });
  const typed = await decodeRaw(
    {
      type: "object",
      properties: {},
      additionalProperties: { type: "number" },
    },
    { a: 1, b: "x" },
  );
  assert.deepEqual(linesOf(typed), ["b: expected number, got string"]);
});

Deno.test("decodeArguments() returns the schema's output value on success", async (t) => {
  await t.step("zod defaults and transforms are applied", async () => {
    const schema = z.object({
      limit: z.number().int().default(10),
      when: z.string().transform((s) => s.toUpperCase()),
    });
    assert.deepEqual(await decodeZod(schema, { when: "now" }), {
      ok: true,
      value: { limit: 10, when: "NOW" },
    });
  });

  await t.step("raw JSON Schema passes the arguments through", async () => {
    const args = { ...VALID, count: 3 };
    assert.deepEqual(await decodeRaw(GREET_RAW, args), {
      ok: true,
      value: args,
    });
    assert.deepEqual(await decodeZod(GREET, args), { ok: true, value: args });
  });

  await t.step("an asynchronous Standard Schema is awaited", async () => {
    const schema: StandardSchema<unknown, { n: number }> = {
      "~standard": {
        version: 1,
        vendor: "acme",
        validate: (value) =>
          Promise.resolve(
            typeof (value as { n?: unknown }).n === "number"
              ? { value: value as { n: number } }
              : { issues: [{ message: "N must be a number", path: ["n"] }] },
          ),
      },
    };
    const json = { type: "object", properties: { n: { type: "number" } } };
    assert.deepEqual(await decodeArguments({ n: 1 }, json, { schema }), {
      ok: true,
      value: { n: 1 },
    });
    // An issue without a zod code keeps the validator's words.
    assert.deepEqual(
      linesOf(await decodeArguments({ n: "x" }, json, { schema })),
      ["n: n must be a number"],
    );
  });
});

Deno.test("decodeArguments() describes zod's other checks in the same form", async (t) => {
  await t.step("literal", async () => {
    const result = await decodeZod(z.object({ l: z.literal("x") }), { l: "y" });
    assert.deepEqual(linesOf(result), ['l: expected "x", got "y"']);
  });

  await t.step("multipleOf", async () => {
    const result = await decodeZod(z.object({ n: z.number().multipleOf(5) }), {
      n: 7,
    });
    assert.deepEqual(linesOf(result), ["n: expected a multiple of 5, got 7"]);
  });

  await t.step("a format", async () => {
    const result = await decodeZod(z.object({ e: z.email() }), { e: "nope" });
    assert.deepEqual(linesOf(result), ['e: expected email format, got "nope"']);
  });

  await t.step("a regular expression names the pattern", async () => {
    const schema = z.object({ s: z.string().regex(/^[a-z]+$/) });
    const result = await decodeZod(schema, { s: "A1" });
    assert.deepEqual(linesOf(result), [
      's: expected a string matching /^[a-z]+$/, got "A1"',
    ]);
  });

  await t.step("a union says which forms were allowed", async () => {
    const schema = z.object({ u: z.union([z.string(), z.number()]) });
    assert.deepEqual(linesOf(await decodeZod(schema, { u: true })), [
      "u: expected string or number, got boolean",
    ]);
    assert.deepEqual(linesOf(await decodeZod(schema, {})), ["u: required"]);
    const objects = z.object({
      u: z.union([z.object({ a: z.string() }), z.object({ b: z.number() })]),
    });
    assert.deepEqual(linesOf(await decodeZod(objects, { u: { a: 1 } })), [
      "u: does not match any of the allowed forms, got object",
    ]);
  });

  await t.step("a discriminated union names its discriminators", async () => {
    const schema = z.object({
      op: z.discriminatedUnion("kind", [
        z.object({ kind: z.literal("add"), n: z.number() }),
        z.object({ kind: z.literal("clear") }),
      ]),
    });
    const result = await decodeZod(schema, { op: { kind: "mul" } });
    assert.deepEqual(linesOf(result), [
      'op.kind: expected one of "add", "clear", got "mul"',
    ]);
    assert.deepEqual(linesOf(await decodeZod(schema, { op: {} })), [
      "op.kind: required",
    ]);
  });

  await t.step("a long string is shown cut short", async () => {
    const result = await decodeZod(z.object({ l: z.literal("x") }), {
      l: "y".repeat(100),
    });
    assert.deepEqual(linesOf(result), [
      `l: expected "x", got "${"y".repeat(57)}..."`,
    ]);
  });
});
