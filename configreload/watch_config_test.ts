import assert from "node:assert/strict";
import { z } from "zod";
import {
  type ConfigChange,
  ConfigError,
  type ConfigWatcher,
  watchConfig,
  type WatchConfigOptions,
} from "./mod.ts";
import { inspectWatcher } from "./_watcher.ts";
import { until } from "./_test_helpers.ts";

// Short timings keep the suite quick; the poll is off unless a test is
// about it, so every change below is seen through directory events.
const FAST = { debounceMs: 40, graceMs: 150, pollMs: 0 } as const;
const Config = z.object({ name: z.string(), port: z.number().int() });
type Config = z.infer<typeof Config>;

// Waits until the watcher has acted on everything done to the files so
// far, so "nothing more happened" is asserted after a look, not before one.
// A file written in `dir` (a directory the watcher listens to) makes an
// event that comes after the earlier ones of that directory, which arrive
// in order; once an event has been heard and nothing is debounced, being
// checked or given its grace period, they have all been looked at.
let settleCount = 0;
async function settle(
  watcher: ConfigWatcher<unknown>,
  dir: string,
): Promise<void> {
  const heard = inspectWatcher(watcher).heard;
  await Deno.writeTextFile(`${dir}/.settle`, String(++settleCount));
  await until(() => {
    const state = inspectWatcher(watcher);
    return state.heard > heard && !state.debouncing && !state.checking &&
      !state.inGrace;
  }, "the watcher to act on every event");
}

// Runs `action`, then waits until the watcher has finished a check after
// it and has settled, so "nothing changed" is asserted after a look.
async function afterCheck(
  watcher: ConfigWatcher<unknown>,
  dir: string,
  action: () => Promise<void>,
): Promise<void> {
  const before = inspectWatcher(watcher).checks;
  await action();
  await until(
    () => inspectWatcher(watcher).checks > before,
    "a check of the file",
  );
  await settle(watcher, dir);
}

function json(value: unknown): string {
  return JSON.stringify(value);
}

interface Recorded<T> {
  changes: ConfigChange<T>[];
  errors: ConfigError[];
}

function record<T>(watcher: ConfigWatcher<T>): Recorded<T> {
  const seen: Recorded<T> = { changes: [], errors: [] };
  watcher.subscribe((event) => {
    if (event.type === "change") seen.changes.push(event);
    else seen.errors.push(event.error);
  });
  return seen;
}

async function inTempDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function watchJson(
  path: string,
  options: WatchConfigOptions<Config> = {},
): Promise<ConfigWatcher<Config>> {
  return await watchConfig(path, { schema: Config, ...FAST, ...options });
}

Deno.test("watchConfig() loads the file and types current by the schema", async () => {
  await inTempDir(async (dir) => {
    const path = `${dir}/app.json`;
    await Deno.writeTextFile(path, json({ name: "a", port: 1 }));
    await using watcher = await watchJson(path);
    const port: number = watcher.current.port;
    assert.equal(port, 1);
    assert.deepEqual(watcher.current, { name: "a", port: 1 });
    assert.equal(watcher.version, 0);
    assert.deepEqual(watcher.status, { state: "ok" });
    assert.equal(watcher.mode, "events");
    assert.equal(watcher.path, path);
    const digest = await crypto.subtle.digest(
      "SHA-256",
      await Deno.readFile(path),
    );
    assert.equal(
      watcher.hash,
      Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0"))
        .join(""),
    );
  });
});

Deno.test("watchConfig() reads a YAML config as its one document, an empty one as undefined", async () => {
  await inTempDir(async (dir) => {
    const path = `${dir}/app.yaml`;
    await Deno.writeTextFile(path, "---\nname: a\nport: 1\n...\n");
    {
      await using watcher = await watchJson(path);
      assert.deepEqual(watcher.current, { name: "a", port: 1 });
    }
    await Deno.writeTextFile(path, "# nothing yet\n");
    await using empty = await watchConfig(path, { ...FAST });
    assert.equal(empty.current, undefined);
  });
});

Deno.test("watchConfig() applies a plain overwrite once", async () => {
  await inTempDir(async (dir) => {
    const path = `${dir}/app.json`;
    await Deno.writeTextFile(path, json({ name: "a", port: 1 }));
    await using watcher = await watchJson(path);
    const seen = record(watcher);
    await Deno.writeTextFile(path, json({ name: "b", port: 2 }));
    await until(() => watcher.version === 1, "the overwrite");
    await settle(watcher, dir);
    assert.equal(seen.changes.length, 1);
    assert.deepEqual(watcher.current, { name: "b", port: 2 });
    assert.deepEqual(seen.changes[0].previous, { name: "a", port: 1 });
    assert.equal(seen.changes[0].version, 1);
    assert.equal(seen.changes[0].hash, watcher.hash);
    assert.deepEqual(seen.errors, []);
  });
});

