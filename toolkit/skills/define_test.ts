import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import {
  defineSkill,
  MAX_SKILL_BYTES,
  MAX_SKILL_FILES,
  type SkillDefinition,
} from "./mod.ts";

const SKILL_MD =
  "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\n# PDF\n";

function skillMd(frontmatter: string): string {
  return `---\n${frontmatter}\n---\nBody\n`;
}

function sha256(bytes: Uint8Array | string): string {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}

function rejects(
  def: unknown,
  type: typeof TypeError | typeof RangeError,
  message: RegExp,
): void {
  assert.throws(() => defineSkill(def as SkillDefinition), (error: Error) => {
    assert.equal(error.constructor, type, error.message);
    assert.match(error.message, message);
    return true;
  });
}

Deno.test("defineSkill() digests every file and names it under skill://", () => {
  const forms = "# Forms\n";
  const logo = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0xff]);
  const skill = defineSkill({
    files: {
      "templates/regional/eu.md": "EU",
      "SKILL.md": SKILL_MD,
      "references/FORMS.md": forms,
      "logo.png": logo,
    },
  });
  assert.equal(skill.uri, "skill://pdf-processing/SKILL.md");
  assert.equal(skill.root, "skill://pdf-processing");
  assert.equal(skill.name, "pdf-processing");
  assert.deepEqual(skill.entry(), {
    uri: "skill://pdf-processing/SKILL.md",
    frontmatter: {
      name: "pdf-processing",
      description: "Extract, fill, and assemble PDF documents",
    },
    resources: [
      {
        uri: "skill://pdf-processing/SKILL.md",
        digest: sha256(SKILL_MD),
        size: new TextEncoder().encode(SKILL_MD).byteLength,
      },
      { uri: "skill://pdf-processing/logo.png", digest: sha256(logo), size: 5 },
      {
        uri: "skill://pdf-processing/references/FORMS.md",
        digest: sha256(forms),
        size: 8,
      },
      {
        uri: "skill://pdf-processing/templates/regional/eu.md",
        digest: sha256("EU"),
        size: 2,
      },
    ],
  });
  for (const { digest } of skill.entry().resources) {
    assert.match(digest, /^sha256:[0-9a-f]{64}$/);
  }
});

Deno.test("defineSkill() keeps every frontmatter field as written", () => {
  const skill = defineSkill({
    files: {
      "SKILL.md": skillMd(
        'name: refunds\ndescription: Refunds per policy\nlicense: Apache-2.0\ncompatibility: Needs network access\nallowed-tools: Bash(git:*) Read\nmetadata:\n  version: "2.1"\n  author: acme\nx-custom:\n  - 1\n  - true',
      ),
    },
  });
  assert.deepEqual(skill.entry().frontmatter, {
    name: "refunds",
    description: "Refunds per policy",
    license: "Apache-2.0",
    compatibility: "Needs network access",
    "allowed-tools": "Bash(git:*) Read",
    metadata: { version: "2.1", author: "acme" },
    "x-custom": [1, true],
  });
  // An entry is a copy: changing it changes nothing served.
  const entry = skill.entry();
  entry.frontmatter.name = "other";
  assert.equal(skill.entry().frontmatter.name, "refunds");
});

Deno.test("defineSkill() serves text as text and other bytes as blobs", () => {
  const skill = defineSkill({
    files: {
      "SKILL.md": new TextEncoder().encode(SKILL_MD),
      "a.md": new TextEncoder().encode("\uFEFFwith a BOM"),
      "b.py": { content: "print(1)\n", mimeType: "text/x-python" },
      "c.bin": new Uint8Array([1, 2, 3]),
      "d.txt": new Uint8Array([0xff, 0xfe, 0x00]),
      "e": "no extension, given as text",
    },
  });
  const byPath = new Map(skill.files.map((f) => [f.path, f]));
  assert.equal(byPath.get("SKILL.md")!.mimeType, "text/markdown");
  assert.equal(byPath.get("SKILL.md")!.text, SKILL_MD);
  // The BOM is kept, so the text's UTF-8 bytes are the digested bytes.
  assert.equal(byPath.get("a.md")!.text, "\uFEFFwith a BOM");
  assert.equal(byPath.get("b.py")!.mimeType, "text/x-python");
  assert.equal(byPath.get("c.bin")!.text, undefined);
  assert.equal(byPath.get("c.bin")!.mimeType, "application/octet-stream");
  assert.equal(byPath.get("d.txt")!.text, undefined, "not UTF-8: a blob");
  assert.equal(byPath.get("e")!.text, "no extension, given as text");
});

Deno.test("defineSkill() puts the prefix before the name and percent-encodes paths", () => {
  const skill = defineSkill({
    prefix: "acme/billing",
    files: {
      "SKILL.md": skillMd("name: refunds\ndescription: Refunds"),
      "examples/an email.md": "Dear customer",
    },
  });
  assert.equal(skill.uri, "skill://acme/billing/refunds/SKILL.md");
  assert.deepEqual(skill.entry().resources.map((r) => r.uri), [
    "skill://acme/billing/refunds/SKILL.md",
    "skill://acme/billing/refunds/examples/an%20email.md",
  ]);
});

