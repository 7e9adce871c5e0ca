import assert from "node:assert/strict";
import { validate } from "./mod.ts";

Deno.test("validate() handles 10 MiB documents of every document format", async (t) => {
  const MIB = 1 << 20;
  const makers: Record<string, (n: number) => string> = {
    json: (n) =>
      "[" + Array.from({ length: n }, (_, i) =>
        `{"id":${i},"name":"item ${i}"}`).join(",") +
      "]",
    jsonc: (n) =>
      "[\n" + Array.from({ length: n }, (_, i) =>
        `  {"id": ${i}}, // item`).join("\n") +
      "\n]",
    yaml: (n) =>
      Array.from({ length: n }, (_, i) => `k${i}: {id: ${i}, name: item}`).join(
        "\n",
      ),
    toml: (n) =>
      Array.from(
        { length: n },
        (_, i) => `k${i} = { id = ${i}, name = "item" }`,
      ).join("\n"),
    xml: (n) =>
      "<r>" + Array.from({ length: n }, (_, i) =>
        `<i id="${i}">item</i>`).join("") +
      "</r>",
  };
  for (const [format, make] of Object.entries(makers)) {
    await t.step(format, () => {
      const unit = make(1000).length / 1000;
      const text = make(Math.ceil((10 * MIB) / unit));
      assert.ok(text.length >= 10 * MIB);
      const result = validate(text, format as "json");
      assert.equal(result.ok, true, JSON.stringify(result.diagnostics[0]));
      // And an error at the very end is still found at its position.
      const broken = validate(text + "\u0001", format as "json");
      assert.equal(broken.ok, false);
    });
  }
});
