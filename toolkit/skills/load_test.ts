import assert from "node:assert/strict";
import { loadSkill, loadSkills } from "./mod.ts";

const md = (name: string) =>
  `---\nname: ${name}\ndescription: The ${name} skill\n---\nBody\n`;

async function tree(
  files: Record<string, string | Uint8Array>,
): Promise<string> {
  const root = await Deno.makeTempDir({ prefix: "forge-skills-" });
  for (const [path, content] of Object.entries(files)) {
    const full = `${root}/${path}`;
    await Deno.mkdir(full.slice(0, full.lastIndexOf("/")), { recursive: true });
    if (typeof content === "string") await Deno.writeTextFile(full, content);
    else await Deno.writeFile(full, content);
  }
  return root;
}

async function rejects(
  promise: Promise<unknown>,
  type: typeof TypeError | typeof RangeError,
  message: RegExp,
): Promise<void> {
  await assert.rejects(promise, (error: Error) => {
    assert.equal(error.constructor, type, error.message);
    assert.match(error.message, message);
    return true;
  });
}

Deno.test("loadSkill() reads a skill directory, skipping dot-files", async () => {
  const root = await tree({
    "pdf/SKILL.md": md("pdf"),
    "pdf/references/FORMS.md": "# Forms\n",
    "pdf/logo.png": new Uint8Array([0x89, 0x50]),
    "pdf/.DS_Store": "junk",
    "pdf/.git/config": "junk",
  });
  try {
    const skill = await loadSkill(`${root}/pdf/`, {
      prefix: "docs",
      cache: { ttlMs: 1000 },
    });
    assert.equal(skill.uri, "skill://docs/pdf/SKILL.md");
    assert.deepEqual(skill.files.map((f) => f.path), [
      "SKILL.md",
      "logo.png",
      "references/FORMS.md",
    ]);
    assert.equal(skill.cache.ttlMs, 1000);
    const fromUrl = await loadSkill(new URL(`file://${root}/pdf`));
    assert.equal(fromUrl.uri, "skill://pdf/SKILL.md");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("loadSkill() refuses what would not make a skill, naming the directory", async (t) => {
  const root = await tree({
    "named-wrong/SKILL.md": md("pdf"),
    "no-manifest/README.md": "x",
    "bad/SKILL.md": "---\nname: bad\n---\n",
    "linked/SKILL.md": md("linked"),
  });
  try {
    await Deno.symlink("/etc/hostname", `${root}/linked/host`);
    await t.step("the directory's name is not the skill's", () =>
      rejects(
        loadSkill(`${root}/named-wrong`),
        RangeError,
        /^Cannot load skill "pdf" from .*named-wrong: the directory is named "named-wrong" but SKILL\.md names the skill "pdf"/,
      ));
    await t.step("no SKILL.md", () =>
      rejects(
        loadSkill(`${root}/no-manifest`),
        TypeError,
        /^Cannot load skill from .*no-manifest: files: expected a "SKILL\.md"/,
      ));
    await t.step("a frontmatter field missing", () =>
      rejects(
        loadSkill(`${root}/bad`),
        TypeError,
        /^Cannot load skill from .*bad: SKILL\.md frontmatter: description: expected a string, got nothing$/,
      ));
    await t.step("a symbolic link", () =>
      rejects(
        loadSkill(`${root}/linked`),
        TypeError,
        /linked: host is a symbolic link; put the file itself in the skill's directory$/,
      ));
    await t.step("a directory that does not exist", () =>
      rejects(
        loadSkill(`${root}/missing`),
        TypeError,
        /^Cannot load skill from .*missing: cannot read directory/,
      ));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("loadSkill() stops at 512 files before reading them", async () => {
  const files: Record<string, string> = { "many/SKILL.md": md("many") };
  for (let i = 0; i < 512; i++) files[`many/f${i}.txt`] = "x";
  const root = await tree(files);
  try {
    await rejects(
      loadSkill(`${root}/many`),
      RangeError,
      /^Cannot load skill from .*many: expected at most 512 files, SKILL\.md included, found more$/,
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("loadSkills() finds every skill under a root, its path becoming the prefix", async () => {
  const root = await tree({
    "git-workflow/SKILL.md": md("git-workflow"),
    "acme/billing/refunds/SKILL.md": md("refunds"),
    "acme/billing/refunds/examples/email.md": "Dear customer",
    // A skill nested in a skill is its enclosing skill's files.
    "acme/billing/refunds/nested/SKILL.md": md("nested"),
    "acme/notes.txt": "not a skill",
    ".hidden/SKILL.md": md("hidden"),
  });
  try {
    const skills = await loadSkills(root, { prefix: "team" });
    assert.deepEqual(skills.map((s) => s.uri), [
      "skill://team/acme/billing/refunds/SKILL.md",
      "skill://team/git-workflow/SKILL.md",
    ]);
    assert.deepEqual(skills[0].files.map((f) => f.path), [
      "SKILL.md",
      "examples/email.md",
      "nested/SKILL.md",
    ]);
    assert.deepEqual(
      (await loadSkills(`${root}/git-workflow`)).map((s) => s.uri),
      ["skill://git-workflow/SKILL.md"],
    );
    await rejects(
      loadSkills(`${root}/absent`),
      TypeError,
      /^Cannot load skills from .*absent: cannot read directory/,
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
