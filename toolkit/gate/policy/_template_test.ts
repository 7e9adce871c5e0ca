import assert from "node:assert/strict";
import { fileAccess } from "../../patterns/file.ts";
import { compileTemplate, FillError, fillTemplates } from "./_template.ts";
import { parsePolicyText } from "./_policy_source.ts";
import { Policy } from "../../policy/policy.ts";

async function fill(templates: string[], args: Record<string, unknown>) {
  const root = await Deno.realPath(await Deno.makeTempDir());
  await Deno.mkdir(`${root}/notes`);
  return await fillTemplates(
    templates.map(compileTemplate),
    args,
    fileAccess(root),
  );
}

async function problem(templates: string[], args: Record<string, unknown>) {
  const error = await fill(templates, args).then(
    () => assert.fail("filled"),
    (e) => e,
  );
  assert.ok(error instanceof FillError, String(error));
  return error.message;
}

Deno.test("fillTemplates() gives one canonical pattern per target", async () => {
  assert.deepEqual(await fill(["write:{path}"], { path: "notes/./a.txt" }), [
    "write:notes/a.txt",
  ]);
  assert.deepEqual(await fill(["read:{paths[]}"], { paths: ["a", "b/../c"] }), [
    "read:a",
    "read:c",
  ]);
  assert.deepEqual(
    await fill(["delete:{source}", "write:{destination}"], {
      source: "notes/[a].md",
      destination: "/etc/x",
    }),
    ["delete:notes/\\[a\\].md", "write:/etc/x"],
  );
  assert.deepEqual(
    await fill(["net:{url}", "net:{proxy?}"], {
      url: "https://EXAMPLE.com:443/a",
    }),
    [
      "net:https://example.com",
    ],
  );
  assert.deepEqual(await fill(["exec:{command}"], { command: "git status" }), [
    "exec:git status",
  ]);
  // A shell script is named as one: a rule on "git push" never matches it.
  assert.deepEqual(
    await fill(["exec:{command}"], { command: "git push; rm -rf /" }),
    ["exec:sh -c git\\ push;\\ rm\\ -rf\\ /"],
  );
  assert.deepEqual(await fill(["exec:{argv}"], { argv: ["/bin/rm", "x"] }), [
    "exec:/bin/rm x",
    "exec:rm x",
  ]);
  assert.deepEqual(
    await fill(["x-memory-write:{relations[].from}"], {
      relations: [{ from: "a*" }, { from: "b" }],
    }),
    ["x-memory-write:a\\*", "x-memory-write:b"],
  );
});

Deno.test("fillTemplates() refuses arguments it cannot decide, naming them", async () => {
  assert.match(await problem(["write:{path}"], {}), /^path: missing/);
  assert.match(
    await problem(["read:{paths[]}"], { paths: "a" }),
    /^paths: expected an array of strings, got string/,
  );
  assert.match(
    await problem(["read:{paths[]}"], { paths: ["a", 3] }),
    /^paths\[1\]: expected a string, got number/,
  );
  assert.match(await problem(["read:{paths[]}"], { paths: [] }), /empty list/);
  assert.match(
    await problem(["write:{path}"], { path: "../x" }),
    /^path: .*leaves the root/,
  );
  assert.match(
    await problem(["write:{path}"], { path: "~/.ssh/x" }),
    /^path: .*starts with "~"/,
  );
  assert.match(
    await problem(["net:{url}"], { url: "file:///etc" }),
    /^url: scheme "file:"/,
  );
});

Deno.test("fillTemplates() decides a link by where it points as well", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir());
  await Deno.mkdir(`${root}/secrets`);
  await Deno.symlink("secrets", `${root}/inbox`);
  const patterns = await fillTemplates(
    [compileTemplate("delete:{path}")],
    { path: "inbox" },
    fileAccess(root),
  );
  assert.deepEqual(patterns, ["delete:inbox", "delete:secrets"]);
});

Deno.test("a wrong template is located as field, line and column", () => {
  const text =
    'roots: ["/w"]\ntools:\n  write_file: { patterns: ["write:{path"] }\n';
  assert.throws(
    () => parsePolicyText(text, "yaml"),
    (error: Error & { line: number; column: number }) => {
      assert.match(
        error.message,
        /^tools\.write_file\.patterns\[0\]: "\{" is not closed/,
      );
      assert.equal(error.line, 3);
      assert.equal(error.column, 35); // the "{"
      return true;
    },
  );
  assert.throws(
    () =>
      parsePolicyText('tools:\n  w: { patterns: ["write:{path}"] }\n', "yaml"),
    /tools\.w\.patterns\[0\]: a file pattern needs a root/,
  );
  assert.throws(
    () => parsePolicyText("presets: [filesytem]\n", "yaml"),
    /presets\[0\]: unknown preset "filesytem"/,
  );
  assert.throws(
    () => parsePolicyText("presets: [filesystem]\n", "yaml"),
    /presets\[0\]: the filesystem preset names files/,
  );
  assert.throws(
    () => parsePolicyText("annotations: { readOnly: yes }\n", "yaml"),
    /annotations\.readOnly: expected "allow", "ask" or "deny"/,
  );
});

