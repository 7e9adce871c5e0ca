// Internal: the naming of composed servers, shared by `server.mount()` and
// (later) the gate's aggregate, so both prefix, refuse and route alike. A
// group is the names one server exposes under one prefix; a name the host
// sees is `<prefix>_<name>` (FastMCP's convention), or the name itself under
// the empty prefix. Nothing here knows a server: groups are plain names.

/** Tool and prompt names as MCP clients accept them. */
export const EXPOSED_NAME = /^[A-Za-z0-9._-]{1,128}$/;

/** What joins a prefix to a name. */
export const PREFIX_SEPARATOR = "_";

const PREFIX = /^[A-Za-z0-9.-][A-Za-z0-9._-]{0,126}$/;

/**
 * The names of one server under one prefix.
 *
 * @example
 * ```ts
 * import type { NameGroup } from "./mount_names.ts";
 * const files: NameGroup = { label: 'mount "files"', prefix: "files", names: () => ["read"] };
 * ```
 */
export interface NameGroup {
  /** How an error names the group, such as `mount "files"`. */
  readonly label: string;
  /** The group's prefix; `""` exposes its names as they are. */
  readonly prefix: string;
  /** Every name the group holds, listed or not (a disabled one may come back). */
  names(): Iterable<string>;
}

/** Two groups that expose the same name. */
export interface NameCollision {
  /** The name both expose. */
  exposed: string;
  /** The group that held it first, and its own name for it. */
  first: { label: string; name: string };
  /** The group that exposes it too, and its own name for it. */
  second: { label: string; name: string };
}

/**
 * Checks a mount prefix: `""`, or 1-127 characters of the tool name rule
 * not starting with the separator; a bad one is a `TypeError`.
 *
 * @example
 * ```ts
 * import { checkPrefix } from "./mount_names.ts";
 * checkPrefix("files", "Cannot mount server"); // "files"
 * ```
 */
export function checkPrefix(prefix: unknown, action: string): string {
  if (typeof prefix !== "string") {
    throw new TypeError(
      `${action}: expected a prefix string, got ${
        prefix === null ? "null" : typeof prefix
      }`,
    );
  }
  if (prefix !== "" && !PREFIX.test(prefix)) {
    throw new TypeError(
      `${action}: invalid prefix ${
        JSON.stringify(prefix)
      }: expected "" or 1-127 characters of A-Z a-z 0-9 . _ - not starting with _`,
    );
  }
  return prefix;
}

/**
 * The name the host sees for `name` under `prefix`.
 *
 * @example
 * ```ts
 * import { joinName } from "./mount_names.ts";
 * joinName("files", "read"); // "files_read"
 * joinName("", "read"); // "read"
 * ```
 */
export function joinName(prefix: string, name: string): string {
  return prefix === "" ? name : `${prefix}${PREFIX_SEPARATOR}${name}`;
}

/**
 * The group's own name for `exposed` under `prefix`; `undefined` when the
 * prefix does not fit.
 *
 * @example
 * ```ts
 * import { splitName } from "./mount_names.ts";
 * splitName("files", "files_read"); // "read"
 * splitName("files", "notes_read"); // undefined
 * ```
 */
export function splitName(prefix: string, exposed: string): string | undefined {
  if (prefix === "") return exposed;
  const head = prefix + PREFIX_SEPARATOR;
  return exposed.length > head.length && exposed.startsWith(head)
    ? exposed.slice(head.length)
    : undefined;
}

/**
 * The first name two groups both expose, or `undefined`.
 *
 * @example
 * ```ts
 * import { findCollision } from "./mount_names.ts";
 * findCollision([
 *   { label: "the server", prefix: "", names: () => ["files_read"] },
 *   { label: 'mount "files"', prefix: "files", names: () => ["read"] },
 * ])?.exposed; // "files_read"
 * ```
 */
export function findCollision(
  groups: readonly NameGroup[],
): NameCollision | undefined {
  const seen = new Map<string, { label: string; name: string }>();
  for (const group of groups) {
    for (const name of group.names()) {
      const exposed = joinName(group.prefix, name);
      const first = seen.get(exposed);
      const here = { label: group.label, name };
      if (first !== undefined) return { exposed, first, second: here };
      seen.set(exposed, here);
    }
  }
  return undefined;
}

/**
 * Throws a `TypeError` naming both sides when two groups expose one name,
 * or when a prefixed name breaks the name rule.
 *
 * @example
 * ```ts
 * import { checkNames } from "./mount_names.ts";
 * checkNames([{ label: "the server", prefix: "", names: () => ["read"] }], {
 *   kind: "tool",
 *   action: "Cannot mount server",
 * });
 * ```
 */
export function checkNames(
  groups: readonly NameGroup[],
  options: { kind: string; action: string },
): void {
  for (const group of groups) {
    for (const name of group.names()) {
      checkExposedName(joinName(group.prefix, name), {
        label: group.label,
        name,
      }, options);
    }
  }
  const collision = findCollision(groups);
  if (collision !== undefined) throw collisionError(collision, options);
}

/**
 * Throws a `TypeError` when the name `side` would be exposed as breaks the
 * name rule (a prefix made it too long).
 *
 * @example
 * ```ts
 * import { checkExposedName } from "./mount_names.ts";
 * checkExposedName("files_read", { label: 'mount "files"', name: "read" }, {
 *   kind: "tool",
 *   action: "Cannot mount server",
 * });
 * ```
 */
export function checkExposedName(
  exposed: string,
  side: { label: string; name: string },
  options: { kind: string; action: string },
): void {
  if (EXPOSED_NAME.test(exposed)) return;
  throw new TypeError(
    `${options.action}: ${options.kind} ${
      JSON.stringify(side.name)
    } of ${side.label} would be named ${
      JSON.stringify(exposed)
    }: expected 1-128 characters of A-Z a-z 0-9 . _ -`,
  );
}

/**
 * The `TypeError` of a collision, naming the exposed name and both sides,
 * the newcomer first.
 *
 * @example
 * ```ts
 * import { collisionError } from "./mount_names.ts";
 * collisionError({
 *   exposed: "files_read",
 *   first: { label: 'server "app"', name: "files_read" },
 *   second: { label: 'mount "files"', name: "read" },
 * }, { kind: "tool", action: "Cannot mount server" }).message;
 * ```
 */
export function collisionError(
  collision: NameCollision,
  options: { kind: string; action: string },
): TypeError {
  const { exposed, first, second } = collision;
  const side = (s: { label: string; name: string }) =>
    `${options.kind} ${JSON.stringify(s.name)} of ${s.label}`;
  return new TypeError(
    `${options.action}: name collision on ${JSON.stringify(exposed)}: ${
      side(second)
    } and ${side(first)}`,
  );
}

/**
 * The group that serves `exposed` and its own name for it: the first group
 * whose prefix fits and for which `has` holds. With names checked by
 * {@linkcode checkNames}, at most one does.
 *
 * @example
 * ```ts
 * import { routeName } from "./mount_names.ts";
 * const groups = [{ label: 'mount "files"', prefix: "files", names: () => ["read"] }];
 * routeName(groups, "files_read", (_group, name) => name === "read")?.name; // "read"
 * ```
 */
export function routeName<G extends NameGroup>(
  groups: readonly G[],
  exposed: string,
  has: (group: G, name: string) => boolean,
): { group: G; name: string } | undefined {
  for (const group of groups) {
    const name = splitName(group.prefix, exposed);
    if (name !== undefined && has(group, name)) return { group, name };
  }
  return undefined;
}