Deno.test("defineSkill() takes cache hints, defaulting to 0 ms and private", () => {
  const plain = defineSkill({ files: { "SKILL.md": SKILL_MD } });
  assert.deepEqual(plain.cache, { ttlMs: 0, cacheScope: "private" });
  const cached = defineSkill({
    files: { "SKILL.md": SKILL_MD },
    cache: { ttlMs: 60_000, cacheScope: "public" },
  });
  assert.deepEqual(cached.cache, { ttlMs: 60_000, cacheScope: "public" });
});

Deno.test("defineSkill() refuses a skill that breaks a rule, naming the skill and field", async (t) => {
  const named = (frontmatter: string) => ({
    files: { "SKILL.md": skillMd(frontmatter) },
  });
  const ok = "name: ok\ndescription: Fine";
  const cases: [string, unknown, typeof TypeError, RegExp][] = [
    [
      "no definition",
      undefined,
      TypeError,
      /^Cannot define skill: expected \{ files/,
    ],
    ["files not an object", { files: "SKILL.md" }, TypeError, /files: string/],
    [
      "no SKILL.md",
      { files: { "README.md": "x" } },
      TypeError,
      /files: expected a "SKILL\.md" at the skill's root, got only "README\.md"/,
    ],
    ["no files", { files: {} }, TypeError, /got no files/],
    [
      "SKILL.md not UTF-8",
      { files: { "SKILL.md": new Uint8Array([0xff, 0xfe]) } },
      TypeError,
      /SKILL\.md: expected UTF-8 text/,
    ],
    [
      "no frontmatter",
      { files: { "SKILL.md": "# Just a body\n" } },
      TypeError,
      /SKILL\.md: expected YAML frontmatter between --- lines/,
    ],
    [
      "frontmatter not YAML",
      { files: { "SKILL.md": "---\nname: [unclosed\n---\n" } },
      TypeError,
      /SKILL\.md:\d+:\d+: invalid YAML frontmatter/,
    ],
    [
      "duplicate frontmatter key",
      named("name: a\nname: b\ndescription: x"),
      TypeError,
      /SKILL\.md:3:\d+: invalid YAML frontmatter: .*duplicate/i,
    ],
    [
      "an empty frontmatter",
      { files: { "SKILL.md": "---\n---\nBody\n" } },
      TypeError,
      /frontmatter: expected a mapping of fields, got nothing/,
    ],
    [
      "a closing --- that is not on its own line",
      { files: { "SKILL.md": "---\nname: a\ndescription: x---\nBody\n" } },
      TypeError,
      /SKILL\.md: expected YAML frontmatter between --- lines/,
    ],
    [
      "frontmatter a list",
      { files: { "SKILL.md": "---\n- a\n---\n" } },
      TypeError,
      /frontmatter: expected a mapping of fields, got array/,
    ],
    [
      "no name",
      named("description: x"),
      TypeError,
      /name: expected a string, got nothing/,
    ],
    [
      "numeric name",
      named("name: 12\ndescription: x"),
      TypeError,
      /name: expected a string, got number/,
    ],
    [
      "uppercase name",
      named("name: PDF\ndescription: x"),
      RangeError,
      /name: expected 1-64 lowercase .*got "PDF"/,
    ],
    [
      "leading hyphen",
      named("name: -pdf\ndescription: x"),
      RangeError,
      /got "-pdf"/,
    ],
    [
      "trailing hyphen",
      named("name: pdf-\ndescription: x"),
      RangeError,
      /got "pdf-"/,
    ],
    [
      "double hyphen",
      named("name: pdf--tools\ndescription: x"),
      RangeError,
      /got "pdf--tools"/,
    ],
    [
      "name too long",
      named(`name: ${"a".repeat(65)}\ndescription: x`),
      RangeError,
      /name: expected 1-64/,
    ],
    [
      "no description",
      named("name: pdf"),
      TypeError,
      /Cannot define skill: SKILL\.md frontmatter: description: expected a string, got nothing/,
    ],
    [
      "blank description",
      named('name: pdf\ndescription: "  "'),
      RangeError,
      /description: expected what the skill does/,
    ],
    [
      "description too long",
      named(`name: pdf\ndescription: ${"x".repeat(1025)}`),
      RangeError,
      /description: expected at most 1024 characters, got 1025/,
    ],
    [
      "license not a string",
      named(`${ok}\nlicense: 3`),
      TypeError,
      /license: expected a string, got number/,
    ],
    [
      "allowed-tools a list",
      named(`${ok}\nallowed-tools: [Read]`),
      TypeError,
      /allowed-tools: expected a string, got array/,
    ],
    [
      "compatibility too long",
      named(`${ok}\ncompatibility: ${"c".repeat(501)}`),
      RangeError,
      /compatibility: expected 1-500 characters, got 501/,
    ],
    [
      "metadata a string",
      named(`${ok}\nmetadata: v1`),
      TypeError,
      /metadata: expected a mapping/,
    ],
    [
      "metadata value a number",
      named(`${ok}\nmetadata:\n  version: 2`),
      TypeError,
      /metadata\.version: expected a string, got number/,
    ],
    [
      "reserved metadata key",
      named(`${ok}\nmetadata:\n  io.modelcontextprotocol/x: "1"`),
      RangeError,
      /metadata\.io\.modelcontextprotocol\/x: keys under io\.modelcontextprotocol\/ are reserved/,
    ],
    [
      "a path with ..",
      { files: { "SKILL.md": skillMd(ok), "../secret": "x" } },
      TypeError,
      /^Cannot define skill "ok": files: expected paths .*got "\.\.\/secret"/,
    ],
    [
      "an absolute path",
      { files: { "SKILL.md": skillMd(ok), "/etc/passwd": "x" } },
      TypeError,
      /got "\/etc\/passwd"/,
    ],
    [
      "a backslash",
      { files: { "SKILL.md": skillMd(ok), "a\\b": "x" } },
      TypeError,
      /got "a\\\\b"/,
    ],
    [
      "an empty segment",
      { files: { "SKILL.md": skillMd(ok), "a//b": "x" } },
      TypeError,
      /got "a\/\/b"/,
    ],
    [
      "a . segment",
      { files: { "SKILL.md": skillMd(ok), "./a": "x" } },
      TypeError,
      /got "\.\/a"/,
    ],
    [
      "a control character",
      { files: { "SKILL.md": skillMd(ok), "a\nb": "x" } },
      TypeError,
      /got "a\\nb"/,
    ],
    [
      "content a number",
      { files: { "SKILL.md": skillMd(ok), "a.md": 3 } },
      TypeError,
      /^Cannot define skill "ok": files\["a\.md"\]: expected a string, a Uint8Array or \{ content, mimeType \}, got number/,
    ],
    [
      "an object without mimeType",
      { files: { "SKILL.md": skillMd(ok), "a.md": { content: "x" } } },
      TypeError,
      /files\["a\.md"\]: mimeType: expected a MIME type/,
    ],
    [
      "a lone surrogate",
      { files: { "SKILL.md": skillMd(ok), "a.md": "\uD800" } },
      TypeError,
      /files\["a\.md"\]: expected well-formed text/,
    ],
    [
      "prefix a number",
      { ...named(ok), prefix: 7 },
      TypeError,
      /prefix: expected a string/,
    ],
    [
      "prefix with a space",
      { ...named(ok), prefix: "acme corp" },
      RangeError,
      /prefix: expected \/-separated URI segments.*"acme corp" \(segment 1\)/,
    ],
    [
      "prefix with an empty segment",
      { ...named(ok), prefix: "acme//x" },
      RangeError,
      /\(segment 2\)/,
    ],
    [
      "cache a number",
      { ...named(ok), cache: 5 },
      TypeError,
      /cache: expected \{ ttlMs, cacheScope \}, got number/,
    ],
    [
      "ttlMs negative",
      { ...named(ok), cache: { ttlMs: -1 } },
      RangeError,
      /cache\.ttlMs must be a whole number of milliseconds >= 0, got -1/,
    ],
    [
      "ttlMs a string",
      { ...named(ok), cache: { ttlMs: "1" } },
      TypeError,
      /cache\.ttlMs: expected a number/,
    ],
    [
      "cacheScope unknown",
      { ...named(ok), cache: { cacheScope: "shared" } },
      TypeError,
      /cache\.cacheScope: expected "public" or "private", got "shared"/,
    ],
  ];
  for (const [name, def, type, message] of cases) {
    await t.step(name, () => rejects(def, type, message));
  }
});

Deno.test("defineSkill() refuses more than 512 files or 16 MiB", async (t) => {
  const md = skillMd("name: big\ndescription: Too big");
  await t.step("513 files", () => {
    const files: Record<string, string> = { "SKILL.md": md };
    for (let i = 0; i < MAX_SKILL_FILES; i++) files[`f${i}.txt`] = "x";
    rejects(
      { files },
      RangeError,
      /^Cannot define skill "big": files: expected at most 512 files, SKILL\.md included, got 513$/,
    );
    delete files["f0.txt"];
    assert.equal(defineSkill({ files }).files.length, MAX_SKILL_FILES);
  });
  await t.step("one byte over 16 MiB", () => {
    const size = MAX_SKILL_BYTES - new TextEncoder().encode(md).byteLength;
    const fits = { "SKILL.md": md, "data.bin": new Uint8Array(size) };
    assert.equal(defineSkill({ files: fits }).files.length, 2);
    rejects(
      { files: { "SKILL.md": md, "data.bin": new Uint8Array(size + 1) } },
      RangeError,
      /files: expected at most 16777216 bytes \(16 MiB\) in all, got more by data\.bin/,
    );
  });
});
