// XML 1.0 well-formedness.

import { XMLParser, XMLValidator } from "fast-xml-parser";
import { Locator, offsetOfLine } from "./position.ts";
import type { Parsed } from "./json.ts";

/**
 * An XML element: its name, attributes (entity references decoded) and
 * children in document order, text as strings.
 */
export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: (XmlElement | string)[];
}

const PARSER = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: "",
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
});

/** Checks well-formedness; the value is the root {@linkcode XmlElement}. */
export function parseXml(text: string): Parsed {
  const checked = XMLValidator.validate(text);
  if (checked !== true) {
    const { line, col, msg } = checked.err;
    const offset = offsetOfLine(text, line) + col - 1;
    return {
      ok: false,
      diagnostics: [new Locator(text).diagnostic(offset, msg)],
    };
  }
  const nodes = PARSER.parse(text) as unknown[];
  const root = nodes.map(toElement).find((n) => typeof n !== "string");
  return { ok: true, value: root, diagnostics: [] };
}

function toElement(node: unknown): XmlElement | string {
  const record = node as Record<string, unknown>;
  if ("#text" in record) return String(record["#text"]);
  const name = Object.keys(record).find((k) => k !== ":@")!;
  const attributes = (record[":@"] ?? {}) as Record<string, string>;
  const children = (record[name] as unknown[]).map(toElement);
  return { name, attributes: { ...attributes }, children };
}