Deno.test("watchConfig() follows an atomic save (temp file renamed over) and a later overwrite", async () => {
  await inTempDir(async (dir) => {
    const path = `${dir}/app.json`;
    await Deno.writeTextFile(path, json({ name: "a", port: 1 }));
    await using watcher = await watchJson(path);
    const seen = record(watcher);
    await Deno.writeTextFile(
      `${dir}/.app.json.tmp`,
      json({ name: "b", port: 2 }),
    );
    await Deno.rename(`${dir}/.app.json.tmp`, path);
    await until(() => watcher.version === 1, "the atomic save");
    await Deno.writeTextFile(path, json({ name: "c", port: 3 }));
    await until(() => watcher.version === 2, "the overwrite after it");
    await settle(watcher, dir);
    assert.equal(seen.changes.length, 2);
    assert.deepEqual(watcher.current, { name: "c", port: 3 });
    assert.deepEqual(seen.errors, []);
  });
});

Deno.test("watchConfig() follows a vim-style save and never reports the file missing", async () => {
  await inTempDir(async (dir) => {
    const path = `${dir}/app.json`;
    await Deno.writeTextFile(path, json({ name: "a", port: 1 }));
    await using watcher = await watchJson(path);
    const seen = record(watcher);
    const states = new Set<string>();
    const sampler = setInterval(() => states.add(watcher.status.state), 1);
    try {
      await Deno.rename(path, `${path}~`);
      await Deno.writeTextFile(path, json({ name: "b", port: 2 }));
      await Deno.remove(`${path}~`);
      await until(() => watcher.version === 1, "the vim save");
      await settle(watcher, dir);
    } finally {
      clearInterval(sampler);
    }
    assert.equal(seen.changes.length, 1);
    assert.deepEqual(watcher.current, { name: "b", port: 2 });
    assert.deepEqual(seen.errors, []);
    assert.deepEqual([...states], ["ok"]);
  });
});

Deno.test("watchConfig() reports a deleted file as missing, keeps the value, and loads it when recreated", async () => {
  await inTempDir(async (dir) => {
    const path = `${dir}/app.json`;
    await Deno.writeTextFile(path, json({ name: "a", port: 1 }));
    await using watcher = await watchJson(path);
    const seen = record(watcher);
    await Deno.remove(path);
    await until(() => watcher.status.state === "missing", "status missing");
    assert.deepEqual(watcher.current, { name: "a", port: 1 });
    assert.equal(seen.errors.length, 1);
    assert.equal(seen.errors[0].kind, "missing");
    assert.equal(
      seen.errors[0].message,
      `Cannot reload config: file not found: ${path}`,
    );
    await Deno.writeTextFile(path, json({ name: "b", port: 2 }));
    await until(() => watcher.version === 1, "the recreated file");
    await settle(watcher, dir);
    assert.equal(seen.changes.length, 1);
    assert.deepEqual(watcher.current, { name: "b", port: 2 });
    assert.deepEqual(watcher.status, { state: "ok" });
    assert.equal(seen.errors.length, 1);
  });
});

// What the kubelet does to a ConfigMap volume: files live in a timestamped
// directory, `..data` links to it, the visible file links through `..data`,
// and an update swaps `..data` with one rename.
async function kubeletUpdate(
  dir: string,
  generation: number,
  content: string,
): Promise<void> {
  const stamp = `..2026_12_02_00_00_0${generation}.${generation}`;
  await Deno.mkdir(`${dir}/${stamp}`);
  await Deno.writeTextFile(`${dir}/${stamp}/app.json`, content);
  await Deno.symlink(stamp, `${dir}/..data_tmp`);
  await Deno.rename(`${dir}/..data_tmp`, `${dir}/..data`);
  for await (const entry of Deno.readDir(dir)) {
    if (entry.name.startsWith("..20") && entry.name !== stamp) {
      await Deno.remove(`${dir}/${entry.name}`, { recursive: true });
    }
  }
}

Deno.test("watchConfig() follows Kubernetes ..data symlink swaps, one change each", async () => {
  await inTempDir(async (dir) => {
    await kubeletUpdate(dir, 1, json({ name: "a", port: 1 }));
    await Deno.symlink("..data/app.json", `${dir}/app.json`);
    await using watcher = await watchJson(`${dir}/app.json`);
    const seen = record(watcher);
    await kubeletUpdate(dir, 2, json({ name: "b", port: 2 }));
    await until(() => watcher.version === 1, "the first swap");
    await settle(watcher, dir);
    assert.equal(seen.changes.length, 1);
    await kubeletUpdate(dir, 3, json({ name: "c", port: 3 }));
    await until(() => watcher.version === 2, "the second swap");
    await settle(watcher, dir);
    assert.equal(seen.changes.length, 2);
    assert.deepEqual(watcher.current, { name: "c", port: 3 });
    assert.deepEqual(seen.errors, []);
  });
});

Deno.test("watchConfig() never applies a truncated file and ends at the final content", async () => {
  await inTempDir(async (dir) => {
    const path = `${dir}/app.json`;
    await Deno.writeTextFile(path, json({ name: "a", port: 1 }));
    await using watcher = await watchJson(path);
    const seen = record(watcher);
    const before = inspectWatcher(watcher).checks;
    await Deno.truncate(path, 0);
    // The watcher must have seen the empty file before it is written.
    await until(
      () => inspectWatcher(watcher).checks > before,
      "a look at the truncated file",
    );
    await Deno.writeTextFile(path, json({ name: "b", port: 2 }));
    await until(() => watcher.version === 1, "the final write");
    await settle(watcher, dir);
    assert.deepEqual(seen.changes.map((c) => c.value), [{
      name: "b",
      port: 2,
    }]);
    assert.deepEqual(watcher.current, { name: "b", port: 2 });
    assert.deepEqual(watcher.status, { state: "ok" });
  });
});