Deno.test("fillTemplates() follows a link whose name is spelled in another Unicode form", async (t) => {
  const root = await Deno.realPath(await Deno.makeTempDir());
  await Deno.mkdir(`${root}/notes`);
  await Deno.mkdir(`${root}/secrets`);
  const files = fileAccess(root);
  const write = (path: string) =>
    fillTemplates([compileTemplate("write:{path}")], { path }, files);
  // The link is named in NFD, as a Mac writes names; é is one code point
  // in NFC and e + U+0301 in NFD.
  await Deno.symlink("../secrets", `${root}/notes/cafe\u0301`);
  await t.step("path spelled NFC, link named NFD", async () => {
    assert.deepEqual(await write("notes/caf\u00e9/x"), [
      "write:notes/caf\u00e9/x",
      "write:secrets/x",
    ]);
  });
  await t.step("path spelled NFD, link named NFD", async () => {
    assert.deepEqual(await write("notes/cafe\u0301/x"), [
      "write:notes/caf\u00e9/x",
      "write:secrets/x",
    ]);
  });
  await t.step("an NFC directory beside the NFD link: both", async () => {
    await Deno.mkdir(`${root}/notes/caf\u00e9`);
    for (const path of ["notes/caf\u00e9/x", "notes/cafe\u0301/x"]) {
      const patterns = await write(path);
      assert.deepEqual(patterns.toSorted(), [
        "write:notes/caf\u00e9/x",
        "write:secrets/x",
      ], path);
    }
  });
  await t.step("an ASCII path reaches a KELVIN SIGN link", async () => {
    await Deno.symlink("../secrets", `${root}/notes/\u212aey`);
    assert.deepEqual(await write("notes/Key/x"), [
      "write:notes/Key/x",
      "write:secrets/x",
    ]);
  });
});

Deno.test("fillTemplates() fills a template without a placeholder", async () => {
  assert.deepEqual(await fill(["read:."], {}), ["read:."]);
  assert.deepEqual(await fill(["x-memory-read:*"], {}), ["x-memory-read:\\*"]);
});

Deno.test("a file template ending in /** names the subtree under its path", async (t) => {
  const root = await Deno.realPath(await Deno.makeTempDir());
  await Deno.mkdir(`${root}/notes`);
  await Deno.mkdir(`${root}/secrets`);
  await Deno.symlink("../secrets", `${root}/notes/to-secrets`);
  const files = fileAccess(root);
  const fillOne = (template: string, args: Record<string, unknown>) =>
    fillTemplates([compileTemplate(template)], args, files);
  await t.step("the root is **, a folder <folder>/**", async () => {
    assert.deepEqual(await fillOne("read:{path}/**", { path: "." }), [
      "read:**",
    ]);
    assert.deepEqual(await fillOne("read:{path}/**", { path: "notes/" }), [
      "read:notes/**",
    ]);
    assert.deepEqual(await fillOne("read:{path}/**", { path: "/" }), [
      "read:/**",
    ]);
    assert.deepEqual(await fillOne("read:notes/**", {}), ["read:notes/**"]);
    assert.deepEqual(await fillOne("read:/**", {}), ["read:/**"]);
  });
  await t.step("a link to a folder gives both subtrees", async () => {
    assert.deepEqual(
      await fillOne("read:{path}/**", { path: "notes/to-secrets" }),
      ["read:notes/to-secrets/**", "read:secrets/**"],
    );
  });
  await t.step("a deny on a folder below refuses the listing", async () => {
    const policy = new Policy({
      allow: ["read:**"],
      deny: ["read:secrets/**"],
    });
    const listing = await fillOne("read:{path}/**", { path: "." });
    assert.equal(policy.evaluate(listing).decision, "deny");
    const one = await fillOne("read:{path}", { path: "." });
    assert.equal(policy.evaluate(one).decision, "allow");
  });
  await t.step("a /** elsewhere stays literal text", async () => {
    assert.deepEqual(await fillOne("x-list:{path}/**", { path: "a" }), [
      "x-list:a/\\*\\*",
    ]);
  });
});

Deno.test("fillTemplates() refuses a path with too many equivalent spellings to follow", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir());
  // Five spellings of ệ; three of them in a name give 125 names, one entry
  // each: more than the gate follows for one path.
  const forms = [
    "\u1ec7",
    "e\u0323\u0302",
    "e\u0302\u0323",
    "\u1eb9\u0302",
    "\u00ea\u0323",
  ];
  const names = forms.flatMap((a) =>
    forms.flatMap((b) => forms.map((c) => a + b + c))
  );
  assert.equal(new Set(names.map((n) => n.normalize("NFC"))).size, 1);
  for (const name of names.slice(0, 70)) {
    await Deno.writeTextFile(`${root}/${name}`, "");
  }
  const error = await fillTemplates(
    [compileTemplate("read:{path}")],
    { path: names[0] },
    fileAccess(root),
  ).then(() => assert.fail("filled"), (e) => e);
  assert.ok(error instanceof FillError, String(error));
  assert.match(
    error.message,
    /^path: ".*" reaches more than 64 files through names spelled in other Unicode forms/,
  );
});

Deno.test("fillTemplates() fills a template of plain keys as any other: every value a string, or refused by name", async () => {
  assert.deepEqual(
    await fill(["x-kv:{key}={value?}"], { key: "a*", value: "b" }),
    ["x-kv:a\\*=b"],
  );
  // An optional key left out takes its target with it.
  assert.match(
    await problem(["x-kv:{key}.{value?}"], { key: "a" }),
    /empty list/,
  );
  // A missing key, an inherited one and a value of another type go the
  // general way and are refused as there.
  assert.match(
    await problem(["write:{path}"], { path: 3 }),
    /^path: expected a string, got number/,
  );
  assert.match(await problem(["x-t:{toString}"], {}), /^toString: missing/);
  assert.match(
    await problem(["x-kv:{key}={value}"], { key: "a", value: null }),
    /^value: missing/,
  );
  // The argument a refusal names is the first placeholder's.
  assert.match(
    await problem(["write:{dir}/{name}"], { dir: "..", name: "x" }),
    /^dir: .*leaves the root/,
  );
});
