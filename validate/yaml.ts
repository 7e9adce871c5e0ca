// YAML 1.2 through js-yaml: one document or a whole stream, duplicate keys
// refused, and alias expansion bounded before any value is built.

import {
  constructFromEvents,
  CORE_SCHEMA,
  EVENT_ID,
  mergeTag,
  parseEvents,
  YAMLException,
} from "js-yaml";
import { Locator } from "./position.ts";
import type { Parsed } from "./parsed.ts";
import type { Diagnostic } from "./types.ts";

const SCHEMA = CORE_SCHEMA.withTags(mergeTag);

/** Nesting deeper than this is refused (js-yaml's parser recurses). */
export const YAML_MAX_DEPTH = 256;
/**
 * A document whose aliases would expand to more nodes than this is refused,
 * which stops "billion laughs" documents without expanding them.
 */
export const YAML_MAX_ALIAS_NODES = 100_000;

/** Parses every document of a YAML stream; the value is the array of them. */
export function parseYamlStream(text: string): Parsed {
  const read = readStream(text);
  return read.ok
    ? { ok: true, value: read.documents, diagnostics: [] }
    : { ok: false, diagnostics: read.diagnostics };
}

/**
 * Parses a YAML stream that holds one document (`null` when it holds
 * none, as an empty document reads); a second document is an error at the
 * place it starts.
 */
export function parseYamlDocument(text: string): Parsed {
  const read = readStream(text);
  if (!read.ok) return { ok: false, diagnostics: read.diagnostics };
  const count = read.documents.length;
  if (count <= 1) {
    return { ok: true, value: read.documents[0] ?? null, diagnostics: [] };
  }
  const offset = secondDocumentOffset(text, read.events);
  return {
    ok: false,
    diagnostics: [
      new Locator(text).diagnostic(
        offset,
        `Expected one YAML document, found ${count}: a second document starts here`,
      ),
    ],
  };
}

type StreamRead =
  | { ok: true; documents: unknown[]; events: YamlEvent[] }
  | { ok: false; diagnostics: Diagnostic[] };

function readStream(text: string): StreamRead {
  const locator = new Locator(text);
  try {
    const events = parseEvents(text, { maxDepth: YAML_MAX_DEPTH });
    const problem = checkAliasExpansion(text, events);
    if (problem !== undefined) {
      return {
        ok: false,
        diagnostics: [locator.diagnostic(problem.offset, problem.message)],
      };
    }
    const documents = constructFromEvents(events, {
      source: text,
      schema: SCHEMA,
    }) as unknown[];
    return { ok: true, documents, events };
  } catch (error) {
    if (error instanceof YAMLException && error.mark !== undefined) {
      const { offset, message } = explain(
        text,
        error.mark.position,
        error.reason,
      );
      return { ok: false, diagnostics: [locator.diagnostic(offset, message)] };
    }
    throw error;
  }
}