Deno.test("watchConfig() reports an empty file only after the grace period", async () => {
  await inTempDir(async (dir) => {
    const path = `${dir}/app.json`;
    await Deno.writeTextFile(path, json({ name: "a", port: 1 }));
    await using watcher = await watchJson(path);
    const seen = record(watcher);
    const truncatedAt = performance.now();
    await Deno.truncate(path, 0);
    await until(() => seen.errors.length === 1, "the report of the empty file");
    assert.ok(performance.now() - truncatedAt >= FAST.graceMs);
    assert.equal(seen.errors[0].kind, "syntax");
    assert.equal(watcher.status.state, "invalid");
    assert.deepEqual(watcher.current, { name: "a", port: 1 });
  });
});

Deno.test("watchConfig() does nothing when only the timestamps change (touch)", async () => {
  await inTempDir(async (dir) => {
    const path = `${dir}/app.json`;
    await Deno.writeTextFile(path, json({ name: "a", port: 1 }));
    await using watcher = await watchJson(path);
    const seen = record(watcher);
    const hash = watcher.hash;
    await afterCheck(watcher, dir, async () => {
      const later = new Date(Date.now() + 60_000);
      await Deno.utime(path, later, later);
    });
    assert.equal(watcher.version, 0);
    assert.equal(watcher.hash, hash);
    assert.deepEqual(seen, { changes: [], errors: [] });
  });
});

Deno.test("watchConfig() does nothing when identical bytes are rewritten", async () => {
  await inTempDir(async (dir) => {
    const path = `${dir}/app.json`;
    const text = json({ name: "a", port: 1 });
    await Deno.writeTextFile(path, text);
    await using watcher = await watchJson(path);
    const seen = record(watcher);
    const before = watcher.current;
    await afterCheck(watcher, dir, async () => {
      await Deno.writeTextFile(path, text);
      await Deno.writeTextFile(`${dir}/tmp`, text);
      await Deno.rename(`${dir}/tmp`, path);
    });
    assert.equal(watcher.version, 0);
    assert.equal(watcher.current, before, "the very same object");
    assert.deepEqual(seen, { changes: [], errors: [] });
  });
});

Deno.test("watchConfig() coalesces 100 rapid writes into one or two changes ending at the last", async () => {
  await inTempDir(async (dir) => {
    const path = `${dir}/app.json`;
    await Deno.writeTextFile(path, json({ name: "w", port: 0 }));
    // A longer quiet time than FAST so a stall of the loaded test machine
    // in the middle of the burst does not split it.
    await using watcher = await watchJson(path, { debounceMs: 150 });
    const seen = record(watcher);
    for (let i = 1; i <= 100; i++) {
      await Deno.writeTextFile(path, json({ name: "w", port: i }));
    }
    await until(() => watcher.current.port === 100, "the last write");
    await settle(watcher, dir);
    assert.ok(
      seen.changes.length >= 1 && seen.changes.length <= 2,
      `expected 1 or 2 changes, got ${seen.changes.length}`,
    );
    assert.equal(watcher.version, seen.changes.length);
    assert.deepEqual(watcher.current, { name: "w", port: 100 });
  });
});

Deno.test("watchConfig() reports invalid content once and recovers silently when the good bytes return", async () => {
  await inTempDir(async (dir) => {
    const path = `${dir}/app.json`;
    const good = json({ name: "a", port: 1 });
    await Deno.writeTextFile(path, good);
    await using watcher = await watchJson(path);
    const seen = record(watcher);
    await Deno.writeTextFile(path, '{ "name": "b",\n  "port": }');
    await until(() => seen.errors.length === 1, "the error event");
    assert.equal(watcher.status.state, "invalid");
    const error = seen.errors[0];
    assert.ok(error instanceof ConfigError);
    assert.equal(error.kind, "syntax");
    assert.equal(error.diagnostics[0].line, 2);
    assert.match(
      error.message,
      new RegExp(`^Cannot reload config: ${path}:2:`),
    );
    assert.match(error.report, /\n 2 \| {3}"port": }\n +\| +\^$/);
    // The same bad bytes again: not reported again.
    await afterCheck(
      watcher,
      dir,
      () => Deno.utime(path, new Date(), new Date()),
    );
    assert.equal(seen.errors.length, 1);
    await Deno.writeTextFile(path, good);
    await until(() => watcher.status.state === "ok", "status ok");
    await settle(watcher, dir);
    assert.equal(seen.errors.length, 1);
    assert.equal(seen.changes.length, 0);
    assert.equal(watcher.version, 0);
    assert.deepEqual(watcher.current, { name: "a", port: 1 });
  });
});

Deno.test("watchConfig() keeps the old value when the schema refuses the new one, with the issues", async () => {
  await inTempDir(async (dir) => {
    const path = `${dir}/app.json`;
    await Deno.writeTextFile(path, json({ name: "a", port: 1 }));
    await using watcher = await watchJson(path);
    const seen = record(watcher);
    await Deno.writeTextFile(path, json({ name: "a", port: "80" }));
    await until(() => watcher.status.state === "invalid", "status invalid");
    assert.deepEqual(watcher.current, { name: "a", port: 1 });
    const status = watcher.status;
    assert.ok(status.state === "invalid");
    assert.equal(status.error.kind, "schema");
    assert.deepEqual(status.error.issues.map((i) => i.path), [["port"]]);
    assert.match(
      status.error.message,
      new RegExp(`^Cannot reload config: ${path}: port: `),
    );
    assert.deepEqual(seen.errors, [status.error]);
    assert.equal(seen.changes.length, 0);
  });
});

