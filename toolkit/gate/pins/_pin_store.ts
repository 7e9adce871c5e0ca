// Internal: where the pins are kept. Without Redis, the pins file (its text
// tells a later edit). With Redis, one hash per pins file, keyed by the
// file's absolute path so that gate instances with the same policy share
// it: `doc` (the pins file's JSON) and `rev` (raised at each write). A
// write is a compare and swap in one Lua script, of the revision the
// change was made from, so of two instances racing to pin the first list,
// one writes first and the other's change runs again on what it wrote.
// The hash is made from the pins file when there is one (the pins a single
// gate made carry over), and never expires: pins are a trust record.

import { resolve } from "node:path";
import { type Link, openLink, redacted } from "../../redis/_link.ts";
import {
  emptyPins,
  parsePins,
  type PinData,
  type PinSnapshot,
  readPins,
  updatePins,
} from "./_pin_file.ts";

/** Where a gate's pins are kept. */
export interface PinStore {
  /** How a command names them: the file, and `--redis URL` when in Redis. */
  readonly name: string;
  /** Whether other gate instances write them too. */
  readonly shared: boolean;
  /** The pins now; `text` is their revision (`undefined`: none yet). */
  read(): Promise<PinSnapshot>;
  /** Applies `change` to the pins as they are now (maybe more than once). */
  update(change: (data: PinData) => void): Promise<PinSnapshot>;
}

/** The pins file at `path`. */
export function filePinStore(path: string): PinStore {
  return {
    name: path,
    shared: false,
    read: () => readPins(path),
    update: (change) => updatePins(path, change),
  };
}

// KEYS: hash. Returns { rev, doc } or {}.
const READ = `return redis.call('HMGET', KEYS[1], 'rev', 'doc')`;

// KEYS: hash. ARGV: doc. Makes the hash from the file, unless it is there.
const SEED = `if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'rev', '1', 'doc', ARGV[1])
return 1`;

// KEYS: hash. ARGV: the revision the change was made from ('' for none),
// the new doc. Returns the new revision, or false when it moved meanwhile.
const SWAP = `local rev = redis.call('HGET', KEYS[1], 'rev') or ''
if rev ~= ARGV[1] then return false end
local next = redis.call('HINCRBY', KEYS[1], 'rev', 1)
redis.call('HSET', KEYS[1], 'doc', ARGV[2])
return tostring(next)`;

/** How often an update starts over when another instance wrote meanwhile. */
const UPDATE_ATTEMPTS = 20;

/** The Redis key of the pins of the file at `path`. */
export function pinsKey(path: string, prefix = "forge-gate:"): string {
  return `${prefix}pins:${resolve(path)}`;
}

/**
 * The pins of the file at `path`, kept in Redis over `link` (`url`, for
 * messages, without its password) and shared by every gate using it.
 */
export function redisPinStore(
  link: Link,
  path: string,
  options: { url: string; prefix?: string },
): PinStore {
  const key = pinsKey(path, options.prefix);
  let seeded = false;
  const seed = async () => {
    if (seeded) return;
    // The pins a gate made in the file before Redis: kept, not made anew.
    const { text } = await readPins(path);
    if (text !== undefined) await link.eval(SEED, [key], [text]);
    seeded = true;
  };
  const read = async (): Promise<PinSnapshot> => {
    await seed();
    const reply = await link.eval(READ, [key], []);
    const [rev, doc] = Array.isArray(reply) ? reply : [];
    if (typeof rev !== "string" || typeof doc !== "string") {
      return { data: emptyPins(), text: undefined };
    }
    return { data: parsePins(doc, `redis ${key}`), text: rev };
  };
  return {
    name: `${path} --redis ${options.url}`,
    shared: true,
    read,
    update: async (change) => {
      for (let attempt = 1; attempt <= UPDATE_ATTEMPTS; attempt++) {
        const { data, text: before } = await read();
        change(data);
        const doc = JSON.stringify(data, null, 2) + "\n";
        const rev = await link.eval(SWAP, [key], [before ?? "", doc]);
        if (typeof rev === "string") return { data, text: rev };
      }
      throw new Error(
        `Cannot update the pins in Redis: they changed under each of ${UPDATE_ATTEMPTS} attempts: ${key}`,
      );
    },
  };
}

/** The pins stores of one gate in Redis, over one link opened when first needed. */
export interface RedisPinStores {
  /** The store of the pins file at `path`. */
  open(path: string): Promise<PinStore>;
  /** Closes the link, if it was opened. */
  close(): Promise<void>;
}

/**
 * Pins in Redis at `url` (`redis://` or `rediss://`), for a gate whose
 * servers' pins files may be many or none: the link is opened by the first
 * `open`.
 */
export function redisPinStores(
  url: string,
  onError: (message: string) => void,
): RedisPinStores {
  let link: Promise<Link> | undefined;
  return {
    open: async (path) => {
      if (!/^rediss?:\/\//.test(url)) {
        throw new TypeError(
          `Cannot keep the pins in Redis: expected a redis:// or rediss:// URL, got ${
            JSON.stringify(url)
          }`,
        );
      }
      link ??= openLink(url, {
        timeoutMs: 1_000,
        connectTimeoutMs: 5_000,
        onError,
      });
      return redisPinStore(await link, path, { url: redacted(url) });
    },
    close: async () => {
      const opened = await link?.catch(() => undefined);
      await opened?.close();
    },
  };
}