const DOCUMENT_START_RE = /^(?:---(?=[ \t]|$)|%)/;
const DOCUMENT_END_RE = /^\.\.\.(?=[ \t]|$)/;
const BLANK_OR_COMMENT_RE = /^[ \t]*(?:#.*)?$/;

// Document events carry no position, so the second document is found from
// where the first one's content ends: the next line that opens a document
// (`---` or a directive), or the first content after a `...` end marker.
function secondDocumentOffset(text: string, events: YamlEvent[]): number {
  let end = 0;
  let explicitFirst = false;
  let documents = 0;
  for (const event of events) {
    if (event.type === EVENT_ID.DOCUMENT) {
      documents += 1;
      if (documents === 2) break;
      explicitFirst = event.explicitStart;
      continue;
    }
    for (const key of ["start", "valueEnd", "anchorEnd", "tagEnd"] as const) {
      const at = (event as Partial<Record<typeof key, number>>)[key];
      if (at !== undefined && at > end) end = at;
    }
  }
  const lines = text.split(/(?<=\r\n|\r(?!\n)|\n)/);
  let lineStart = 0;
  let index = 0;
  if (end > 0) {
    // Skip to the line after the one holding the first document's last character.
    while (index < lines.length && lineStart + lines[index].length < end) {
      lineStart += lines[index].length;
      index += 1;
    }
    lineStart += lines[index]?.length ?? 0;
    index += 1;
  } else if (explicitFirst) {
    // An empty first document: skip past its own `---`.
    while (index < lines.length && !lines[index].startsWith("---")) {
      lineStart += lines[index].length;
      index += 1;
    }
    lineStart += lines[index]?.length ?? 0;
    index += 1;
  }
  let ended = false;
  for (; index < lines.length; index++) {
    const line = lines[index].replace(/\r?\n$|\r$/, "");
    if (DOCUMENT_START_RE.test(line)) return lineStart;
    if (DOCUMENT_END_RE.test(line)) ended = true;
    else if (ended && !BLANK_OR_COMMENT_RE.test(line)) {
      return lineStart + (line.length - line.trimStart().length);
    }
    lineStart += lines[index].length;
  }
  return end;
}

interface Explained {
  offset: number;
  message: string;
}

// js-yaml's reasons in sentence case and, where it helps, moved to the
// character to fix and told with the fix.
function explain(text: string, at: number, reason: string): Explained {
  if (reason === "duplicated mapping key") {
    const quote = text[at - 1];
    const start = quote === '"' || quote === "'" ? at - 1 : at;
    let key: string | undefined;
    if (start < at) {
      const close = text.indexOf(quote, at);
      if (close !== -1 && close - at <= 80) key = text.slice(at, close);
    } else {
      key = /^[^:\r\n]{1,80}?(?=\s*:)/.exec(text.slice(at, at + 100))?.[0]
        .trim();
    }
    return {
      offset: start,
      message: `Duplicate key${
        key === undefined ? "" : ` ${JSON.stringify(key)}`
      } in a mapping: YAML keys must be unique`,
    };
  }
  if (reason.startsWith("nesting exceeded maxDepth")) {
    return {
      offset: at,
      message:
        `Nesting too deep: at most ${YAML_MAX_DEPTH} nested collections are accepted`,
    };
  }
  if (reason.startsWith("unknown escape sequence") && text[at - 1] === "\\") {
    return {
      offset: at - 1,
      message: `Unknown escape \\${
        String.fromCodePoint(text.codePointAt(at) ?? 63)
      } in a double-quoted string: write \\\\ for a backslash, or use single quotes`,
    };
  }
  if (reason === "bad indentation of a mapping entry") {
    // Point at the entry, not at the colon where the parser noticed.
    const lineStart = Math.max(
      text.lastIndexOf("\n", at - 1),
      text.lastIndexOf("\r", at - 1),
    ) + 1;
    const first = lineStart +
      /^[ \t]*/.exec(text.slice(lineStart, at))![0].length;
    return {
      offset: first,
      message:
        "Bad indentation of a mapping entry: indent it like the other keys of its mapping",
    };
  }
  if (
    reason === "deficient indentation" ||
    reason.startsWith("unexpected end of the stream within")
  ) {
    const open = openConstruct(text, at);
    if (open !== undefined) return open;
  }
  return {
    offset: at,
    message: reason.charAt(0).toUpperCase() + reason.slice(1),
  };
}

// Finds a quoted scalar or flow collection still open at `end`, which is
// what "deficient indentation" or an early end of the stream usually means.
// A small lexer: comments, quotes, flow brackets and block scalars only.
function openConstruct(text: string, end: number): Explained | undefined {
  const flows: number[] = [];
  let i = 0;
  let lineIndent = 0;
  let lineStart = true;
  while (i < end) {
    const c = text[i];
    if (c === "\n" || c === "\r") {
      i++;
      lineStart = true;
      lineIndent = 0;
      continue;
    }
    if (lineStart) {
      const indent = /^[ ]*/.exec(text.slice(i, i + 200))![0].length;
      lineIndent = indent;
      lineStart = false;
      i += indent;
      continue;
    }
    const before = i === 0 ? " " : text[i - 1];
    const atToken = /[\s[{,:-]/.test(before);
    if (c === "#" && /\s/.test(before)) {
      while (i < end && text[i] !== "\n" && text[i] !== "\r") i++;
      continue;
    }
    if ((c === '"' || c === "'") && atToken) {
      const start = i;
      i++;
      for (;;) {
        if (i >= end) {
          return {
            offset: start,
            message: `Unterminated quoted string: expected a closing ${c}`,
          };
        }
        if (c === '"' && text[i] === "\\") {
          i += 2;
          continue;
        }
        if (text[i] === c) {
          if (c === "'" && text[i + 1] === "'") {
            i += 2;
            continue;
          }
          i++;
          break;
        }
        i++;
      }
      continue;
    }
    if ((c === "[" || c === "{") && (atToken || flows.length > 0)) {
      flows.push(i);
      i++;
      continue;
    }
    if ((c === "]" || c === "}") && flows.length > 0) {
      flows.pop();
      i++;
      continue;
    }
    if (
      (c === "|" || c === ">") && flows.length === 0 && /[\s:-]/.test(before) &&
      /^[|>][-+0-9]*[ \t]*(?:#.*)?(?:\r?\n|\r|$)/.test(text.slice(i, i + 100))
    ) {
      // A block scalar: skip the lines indented deeper than its parent.
      const parent = lineIndent;
      i = text.indexOf("\n", i);
      if (i === -1 || i >= end) return undefined;
      i++;
      for (;;) {
        const line = /^([ ]*)([^\r\n]*)/.exec(text.slice(i, i + 10_000))!;
        if (line[2] !== "" && line[1].length <= parent) break;
        const next = text.indexOf("\n", i);
        if (next === -1 || next >= end) return undefined;
        i = next + 1;
      }
      lineStart = true;
      continue;
    }
    i++;
  }
  if (flows.length > 0) {
    const start = flows[flows.length - 1];
    return {
      offset: start,
      message: `Unclosed '${text[start]}': expected '${
        text[start] === "[" ? "]" : "}"
      }' to close this flow collection`,
    };
  }
  return undefined;
}

type YamlEvent = ReturnType<typeof parseEvents>[number];

interface Frame {
  nodes: number;
  anchor: string | undefined;
}

// Counts, per document, the nodes aliases would add if expanded. Anchors
// remember the expanded size of their node, so the count is linear in the
// number of events however deep the aliasing goes.
function checkAliasExpansion(
  text: string,
  events: YamlEvent[],
): { offset: number; message: string } | undefined {
  const sizes = new Map<string, number>();
  const open = new Set<string>();
  const frames: Frame[] = [];
  let aliasNodes = 0;
  for (const event of events) {
    switch (event.type) {
      case EVENT_ID.DOCUMENT:
        sizes.clear();
        open.clear();
        aliasNodes = 0;
        frames.push({ nodes: 0, anchor: undefined });
        break;
      case EVENT_ID.SEQUENCE:
      case EVENT_ID.MAPPING: {
        const anchor = event.anchorStart === -1
          ? undefined
          : text.slice(event.anchorStart, event.anchorEnd);
        if (anchor !== undefined) open.add(anchor);
        frames.push({ nodes: 1, anchor });
        break;
      }
      case EVENT_ID.SCALAR: {
        if (event.anchorStart !== -1) {
          sizes.set(text.slice(event.anchorStart, event.anchorEnd), 1);
        }
        frames[frames.length - 1].nodes += 1;
        break;
      }
      case EVENT_ID.ALIAS: {
        const name = text.slice(event.anchorStart, event.anchorEnd);
        if (open.has(name)) {
          return {
            offset: event.anchorStart - 1,
            message:
              `Recursive alias "*${name}": the node refers to itself, so its value would be infinite`,
          };
        }
        const size = sizes.get(name);
        if (size === undefined) {
          return {
            offset: event.anchorStart - 1,
            message:
              `Unknown alias "*${name}": expected an anchor "&${name}" earlier in the document`,
          };
        }
        aliasNodes += size;
        if (aliasNodes > YAML_MAX_ALIAS_NODES) {
          return {
            offset: event.anchorStart - 1,
            message:
              `Aliases expand to more than ${YAML_MAX_ALIAS_NODES} nodes: refused as an alias bomb ("billion laughs"); expected fewer or smaller aliased nodes`,
          };
        }
        frames[frames.length - 1].nodes += size;
        break;
      }
      case EVENT_ID.POP: {
        const frame = frames.pop()!;
        if (frame.anchor !== undefined) {
          open.delete(frame.anchor);
          sizes.set(frame.anchor, frame.nodes);
        }
        if (frames.length > 0) frames[frames.length - 1].nodes += frame.nodes;
        break;
      }
    }
  }
  return undefined;
}