Deno.test("watchConfig() ignores changes to sibling files", async () => {
  await inTempDir(async (dir) => {
    const path = `${dir}/app.json`;
    await Deno.writeTextFile(path, json({ name: "a", port: 1 }));
    await using watcher = await watchJson(path);
    const seen = record(watcher);
    await afterCheck(watcher, dir, async () => {
      await Deno.writeTextFile(
        `${dir}/other.json`,
        json({ name: "x", port: 9 }),
      );
      await Deno.writeTextFile(`${dir}/app.json.bak`, "junk");
      await Deno.remove(`${dir}/other.json`);
    });
    assert.equal(watcher.version, 0);
    assert.deepEqual(seen, { changes: [], errors: [] });
  });
});

Deno.test("watchConfig() follows a retargeted symlink and then edits of the new target", async () => {
  await inTempDir(async (dir) => {
    await Deno.mkdir(`${dir}/conf`);
    await Deno.mkdir(`${dir}/one`);
    await Deno.mkdir(`${dir}/two`);
    await Deno.writeTextFile(
      `${dir}/one/app.json`,
      json({ name: "a", port: 1 }),
    );
    await Deno.writeTextFile(
      `${dir}/two/app.json`,
      json({ name: "b", port: 2 }),
    );
    await Deno.symlink(`${dir}/one/app.json`, `${dir}/conf/app.json`);
    await using watcher = await watchJson(`${dir}/conf/app.json`);
    const seen = record(watcher);
    // `ln -sfn`: a new link renamed over the old one.
    await Deno.symlink(`${dir}/two/app.json`, `${dir}/conf/.app.json.new`);
    await Deno.rename(`${dir}/conf/.app.json.new`, `${dir}/conf/app.json`);
    await until(() => watcher.version === 1, "the retarget");
    assert.deepEqual(watcher.current, { name: "b", port: 2 });
    // Edits of the new target, which lives in a directory the watcher did
    // not watch at start.
    await Deno.writeTextFile(
      `${dir}/two/app.json`,
      json({ name: "c", port: 3 }),
    );
    await until(() => watcher.version === 2, "the edit of the new target");
    // The old target is no longer what the config is.
    await afterCheck(
      watcher,
      `${dir}/conf`,
      () =>
        Deno.writeTextFile(`${dir}/one/app.json`, json({ name: "z", port: 26 }))
          .then(() =>
            Deno.writeTextFile(
              `${dir}/two/app.json`,
              json({ name: "c", port: 3 }),
            )
          ),
    );
    assert.equal(seen.changes.length, 2);
    assert.deepEqual(watcher.current, { name: "c", port: 3 });
  });
});

Deno.test("watchConfig() starts with `initial` when the file is missing and loads it when it appears", async () => {
  await inTempDir(async (dir) => {
    const path = `${dir}/app.json`;
    await using watcher = await watchJson(path, {
      initial: { name: "default", port: 8080 },
    });
    const seen = record(watcher);
    assert.deepEqual(watcher.current, { name: "default", port: 8080 });
    assert.equal(watcher.status.state, "missing");
    assert.equal(watcher.hash, "");
    await Deno.writeTextFile(path, json({ name: "a", port: 1 }));
    await until(() => watcher.version === 1, "the file to load");
    assert.deepEqual(watcher.current, { name: "a", port: 1 });
    assert.deepEqual(watcher.status, { state: "ok" });
    assert.deepEqual(seen.changes[0].previous, { name: "default", port: 8080 });
    assert.deepEqual(seen.errors, []);
  });
});

Deno.test("watchConfig() starts with `initial` when the file is invalid and loads it once fixed", async () => {
  await inTempDir(async (dir) => {
    const path = `${dir}/app.json`;
    await Deno.writeTextFile(path, "{");
    await using watcher = await watchJson(path, {
      initial: { name: "default", port: 8080 },
    });
    const status = watcher.status;
    assert.ok(status.state === "invalid");
    assert.match(
      status.error.message,
      new RegExp(`^Cannot load config: ${path}:1:2: `),
    );
    await Deno.writeTextFile(path, json({ name: "a", port: 1 }));
    await until(() => watcher.version === 1, "the fixed file");
    assert.deepEqual(watcher.current, { name: "a", port: 1 });
  });
});

Deno.test("watchConfig() recovers when the parent directory is deleted and recreated", async () => {
  await inTempDir(async (root) => {
    const dir = `${root}/conf`;
    const path = `${dir}/app.json`;
    await Deno.mkdir(dir);
    await Deno.writeTextFile(path, json({ name: "a", port: 1 }));
    await using watcher = await watchJson(path);
    const seen = record(watcher);
    await Deno.remove(dir, { recursive: true });
    await until(() => watcher.status.state === "missing", "status missing");
    await Deno.mkdir(dir);
    await Deno.writeTextFile(path, json({ name: "b", port: 2 }));
    await until(() => watcher.version === 1, "the file in the new directory");
    // And the new directory is really watched: a later edit is seen too.
    await Deno.writeTextFile(path, json({ name: "c", port: 3 }));
    await until(() => watcher.version === 2, "an edit in the new directory");
    assert.deepEqual(watcher.current, { name: "c", port: 3 });
    assert.deepEqual(seen.errors.map((e) => e.kind), ["missing"]);
  });
});

