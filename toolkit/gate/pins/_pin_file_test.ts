import assert from "node:assert/strict";
import { type PinData, readPins, updatePins } from "./_pin_file.ts";

async function pinsDir(): Promise<{ dir: string; path: string }> {
  const dir = await Deno.makeTempDir({ prefix: "pins-" });
  return { dir, path: `${dir}/pins.json` };
}

function pin(description: string) {
  return { digest: `sha256:${description}`, definition: { description } };
}

async function leftovers(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) names.push(entry.name);
  return names.filter((name) => name.endsWith(".tmp"));
}

Deno.test("updatePins() applies its change to the file as it is, creating it when missing", async () => {
  const { dir, path } = await pinsDir();
  try {
    const written = await updatePins(path, (data) => {
      data.tools.read = pin("reads");
    });
    assert.deepEqual(Object.keys(written.data.tools), ["read"]);
    assert.equal(await Deno.readTextFile(path), written.text);
    await updatePins(path, (data) => {
      data.newTools = "ask";
    });
    const { data } = await readPins(path);
    assert.equal(data.newTools, "ask");
    assert.deepEqual(data.tools.read, pin("reads"));
    assert.deepEqual(await leftovers(dir), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("updatePins() never loses an edit that lands while it works: it starts over on the new file", async () => {
  const { dir, path } = await pinsDir();
  try {
    await updatePins(path, (data) => {
      data.tools.read = pin("reads");
    });
    const seen: PinData[] = [];
    await updatePins(path, (data) => {
      seen.push(structuredClone(data));
      if (seen.length === 1) {
        // Another process (pins accept, an editor) writes after the read.
        Deno.writeTextFileSync(
          path,
          JSON.stringify({
            version: 1,
            newTools: "deny",
            tools: { read: pin("reads"), write: pin("writes") },
          }),
        );
      }
      data.pending["delete"] = {
        ...pin("deletes"),
        change: "added",
        fields: ["description"],
        seen: "2026-12-04T03:00:00Z",
      };
    });
    // The first attempt saw the old file; the second, the edited one.
    assert.equal(seen.length, 2);
    assert.equal(seen[0].newTools, undefined);
    assert.equal(seen[1].newTools, "deny");
    const { data } = await readPins(path);
    assert.equal(data.newTools, "deny");
    assert.deepEqual(Object.keys(data.tools).sort(), ["read", "write"]);
    assert.deepEqual(Object.keys(data.pending), ["delete"]);
    assert.deepEqual(await leftovers(dir), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("updatePins() gives up, changing nothing, when the file changes under every attempt", async () => {
  const { dir, path } = await pinsDir();
  try {
    let edits = 0;
    await assert.rejects(
      updatePins(path, (data) => {
        edits++;
        Deno.writeTextFileSync(
          path,
          JSON.stringify({ version: 1, tools: {}, pending: {}, edit: edits }),
        );
        data.newTools = "allow";
      }),
      /Cannot update the pins file: it changed under each of 5 attempts: .*pins\.json/,
    );
    assert.equal(edits, 5);
    // The last edit stands; the update never replaced it.
    assert.equal(JSON.parse(await Deno.readTextFile(path)).edit, 5);
    assert.deepEqual(await leftovers(dir), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
