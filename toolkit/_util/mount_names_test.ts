import assert from "node:assert/strict";
import {
  checkNames,
  checkPrefix,
  findCollision,
  joinName,
  type NameGroup,
  routeName,
  splitName,
} from "./mount_names.ts";

function group(label: string, prefix: string, names: string[]): NameGroup {
  return { label, prefix, names: () => names };
}

Deno.test("a prefix joins a name with _, and splits it back only where it fits", () => {
  assert.equal(joinName("files", "read"), "files_read");
  assert.equal(joinName("", "read"), "read");
  assert.equal(splitName("files", "files_read"), "read");
  assert.equal(splitName("", "files_read"), "files_read");
  assert.equal(splitName("files", "filesread"), undefined);
  assert.equal(splitName("files", "files_"), undefined);
  assert.equal(splitName("files", "notes_read"), undefined);
});

Deno.test("a prefix is empty or a name of the tool rule not starting with _", () => {
  assert.equal(checkPrefix("", "Cannot mount"), "");
  assert.equal(checkPrefix("web.v2-beta", "Cannot mount"), "web.v2-beta");
  for (const bad of ["_files", "a b", "x".repeat(128), "é"]) {
    assert.throws(
      () => checkPrefix(bad, "Cannot mount"),
      new TypeError(
        `Cannot mount: invalid prefix ${
          JSON.stringify(bad)
        }: expected "" or 1-127 characters of A-Z a-z 0-9 . _ - not starting with _`,
      ),
    );
  }
  assert.throws(() => checkPrefix(3, "Cannot mount"), TypeError);
});

Deno.test("a collision names the exposed name and both sides", async (t) => {
  await t.step("a prefixed name against a plain one", () => {
    const groups = [
      group("the host", "", ["files_read", "ping"]),
      group('server "files"', "files", ["read", "write"]),
    ];
    assert.deepEqual(findCollision(groups), {
      exposed: "files_read",
      first: { label: "the host", name: "files_read" },
      second: { label: 'server "files"', name: "read" },
    });
    assert.throws(
      () => checkNames(groups, { kind: "tool", action: "Cannot start" }),
      new TypeError(
        'Cannot start: name collision on "files_read": tool "read" of server "files" and tool "files_read" of the host',
      ),
    );
  });

  await t.step("two prefixes that overlap", () => {
    const groups = [
      group("a", "x", ["y_z"]),
      group("b", "x_y", ["z"]),
    ];
    assert.equal(findCollision(groups)?.exposed, "x_y_z");
  });

  await t.step("no prefix, no collision: allowed", () => {
    const groups = [group("a", "", ["read"]), group("b", "", ["write"])];
    assert.equal(findCollision(groups), undefined);
    checkNames(groups, { kind: "tool", action: "Cannot start" });
  });

  await t.step("a prefixed name longer than the rule allows", () => {
    assert.throws(
      () =>
        checkNames([group("a", "abc", ["t".repeat(126)])], {
          kind: "prompt",
          action: "Cannot start",
        }),
      /prompt "t{126}" of a would be named "abc_t{126}"/,
    );
  });
});

Deno.test("a name routes to the group whose prefix fits and that has it", () => {
  const groups = [
    group("files", "files", ["read"]),
    group("plain", "", ["ping", "files_extra"]),
  ];
  const has = (g: NameGroup, name: string) => [...g.names()].includes(name);
  assert.deepEqual(routeName(groups, "files_read", has), {
    group: groups[0],
    name: "read",
  });
  // The prefix fits "files", but only the unprefixed group has the name.
  assert.deepEqual(routeName(groups, "files_extra", has), {
    group: groups[1],
    name: "files_extra",
  });
  assert.equal(routeName(groups, "files_nope", has), undefined);
});