Deno.test("watchConfig() recovers when the parent directory is recreated at once", async () => {
  await inTempDir(async (root) => {
    const dir = `${root}/conf`;
    const path = `${dir}/app.json`;
    await Deno.mkdir(dir);
    await Deno.writeTextFile(path, json({ name: "a", port: 1 }));
    await using watcher = await watchJson(path);
    // No pause: the new directory may get the old one's inode number.
    await Deno.remove(dir, { recursive: true });
    await Deno.mkdir(dir);
    await Deno.writeTextFile(path, json({ name: "b", port: 2 }));
    await until(() => watcher.version === 1, "the file in the new directory");
    await Deno.writeTextFile(path, json({ name: "c", port: 3 }));
    await until(() => watcher.version === 2, "an edit in the new directory");
    assert.deepEqual(watcher.current, { name: "c", port: 3 });
  });
});

Deno.test("watchConfig() close() stops every event and leaves nothing running", async () => {
  await inTempDir(async (dir) => {
    const path = `${dir}/app.json`;
    await Deno.writeTextFile(path, json({ name: "a", port: 1 }));
    const watcher = await watchJson(path, { pollMs: 50 });
    // A second watcher of the same file hears what the closed one would.
    await using witness = await watchJson(path);
    const seen = record(watcher);
    await Deno.writeTextFile(path, json({ name: "b", port: 2 }));
    // Close with a debounce pending and a poll due: neither may fire after.
    await watcher.close();
    assert.equal(watcher.closed, true);
    assert.deepEqual(inspectWatcher(watcher), {
      ...inspectWatcher(watcher),
      debouncing: false,
      checking: false,
      inGrace: false,
      polling: false,
      dirs: [],
    });
    await Deno.writeTextFile(path, json({ name: "c", port: 3 }));
    await until(() => witness.current.name === "c", "the witness's change");
    await Deno.remove(path);
    await until(() => witness.status.state === "missing", "missing, seen");
    assert.equal(seen.changes.length, 0);
    assert.deepEqual(seen.errors, []);
    await watcher.close();
    await assert.rejects(
      watcher.reload(),
      /Cannot reload config: the watcher is closed/,
    );
    // The op and resource sanitizers fail this test if a watch, a timer or
    // a signal listener is left behind.
  });
});

Deno.test("watchConfig() checks the file on SIGHUP", {
  ignore: Deno.build.os === "windows",
}, async () => {
  await inTempDir(async (dir) => {
    const path = `${dir}/app.json`;
    await Deno.writeTextFile(path, json({ name: "a", port: 1 }));
    // No events and no poll: only the signal can make it look.
    await using watcher = await watchJson(path, { fsEvents: false });
    assert.equal(watcher.mode, "manual");
    // A watcher with events on shows when the write has been noticed.
    await using witness = await watchJson(path);
    await Deno.writeTextFile(path, json({ name: "b", port: 2 }));
    await until(() => witness.version === 1, "the witness's change");
    assert.equal(watcher.version, 0, "nothing looks without the signal");
    const state = inspectWatcher(watcher);
    assert.deepEqual(
      [state.dirs, state.polling, state.debouncing, state.checking],
      [[], false, false, false],
      "and nothing is set to look later",
    );
    Deno.kill(Deno.pid, "SIGHUP");
    await until(() => watcher.version === 1, "the check the signal asks for");
    assert.deepEqual(watcher.current, { name: "b", port: 2 });
  });
});

Deno.test("watchConfig() polls when file-system events are off", async () => {
  await inTempDir(async (dir) => {
    const path = `${dir}/app.json`;
    await Deno.writeTextFile(path, json({ name: "a", port: 1 }));
    await using watcher = await watchJson(path, {
      fsEvents: false,
      pollMs: 100,
    });
    assert.equal(watcher.mode, "polling");
    await Deno.writeTextFile(path, json({ name: "b", port: 2 }));
    await until(() => watcher.version === 1, "the poll to see the change");
    assert.deepEqual(watcher.current, { name: "b", port: 2 });
  });
});

Deno.test("watchConfig() reload() checks now and says whether something changed", async () => {
  await inTempDir(async (dir) => {
    const path = `${dir}/app.json`;
    await Deno.writeTextFile(path, json({ name: "a", port: 1 }));
    await using watcher = await watchJson(path, { fsEvents: false });
    assert.equal(await watcher.reload(), false);
    await Deno.writeTextFile(path, json({ name: "b", port: 2 }));
    const [first, second] = await Promise.all([
      watcher.reload(),
      watcher.reload(),
    ]);
    assert.equal(first, true);
    assert.equal(second, false, "the second check found nothing new");
    assert.equal(watcher.version, 1);
  });
});

