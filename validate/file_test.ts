import assert from "node:assert/strict";
import { formatForPath, validateFile } from "./mod.ts";

Deno.test("formatForPath() maps extensions and well-known names to formats", async (t) => {
  const cases: [string, string | undefined][] = [
    ["data.json", "json"],
    ["package.json", "json"],
    ["map.geojson", "json"],
    ["settings.jsonc", "jsonc"],
    ["tsconfig.json", "jsonc"],
    ["packages/app/tsconfig.build.json", "jsonc"],
    ["jsconfig.json", "jsonc"],
    ["deno.json", "jsonc"],
    ["deno.jsonc", "jsonc"],
    [".vscode/settings.json", "jsonc"],
    ["C:\\repo\\.vscode\\launch.json", "jsonc"],
    [".devcontainer/devcontainer.json", "jsonc"],
    ["app.code-workspace", "jsonc"],
    [".github/workflows/ci.yml", "yaml"],
    ["values.YAML", "yaml"],
    ["Cargo.toml", "toml"],
    ["Cargo.lock", "toml"],
    ["poetry.lock", "toml"],
    ["pom.xml", "xml"],
    ["logo.svg", "xml"],
    ["App.csproj", "xml"],
    ["Info.plist", "xml"],
    ["README.md", undefined],
    ["Makefile", undefined],
    [".yml", undefined],
    ["archive.tar.gz", undefined],
  ];
  for (const [path, format] of cases) {
    await t.step(path, () => assert.equal(formatForPath(path), format));
  }
});

Deno.test("validateFile() validates by the format the path implies", () => {
  const result = validateFile(
    "tsconfig.json",
    '{\n  // ok in JSONC\n  "a": 1,\n}',
  );
  assert.equal(result.format, "jsonc");
  assert.equal(result.ok, true);
  const strict = validateFile("data.json", '{\n  // not in JSON\n  "a": 1\n}');
  assert.equal(strict.format, "json");
  assert.equal(strict.ok, false);
});

Deno.test("validateFile() says so in the result when the extension is unknown", async (t) => {
  await t.step("an unknown extension", () => {
    const result = validateFile("notes.txt", "anything");
    assert.equal(result.ok, false);
    assert.equal(result.format, undefined);
    assert.equal(result.diagnostics.length, 1);
    assert.equal(result.diagnostics[0].severity, "error");
    assert.match(
      result.diagnostics[0].message,
      /^Cannot validate: unknown file extension: \.txt \(expected one of \.json, .*\.yaml, \.yml, \.toml, \.xml/,
    );
  });
  await t.step("no extension", () => {
    const result = validateFile("bin/tool", "");
    assert.match(
      result.diagnostics[0].message,
      /^Cannot validate: no file extension: bin\/tool/,
    );
  });
});

Deno.test("formatForPath() throws a TypeError for a path that is not a string", () => {
  assert.throws(
    () => formatForPath(undefined as unknown as string),
    (error: Error) =>
      error instanceof TypeError &&
      error.message ===
        "Cannot pick a format: expected the path as a string, got undefined",
  );
});
