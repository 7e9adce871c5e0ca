// Internal: where a field of a policy file is written, so that a wrong rule
// is reported as `file:line:column`. The parsers give values without
// positions, so this searches the text: the key, then the rule string after
// it, in each spelling the formats allow. It is a pointer for a human, and
// falls back to the key (or 1:1) when a spelling is not found.

/** A 1-based position in a text. */
export interface Place {
  line: number;
  column: number;
}

/**
 * The position of the value at `path` (`["deny", 1]`, `["unprobed"]`,
 * `["tools", "search"]`, `["tools", "write_file", "patterns", 0]`) in a
 * policy file's text, `items` being the list that holds the last index; `column` (1-based, inside
 * a rule string) moves the position into the rule when the rule is written
 * verbatim.
 */
export function locateField(
  text: string,
  path: readonly (string | number)[],
  items: readonly unknown[] = [],
  column?: number,
): Place {
  if (path.length === 0) return firstContent(text);
  let key = String(path[0]);
  let keyAt = findKey(text, key);
  if (keyAt === -1) return firstContent(text);
  // Keys inside the key's object (`tools.write_file.patterns`): each the
  // first of its name after the one before.
  let depth = 1;
  for (; typeof path[depth] === "string"; depth++) {
    const innerAt = findKey(text, path[depth] as string, keyAt + key.length);
    if (innerAt === -1) return placeOf(text, keyAt);
    key = path[depth] as string;
    keyAt = innerAt;
  }
  if (typeof path[depth] !== "number") return placeOf(text, keyAt);
  const index = path[depth] as number;
  if (typeof path[depth + 1] === "string") {
    return inListedObject(text, keyAt, items, path.slice(depth), column);
  }
  const item = items[index];
  if (typeof item !== "string") {
    // A number, boolean or null is written as JSON writes it, in every format.
    const spelling = JSON.stringify(item);
    if (spelling === undefined || typeof item === "object" && item !== null) {
      return placeOf(text, keyAt);
    }
    let copiesOf = 0;
    for (let i = 0; i < index; i++) if (items[i] === item) copiesOf++;
    const at = findSpelling(text, keyAt, spelling, copiesOf);
    return placeOf(text, at === -1 ? keyAt : at);
  }
  // The same rule may be written twice; count the earlier copies.
  let copies = 0;
  for (let i = 0; i < index; i++) if (items[i] === item) copies++;
  const found = findItem(text, keyAt, item, copies);
  if (found === undefined) return placeOf(text, keyAt);
  const offset = found.verbatim && column !== undefined
    ? found.start + column - 1
    : found.start;
  return placeOf(text, offset);
}

/**
 * A field of an object in a list (`flows[1].deny[0]`, or a list of objects
 * in it: `principals[0].flows[1].deny[0]`): each object starts at its
 * first key, after the keys of the objects before it; the field is then
 * found inside the object, as at the top.
 */
function inListedObject(
  text: string,
  from: number,
  objects: readonly unknown[],
  path: readonly (string | number)[],
  column?: number,
): Place {
  const index = path[0] as number;
  let at = from;
  // Past every key of the objects before it, in the order written (the
  // parsers keep it), then to its own first key.
  for (let i = 0; i <= index; i++) {
    const object = objects[i];
    const keys = object !== null && typeof object === "object"
      ? Object.keys(object)
      : [];
    for (const key of i === index ? keys.slice(0, 1) : keys) {
      const found = findKey(text, key, at + 1);
      if (found === -1) return placeOf(text, from);
      at = found;
    }
  }
  const object = objects[index] as Record<string, unknown>;
  const key = path[1] as string;
  // From just before the object's first key, which may be this one.
  const keyAt = findKey(text, key, at - 1);
  if (keyAt === -1) return placeOf(text, at);
  const list = object[key];
  if (
    typeof path[2] === "number" && typeof path[3] === "string" &&
    Array.isArray(list)
  ) {
    // An object in a list inside this one (`principals[0].flows[1].deny[0]`).
    return inListedObject(text, keyAt, list, path.slice(2), column);
  }
  if (typeof path[2] !== "number" || !Array.isArray(list)) {
    return placeOf(text, keyAt);
  }
  const item = list[path[2]];
  if (typeof item !== "string") return placeOf(text, keyAt);
  let copies = 0;
  for (let i = 0; i < path[2]; i++) if (list[i] === item) copies++;
  const found = findItem(text, keyAt, item, copies);
  if (found === undefined) return placeOf(text, keyAt);
  return placeOf(
    text,
    found.verbatim && column !== undefined
      ? found.start + column - 1
      : found.start,
  );
}

function findKey(text: string, key: string, from = 0): number {
  const escaped = key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  // JSON/JSONC "key":, YAML key: or "key":, TOML key = or "key" =, TOML [key].
  const spellings = new RegExp(
    `(^|[\\s{,])(?:"${escaped}"|'${escaped}'|${escaped})\\s*[:=]|^\\s*\\[\\s*${escaped}\\s*\\]`,
    "gm",
  );
  spellings.lastIndex = from;
  for (let match; (match = spellings.exec(text)) !== null;) {
    const start = match[1] === undefined
      ? match.index + match[0].indexOf("[")
      : match.index + match[1].length;
    if (!inComment(text, start)) return start;
  }
  return -1;
}

function findItem(
  text: string,
  from: number,
  item: string,
  copies: number,
): { start: number; verbatim: boolean } | undefined {
  const quoted = JSON.stringify(item);
  const candidates = [
    { spelling: quoted, inner: 1, verbatim: quoted === `"${item}"` },
    {
      spelling: `'${item.replaceAll("'", "''")}'`,
      inner: 1,
      verbatim: !item.includes("'"),
    },
    { spelling: item, inner: 0, verbatim: true },
  ];
  // The quoted spellings come first: a plain match could be inside another
  // rule.
  for (const { spelling, inner, verbatim } of candidates) {
    const at = findSpelling(text, from, spelling, copies);
    if (at !== -1) return { start: at + inner, verbatim };
  }
  return undefined;
}

// A `#` or `//` comment before `offset` on its line, outside quotes.
function inComment(text: string, offset: number): boolean {
  const lineStart = text.lastIndexOf("\n", offset - 1) + 1;
  const before = text.slice(lineStart, offset);
  let quote = "";
  for (let i = 0; i < before.length; i++) {
    const c = before[i];
    if (quote !== "") {
      if (c === "\\" && quote === '"') i++;
      else if (c === quote) quote = "";
    } else if (c === '"' || c === "'") quote = c;
    else if (c === "#" || (c === "/" && before[i + 1] === "/")) return true;
  }
  return false;
}

function findSpelling(
  text: string,
  from: number,
  spelling: string,
  copies: number,
): number {
  let at = from;
  let seen = 0;
  for (;;) {
    at = text.indexOf(spelling, at);
    if (at === -1) return -1;
    if (!inComment(text, at)) {
      if (seen === copies) return at;
      seen++;
    }
    at += spelling.length;
  }
}

function firstContent(text: string): Place {
  const match = /\S/.exec(text);
  return placeOf(text, match === null ? 0 : match.index);
}

/** 1-based line and column (in code points) of a UTF-16 offset. */
export function placeOf(text: string, offset: number): Place {
  const before = text.slice(0, offset);
  const lines = before.split(/\r\n|\r|\n/);
  const last = lines[lines.length - 1];
  return { line: lines.length, column: [...last].length + 1 };
}