Deno.test("watchConfig() keeps going when a listener throws", async () => {
  await inTempDir(async (dir) => {
    const path = `${dir}/app.json`;
    await Deno.writeTextFile(path, json({ name: "a", port: 1 }));
    const thrown: unknown[] = [];
    await using watcher = await watchJson(path, {
      onListenerError: (error) => thrown.push(error),
    });
    watcher.subscribe(() => {
      throw new Error("listener bug");
    });
    watcher.subscribe(() => Promise.reject(new Error("async listener bug")));
    const seen = record(watcher);
    await Deno.writeTextFile(path, json({ name: "b", port: 2 }));
    await until(() => seen.changes.length === 1, "the first change");
    await Deno.writeTextFile(path, json({ name: "c", port: 3 }));
    await until(() => seen.changes.length === 2, "the second change");
    await until(() => thrown.length === 4, "four listener errors");
    assert.deepEqual(
      thrown.map((e) => (e as Error).message).sort(),
      [
        "async listener bug",
        "async listener bug",
        "listener bug",
        "listener bug",
      ],
    );
  });
});

Deno.test("watchConfig() subscribe() returns a function that stops the listener", async () => {
  await inTempDir(async (dir) => {
    const path = `${dir}/app.json`;
    await Deno.writeTextFile(path, json({ name: "a", port: 1 }));
    await using watcher = await watchJson(path);
    let calls = 0;
    const unsubscribe = watcher.subscribe(() => calls++);
    unsubscribe();
    unsubscribe();
    await Deno.writeTextFile(path, json({ name: "b", port: 2 }));
    await until(() => watcher.version === 1, "the change");
    assert.equal(calls, 0);
    assert.throws(
      () => watcher.subscribe("nope" as never),
      (error) =>
        error instanceof TypeError &&
        /expected a listener function, got "nope"/.test(error.message),
    );
  });
});

Deno.test("watchConfig() watchers in one process do not disturb one another", async () => {
  await inTempDir(async (dir) => {
    await Deno.mkdir(`${dir}/b`);
    const pathA = `${dir}/a.json`;
    const pathA2 = `${dir}/a2.json`;
    const pathB = `${dir}/b/b.json`;
    await Deno.writeTextFile(pathA, json({ name: "a", port: 1 }));
    await Deno.writeTextFile(pathA2, json({ name: "a2", port: 1 }));
    await Deno.writeTextFile(pathB, json({ name: "b", port: 1 }));
    await using a = await watchJson(pathA);
    await using a2 = await watchJson(pathA2);
    const b = await watchJson(pathB);
    await Deno.writeTextFile(pathA, json({ name: "a", port: 2 }));
    await until(() => a.version === 1, "a's change");
    await b.close();
    await Deno.writeTextFile(pathA2, json({ name: "a2", port: 2 }));
    await until(() => a2.version === 1, "a2's change after b closed");
    await Deno.writeTextFile(pathA, json({ name: "a", port: 3 }));
    await until(() => a.version === 2, "a's second change");
    await settle(a, dir);
    await settle(a2, dir);
    assert.equal(a.version, 2);
    assert.equal(a2.version, 1);
    assert.equal(b.version, 0);
    assert.deepEqual(a.current, { name: "a", port: 3 });
    assert.deepEqual(a2.current, { name: "a2", port: 2 });
  });
});

Deno.test("watchConfig() iterates over changes until closed", async () => {
  await inTempDir(async (dir) => {
    const path = `${dir}/app.json`;
    await Deno.writeTextFile(path, json({ name: "a", ports: [] }));
    const watcher = await watchConfig<{ name: string }>(path, FAST);
    const names: string[] = [];
    const consumed = (async () => {
      for await (const change of watcher) names.push(change.value.name);
    })();
    for (const name of ["b", "c"]) {
      const version = watcher.version;
      await Deno.writeTextFile(path, json({ name }));
      await until(() => watcher.version === version + 1, `change ${name}`);
    }
    await watcher.close();
    await consumed;
    assert.deepEqual(names, ["b", "c"]);
    // An iterator taken after close is finished at once.
    const late = await watcher[Symbol.asyncIterator]().next();
    assert.equal(late.done, true);
  });
});

Deno.test("watchConfig() closes when its AbortSignal aborts", async () => {
  await inTempDir(async (dir) => {
    const path = `${dir}/app.json`;
    await Deno.writeTextFile(path, json({ name: "a", port: 1 }));
    const controller = new AbortController();
    const watcher = await watchJson(path, { signal: controller.signal });
    controller.abort();
    assert.equal(watcher.closed, true);
    await watcher.close();
    await assert.rejects(
      watchJson(path, { signal: AbortSignal.abort(new Error("stop")) }),
      /stop/,
    );
    const late = new AbortController();
    const starting = watchJson(path, { signal: late.signal });
    late.abort(new Error("stopped while loading"));
    await assert.rejects(starting, /stopped while loading/);
  });
});

Deno.test("watchConfig() refuses files larger than maxBytes and keeps the value", async () => {
  await inTempDir(async (dir) => {
    const path = `${dir}/app.json`;
    await Deno.writeTextFile(path, json({ name: "a", port: 1 }));
    await using watcher = await watchJson(path, { maxBytes: 64 });
    await Deno.writeTextFile(path, json({ name: "x".repeat(100), port: 1 }));
    await until(() => watcher.status.state === "invalid", "the refusal");
    const status = watcher.status;
    assert.ok(status.state === "invalid");
    assert.equal(status.error.kind, "too-large");
    assert.equal(
      status.error.message,
      `Cannot reload config: file is larger than maxBytes (64 bytes): ${path}`,
    );
    assert.deepEqual(watcher.current, { name: "a", port: 1 });
  });
});

Deno.test("watchConfig() parses with a given parse function", async (t) => {
  await inTempDir(async (dir) => {
    const path = `${dir}/app.conf`;
    const parseLines = (text: string) => {
      const entries = text.split("\n").filter(Boolean).map((line, i) => {
        const eq = line.indexOf("=");
        if (eq === -1) {
          throw Object.assign(new SyntaxError("Expected key=value"), {
            line: i + 1,
            column: 1,
          });
        }
        return [line.slice(0, eq), line.slice(eq + 1)];
      });
      return Object.fromEntries(entries);
    };
    await Deno.writeTextFile(path, "name=a\nport=1\n");
    await t.step("the value comes from the function", async () => {
      await using watcher = await watchConfig(path, {
        ...FAST,
        format: parseLines,
      });
      assert.deepEqual(watcher.current, { name: "a", port: "1" });
    });
    await t.step(
      "its error's line and column become the diagnostic",
      async () => {
        await Deno.writeTextFile(path, "name=a\nport\n");
        try {
          await watchConfig(path, { ...FAST, format: parseLines });
          assert.fail("expected a ConfigError");
        } catch (error) {
          assert.ok(error instanceof ConfigError);
          assert.equal(error.kind, "syntax");
          assert.deepEqual(error.diagnostics.map((d) => [d.line, d.column]), [[
            2,
            1,
          ]]);
          assert.equal(
            error.message,
            `Cannot load config: ${path}:2:1: Expected key=value`,
          );
          assert.ok(error.cause instanceof SyntaxError);
        }
      },
    );
  });
});

Deno.test("watchConfig() fails fast at start with a ConfigError that says what is wrong", async (t) => {
  await inTempDir(async (dir) => {
    async function startError(
      path: string,
      options: WatchConfigOptions<Config> = {},
    ): Promise<ConfigError> {
      try {
        const watcher = await watchJson(path, options);
        await watcher.close();
      } catch (error) {
        assert.ok(error instanceof ConfigError, String(error));
        return error;
      }
      throw new Error("expected watchConfig() to reject");
    }
    await t.step("missing file", async () => {
      const error = await startError(`${dir}/none.json`);
      assert.equal(error.kind, "missing");
      assert.equal(
        error.message,
        `Cannot load config: file not found: ${dir}/none.json`,
      );
    });
    await t.step(
      "syntax error, with line:column and a code frame",
      async () => {
        await Deno.writeTextFile(`${dir}/bad.yaml`, "name: a\nport: [1,\n");
        const error = await startError(`${dir}/bad.yaml`);
        assert.equal(error.kind, "syntax");
        // Where exactly YAML reports an unclosed "[" is validate/'s call;
        // the message must carry that position and the report its frame.
        const [first] = error.diagnostics;
        assert.ok(first.line >= 2, `line ${first.line}`);
        assert.equal(
          error.message,
          `Cannot load config: ${dir}/bad.yaml:${first.line}:${first.column}: ${first.message}`,
        );
        assert.match(error.report, /\n 2 \| port: \[1,\n/);
        assert.match(error.hash ?? "", /^[0-9a-f]{64}$/);
      },
    );
    await t.step("schema failure, with the issues", async () => {
      await Deno.writeTextFile(
        `${dir}/schema.toml`,
        'name = "a"\nport = 1.5\n',
      );
      const error = await startError(`${dir}/schema.toml`);
      assert.equal(error.kind, "schema");
      assert.deepEqual(error.issues.map((i) => i.path), [["port"]]);
      assert.match(error.message, /: port: /);
      assert.match(error.report, /does not match the schema:\n {2}port: /);
    });
    await t.step("several YAML documents", async () => {
      await Deno.writeTextFile(
        `${dir}/multi.yaml`,
        "name: a\nport: 1\n---\nname: b\n",
      );
      const error = await startError(`${dir}/multi.yaml`);
      assert.equal(error.kind, "syntax");
      assert.equal(error.diagnostics[0].line, 3);
      assert.match(
        error.message,
        /Expected one YAML document, found 2: a second document starts here/,
      );
    });
    await t.step("a directory", async () => {
      await Deno.mkdir(`${dir}/sub.json`);
      const error = await startError(`${dir}/sub.json`);
      assert.equal(error.kind, "not-a-file");
      assert.equal(
        error.message,
        `Cannot load config: not a regular file: ${dir}/sub.json`,
      );
    });
    await t.step("too large", async () => {
      await Deno.writeTextFile(`${dir}/big.json`, json({ name: "a", port: 1 }));
      const error = await startError(`${dir}/big.json`, { maxBytes: 10 });
      assert.equal(error.kind, "too-large");
    });
  });
});

Deno.test("watchConfig() refuses bad arguments with TypeError or RangeError", async (t) => {
  const cases: [string, () => Promise<unknown>, ErrorConstructor, RegExp][] = [
    [
      "a path that is not a string",
      () => watchConfig(42 as never),
      TypeError,
      /expected the path as a non-empty string, got 42/,
    ],
    ["an empty path", () => watchConfig(""), TypeError, /got an empty string/],
    [
      "options that are not an object",
      () => watchConfig("a.json", "x" as never),
      TypeError,
      /expected options as an object/,
    ],
    [
      "an unknown extension",
      () => watchConfig("a.ini"),
      TypeError,
      /cannot tell the format from the file name: a\.ini/,
    ],
    [
      "an unknown format name",
      () => watchConfig("a.json", { format: "ini" as never }),
      RangeError,
      /unknown options\.format "ini": expected one of json, jsonc, yaml, toml, xml/,
    ],
    [
      "a value format",
      () => watchConfig("a.json", { format: "regex" }),
      RangeError,
      /a format for single values/,
    ],
    [
      "a negative debounce",
      () => watchConfig("a.json", { debounceMs: -1 }),
      RangeError,
      /options\.debounceMs must be from 0/,
    ],
    [
      "a debounce that is not a number",
      () => watchConfig("a.json", { debounceMs: "5" as never }),
      TypeError,
      /options\.debounceMs must be a number of milliseconds, got "5"/,
    ],
    [
      "maxWaitMs below debounceMs",
      () => watchConfig("a.json", { debounceMs: 100, maxWaitMs: 50 }),
      RangeError,
      /maxWaitMs must be at least/,
    ],
    [
      "a fractional maxBytes",
      () => watchConfig("a.json", { maxBytes: 1.5 }),
      RangeError,
      /maxBytes must be a whole number of bytes >= 1, got 1\.5/,
    ],
    [
      "a schema that is not one",
      () => watchConfig("a.json", { schema: {} as never }),
      TypeError,
      /options\.schema must be a Standard Schema/,
    ],
    [
      "a signal that is not an AbortSignal",
      () => watchConfig("a.json", { signal: {} as never }),
      TypeError,
      /options\.signal must be an AbortSignal/,
    ],
    [
      "an unknown reload signal",
      () => watchConfig("a.json", { reloadOnSignal: 7 as never }),
      TypeError,
      /reloadOnSignal must be a signal name/,
    ],
  ];
  for (const [name, run, type, message] of cases) {
    await t.step(name, async () => {
      await assert.rejects(run, (error) => {
        assert.ok(error instanceof type, `${name}: got ${error}`);
        assert.match((error as Error).message, /^Cannot watch config: /);
        assert.match((error as Error).message, message);
        return true;
      });
    });
  }
});

Deno.test("watchConfig() falls back to polling when it may not watch directories, and says so once", async () => {
  await inTempDir(async (dir) => {
    const path = `${dir}/app.json`;
    await Deno.writeTextFile(path, json({ name: "a", port: 1 }));
    const child = `${dir}/child.ts`;
    const mod = new URL("./mod.ts", import.meta.url).href;
    await Deno.writeTextFile(
      child,
      `import { watchConfig } from ${JSON.stringify(mod)};
await using watcher = await watchConfig(${JSON.stringify(path)}, {
  debounceMs: 20,
  pollMs: 0,
});
console.log(watcher.mode);
const next = watcher[Symbol.asyncIterator]().next();
console.log("ready");
console.log(JSON.stringify((await next).value.value));
`,
    );
    // Reading the file is allowed, watching its directory is not.
    const command = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-prompt",
        "--config",
        new URL("../deno.json", import.meta.url).pathname,
        `--allow-read=${path}`,
        child,
      ],
      stdout: "piped",
      stderr: "piped",
    });
    const subprocess = command.spawn();
    // A child that never sees the edit must fail the test, not hang it.
    const killer = setTimeout(() => subprocess.kill(), 15_000);
    const stderrText = new Response(subprocess.stderr).text();
    const lines: string[] = [];
    let buffered = "";
    const decoder = new TextDecoder();
    const reader = subprocess.stdout.getReader();
    async function readLine(): Promise<string | undefined> {
      while (!buffered.includes("\n")) {
        const { value, done } = await reader.read();
        if (done) return undefined;
        buffered += decoder.decode(value, { stream: true });
      }
      const at = buffered.indexOf("\n");
      const line = buffered.slice(0, at);
      buffered = buffered.slice(at + 1);
      lines.push(line);
      return line;
    }
    // Edit once the child is watching; it can only notice by polling.
    while ((await readLine()) !== "ready") {
      if (lines.length > 5) break;
    }
    await Deno.writeTextFile(path, json({ name: "b", port: 2 }));
    while ((await readLine()) !== undefined);
    const status = await subprocess.status;
    clearTimeout(killer);
    const stderr = await stderrText;
    assert.equal(status.code, 0, stderr);
    assert.deepEqual(lines, [
      "polling",
      "ready",
      json({ name: "b", port: 2 }),
    ]);
    const warnings = stderr.split("\n").filter((line) =>
      line.includes(
        "Cannot watch config: falling back to polling every 1000 ms",
      )
    );
    assert.equal(warnings.length, 1, stderr);
  });
});

Deno.test("watchConfig() refuses a reload signal the platform does not know", async () => {
  await inTempDir(async (dir) => {
    const path = `${dir}/app.json`;
    await Deno.writeTextFile(path, json({ name: "a", port: 1 }));
    await assert.rejects(
      watchJson(path, { reloadOnSignal: "SIGNOPE" as Deno.Signal }),
      (error) =>
        error instanceof TypeError &&
        error.message.startsWith(
          'Cannot watch config: cannot listen for options.reloadOnSignal "SIGNOPE": ',
        ),
    );
  });
});
