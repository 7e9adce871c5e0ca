// XML 1.0 well-formedness, read in one iterative pass that also builds the
// element tree (so 100 000 nested elements cannot overflow the call stack).
// Entities declared in a DTD are recognised but never expanded, so an
// entity bomb ("billion laughs") costs nothing.

import { Locator } from "./position.ts";
import type { Diagnostic } from "./types.ts";
import type { Parsed } from "./parsed.ts";

/**
 * An XML element as `parse(text, "xml")` returns it: its name, attributes
 * (references decoded) and children in document order. Text and CDATA
 * become strings; whitespace-only text between tags, comments and
 * processing instructions are dropped.
 *
 * @example Reading a pom.xml
 * ```ts
 * import { parse, type XmlElement } from "@forge/toolkit/validate";
 *
 * const result = parse("<project><version>1.0</version></project>", "xml");
 * if (result.ok) {
 *   const project = result.value as XmlElement;
 *   console.log(project.children); // [{ name: "version", ... }]
 * }
 * ```
 */
export interface XmlElement {
  /** The qualified name, such as `project` or `xsl:template`. */
  name: string;
  /** Attribute values by qualified name. */
  attributes: Record<string, string>;
  /** Child elements and text, in document order. */
  children: (XmlElement | string)[];
}

const NAME_START =
  ":A-Z_a-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C-\\u200D\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD\\u{10000}-\\u{EFFFF}";
const NAME = new RegExp(
  `[${NAME_START}][${NAME_START}\\-.0-9\\u00B7\\u0300-\\u036F\\u203F-\\u2040]*`,
  "uy",
);
// Characters XML 1.0 does not allow anywhere, even escaped as raw text.
// deno-lint-ignore no-control-regex
const INVALID_CHAR = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;
const SPACE = /[ \t\r\n]/;
const PREDEFINED: Record<string, string> = {
  lt: "<",
  gt: ">",
  amp: "&",
  apos: "'",
  quot: '"',
};

class XmlError extends Error {
  start: number;
  end: number | undefined;
  constructor(message: string, start: number, end?: number) {
    super(message);
    this.start = start;
    this.end = end;
  }
}

interface OpenElement {
  element: XmlElement;
  start: number;
  /** Namespace prefixes this element declares. */
  prefixes: string[] | undefined;
}

/**
 * Checks well-formedness; the value is the root {@linkcode XmlElement},
 * built only when `buildValue` is set (validate() needs no tree).
 */
export function parseXml(text: string, buildValue = true): Parsed {
  const reader = new XmlReader(text, buildValue);
  let root: XmlElement | undefined;
  let failure: XmlError | undefined;
  try {
    root = reader.run();
  } catch (error) {
    if (!(error instanceof XmlError)) throw error;
    failure = error;
  }
  // A character XML forbids outright is reported if it comes first.
  const invalid = INVALID_CHAR.exec(text);
  if (
    invalid !== null && (failure === undefined || invalid.index < failure.start)
  ) {
    const code = invalid[0].charCodeAt(0).toString(16).toUpperCase()
      .padStart(4, "0");
    failure = new XmlError(
      `Character U+${code} is not allowed in XML (not even as a reference)`,
      invalid.index,
      invalid.index + 1,
    );
  }
  const locator = new Locator(text);
  if (failure !== undefined) {
    return {
      ok: false,
      diagnostics: [
        locator.diagnostic(
          failure.start,
          failure.message,
          "error",
          failure.end,
        ),
      ],
    };
  }
  const warnings: Diagnostic[] = reader.warnings.map((w) =>
    locator.diagnostic(w.start, w.message, "warning", w.end)
  );
  return { ok: true, value: root, diagnostics: warnings };
}

class XmlReader {
  #text: string;
  #pos = 0;
  #stack: OpenElement[] = [];
  /** Namespace prefix → how many open elements declare it. */
  #prefixes = new Map<string, number>([["xml", 1], ["xmlns", 1]]);
  #entities = new Set<string>();
  /** With an external DTD or parameter entities, unknown entities may exist. */
  #entitiesOpen = false;
  warnings: { start: number; end: number; message: string }[] = [];

  #build: boolean;

  constructor(text: string, build: boolean) {
    this.#text = text;
    this.#build = build;
  }

  run(): XmlElement {
    const text = this.#text;
    if (text.trim() === "") {
      throw new XmlError("Empty document: expected a root element", 0);
    }
    if (text.startsWith("<?xml") && this.#isSpaceOrEnd(5)) this.#declaration();
    let root: XmlElement | undefined;
    let sawDoctype = false;
    while (this.#pos < text.length) {
      const pos = this.#pos;
      const code = text.charCodeAt(pos);
      if (code === 60 /* < */) {
        if (text.startsWith("<!--", pos)) {
          this.#comment();
        } else if (text.startsWith("<?", pos)) {
          this.#instruction();
        } else if (text.startsWith("<!DOCTYPE", pos)) {
          if (sawDoctype || root !== undefined) {
            throw new XmlError(
              root !== undefined
                ? "Document type declaration after the root element: it must come before the root"
                : "Second document type declaration: a document has at most one",
              pos,
              pos + 9,
            );
          }
          sawDoctype = true;
          this.#doctype();
        } else if (text.startsWith("<![CDATA[", pos)) {
          throw new XmlError(
            "CDATA section outside the root element: expected it inside an element",
            pos,
            pos + 9,
          );
        } else if (text.startsWith("</", pos)) {
          const name = this.#peekName(pos + 2);
          throw new XmlError(
            `End tag </${name}> without a matching start tag`,
            pos,
            pos + 2 + name.length,
          );
        } else {
          if (root !== undefined) {
            throw new XmlError(
              "Second root element: a document has exactly one root element (wrap them in one)",
              pos,
              pos + 1 + this.#peekName(pos + 1).length,
            );
          }
          root = this.#element();
        }
      } else if (SPACE.test(text[pos])) {
        this.#pos++;
      } else {
        const end = this.#lineEndOrTag(pos);
        throw new XmlError(
          root === undefined
            ? `Text before the root element: expected '<'`
            : "Text after the root element: only comments and processing instructions may follow it",
          pos,
          end,
        );
      }
    }
    if (root === undefined) {
      throw new XmlError(
        "No root element: expected an element such as <root>…</root>",
        text.length,
      );
    }
    return root;
  }

  /** Reads an element and everything inside it, iteratively. */
  #element(): XmlElement {
    const text = this.#text;
    const root = this.#startTag();
    if (!root.open) return root.element;
    while (this.#stack.length > 0) {
      const open = this.#stack[this.#stack.length - 1];
      const pos = this.#pos;
      const lt = text.indexOf("<", pos);
      if (lt === -1) {
        this.#addText(open.element, pos, text.length);
        throw this.#unclosed(open);
      }
      if (lt > pos) this.#addText(open.element, pos, lt);
      this.#pos = lt;
      if (text.startsWith("</", lt)) {
        this.#endTag();
      } else if (text.startsWith("<!--", lt)) {
        this.#comment();
      } else if (text.startsWith("<![CDATA[", lt)) {
        const close = text.indexOf("]]>", lt + 9);
        if (close === -1) {
          throw new XmlError(
            "Unterminated CDATA section: expected ']]>'",
            lt,
            lt + 9,
          );
        }
        if (this.#build) {
          this.#appendText(open.element, text.slice(lt + 9, close));
        }
        this.#pos = close + 3;
      } else if (text.startsWith("<?", lt)) {
        this.#instruction();
      } else if (text.startsWith("<!", lt)) {
        throw new XmlError(
          "Unexpected '<!' in element content: expected a comment '<!--' or a CDATA section '<![CDATA['",
          lt,
          lt + 2,
        );
      } else {
        this.#startTag();
      }
    }
    return root.element;
  }

  /**
   * Reads `<name attr="v" …>` or `<name …/>`; an element that stays open is
   * pushed on the stack.
   */
  #startTag(): { element: XmlElement; open: boolean } {
    const text = this.#text;
    const start = this.#pos;
    const name = this.#name(start + 1, "an element name after '<'");
    const element: XmlElement = { name, attributes: {}, children: [] };
    const parent = this.#stack[this.#stack.length - 1];
    const attributeStarts = new Map<string, number>();
    let pos = start + 1 + name.length;
    let prefixes: string[] | undefined;
    for (;;) {
      const hadSpace = this.#skipSpace(pos);
      pos = this.#pos;
      const code = text.charCodeAt(pos);
      if (
        code === 62 /* > */ || (code === 47 && text.charCodeAt(pos + 1) === 62)
      ) {
        const empty = code === 47;
        this.#pos = pos + (empty ? 2 : 1);
        if (parent !== undefined && this.#build) {
          parent.element.children.push(element);
        }
        const open: OpenElement = { element, start, prefixes };
        this.#checkPrefixes(open, attributeStarts);
        if (empty) {
          this.#release(open);
        } else {
          this.#stack.push(open);
        }
        return { element, open: !empty };
      }
      if (pos >= text.length) {
        throw new XmlError(
          `Unexpected end of the document inside the start tag <${name}>: expected '>'`,
          pos,
        );
      }
      if (!hadSpace) {
        throw new XmlError(
          `Expected whitespace, '>' or '/>' in the start tag <${name}>, found ${
            this.#describe(pos)
          }`,
          pos,
          pos + 1,
        );
      }
      const attribute = this.#name(
        pos,
        `an attribute name, '>' or '/>' in the start tag <${name}>`,
      );
      if (attributeStarts.has(attribute)) {
        throw new XmlError(
          `Duplicate attribute "${attribute}" on <${name}>: each attribute may appear once`,
          pos,
          pos + attribute.length,
        );
      }
      attributeStarts.set(attribute, pos);
      this.#skipSpace(pos + attribute.length);
      if (text.charCodeAt(this.#pos) !== 61 /* = */) {
        throw new XmlError(
          `Expected '=' after the attribute name "${attribute}", found ${
            this.#describe(this.#pos)
          } (attributes need a value, such as ${attribute}="…")`,
          this.#pos,
          this.#pos + 1,
        );
      }
      this.#skipSpace(this.#pos + 1);
      const value = this.#attributeValue(attribute);
      if (this.#build) element.attributes[attribute] = value;
      if (attribute === "xmlns" || attribute.startsWith("xmlns:")) {
        const prefix = attribute === "xmlns" ? "" : attribute.slice(6);
        if (prefix !== "") {
          (prefixes ??= []).push(prefix);
          this.#prefixes.set(prefix, (this.#prefixes.get(prefix) ?? 0) + 1);
        }
      }
      pos = this.#pos;
    }
  }

  #attributeValue(attribute: string): string {
    const text = this.#text;
    const open = this.#pos;
    const quote = text[open];
    if (quote !== '"' && quote !== "'") {
      throw new XmlError(
        `Expected a quoted value for the attribute "${attribute}", found ${
          this.#describe(open)
        } (write ${attribute}="…")`,
        open,
        open + 1,
      );
    }
    const close = text.indexOf(quote, open + 1);
    const lt = text.indexOf("<", open + 1);
    if (lt !== -1 && (close === -1 || lt < close)) {
      throw new XmlError(
        close === -1
          ? `Unterminated value of the attribute "${attribute}": expected a closing ${quote}`
          : `Character '<' in the value of the attribute "${attribute}": write it as &lt;`,
        close === -1 ? open : lt,
        close === -1 ? open + 1 : lt + 1,
      );
    }
    if (close === -1) {
      throw new XmlError(
        `Unterminated value of the attribute "${attribute}": expected a closing ${quote}`,
        open,
        open + 1,
      );
    }
    this.#pos = close + 1;
    return this.#decode(open + 1, close).replace(/[\t\n\r]/g, " ");
  }

  #endTag(): void {
    const text = this.#text;
    const start = this.#pos;
    const open = this.#stack[this.#stack.length - 1];
    const name = this.#name(start + 2, "an element name after '</'");
    if (name !== open.element.name) {
      const at = new Locator(text).position(open.start);
      throw new XmlError(
        `Mismatched end tag </${name}>: expected </${open.element.name}> to close the element opened at line ${at.line}, column ${at.column}`,
        start,
        start + 2 + name.length,
      );
    }
    this.#skipSpace(start + 2 + name.length);
    if (text.charCodeAt(this.#pos) !== 62) {
      throw new XmlError(
        `Expected '>' to end the end tag </${name}>, found ${
          this.#describe(this.#pos)
        }`,
        this.#pos,
        this.#pos + 1,
      );
    }
    this.#pos++;
    this.#stack.pop();
    this.#release(open);
  }

  #release(open: OpenElement): void {
    for (const prefix of open.prefixes ?? []) {
      const count = this.#prefixes.get(prefix)! - 1;
      if (count === 0) this.#prefixes.delete(prefix);
      else this.#prefixes.set(prefix, count);
    }
  }

  // Namespace prefixes must be declared (Namespaces in XML); a plain XML
  // 1.0 reader accepts them, so this is a warning.
  #checkPrefixes(open: OpenElement, attributes: Map<string, number>): void {
    const check = (name: string, at: number) => {
      const colon = name.indexOf(":");
      if (colon <= 0) return;
      const prefix = name.slice(0, colon);
      if (prefix === "xmlns" || this.#prefixes.has(prefix)) return;
      this.warnings.push({
        start: at,
        end: at + name.length,
        message:
          `Namespace prefix "${prefix}" is not declared: expected an xmlns:${prefix}="…" attribute here or on an enclosing element`,
      });
    };
    check(open.element.name, open.start + 1);
    for (const [name, at] of attributes) check(name, at);
  }

  /** Adds text between tags, checking references and "]]>". */
  #addText(element: XmlElement, start: number, end: number): void {
    const cdataEnd = this.#next("]]>", start);
    if (cdataEnd !== -1 && cdataEnd < end) {
      throw new XmlError(
        "The sequence ']]>' is not allowed in text: write it as ]]&gt;",
        cdataEnd,
        cdataEnd + 3,
      );
    }
    const value = this.#decode(start, end);
    if (this.#build && value.trim() !== "") this.#appendText(element, value);
  }

  #appendText(element: XmlElement, value: string): void {
    const children = element.children;
    const last = children[children.length - 1];
    if (typeof last === "string") children[children.length - 1] = last + value;
    else if (value !== "") children.push(value);
  }

  /** Decodes references in `[start, end)`, checking each. */
  #decode(start: number, end: number): string {
    const text = this.#text;
    let amp = this.#next("&", start);
    if (amp === -1 || amp >= end) return text.slice(start, end);
    let out = "";
    let from = start;
    while (amp !== -1 && amp < end) {
      out += text.slice(from, amp);
      const semi = text.indexOf(";", amp + 1);
      const body = semi === -1 || semi > end ? "" : text.slice(amp + 1, semi);
      if (body.startsWith("#")) {
        out += this.#charReference(body, amp, semi);
      } else if (
        body !== "" && (NAME.lastIndex = 0, NAME.exec(body)?.[0] === body)
      ) {
        if (body in PREDEFINED) out += PREDEFINED[body];
        else if (this.#entities.has(body) || this.#entitiesOpen) {
          out += `&${body};`;
        } else {
          throw new XmlError(
            `Undeclared entity &${body};: expected one of &lt; &gt; &amp; &apos; &quot; or a character reference such as &#169;`,
            amp,
            semi + 1,
          );
        }
      } else {
        throw new XmlError(
          "Bare '&' in text: write it as &amp; (or complete the reference, such as &lt;)",
          amp,
          amp + 1,
        );
      }
      from = semi + 1;
      amp = this.#next("&", from);
    }
    return out + text.slice(from, end);
  }

  #charReference(body: string, amp: number, semi: number): string {
    const hex = body.startsWith("#x");
    const digits = body.slice(hex ? 2 : 1);
    const valid = hex ? /^[0-9a-fA-F]+$/ : /^[0-9]+$/;
    const code = valid.test(digits) ? parseInt(digits, hex ? 16 : 10) : NaN;
    if (
      Number.isNaN(code) || code > 0x10ffff ||
      !(code === 0x9 || code === 0xa || code === 0xd ||
        (code >= 0x20 && code <= 0xd7ff) ||
        (code >= 0xe000 && code <= 0xfffd) || code >= 0x10000)
    ) {
      throw new XmlError(
        `Invalid character reference &${body};: expected &#NNN; or &#xHHH; naming a character XML allows`,
        amp,
        semi + 1,
      );
    }
    return String.fromCodePoint(code);
  }

  /**
   * `text.indexOf(needle, from)`, remembering the answer so that searches
   * that find nothing ahead stay linear over the whole document.
   */
  #next(needle: "&" | "]]>", from: number): number {
    const cached = this.#found.get(needle);
    if (
      cached !== undefined && cached.from <= from &&
      (cached.at >= from || cached.at === -1)
    ) {
      return cached.at;
    }
    const at = this.#text.indexOf(needle, from);
    this.#found.set(needle, { from, at });
    return at;
  }

  #found = new Map<string, { from: number; at: number }>();

  #comment(): void {
    const text = this.#text;
    const start = this.#pos;
    const dashes = text.indexOf("--", start + 4);
    if (dashes === -1) {
      throw new XmlError(
        "Unterminated comment: expected '-->'",
        start,
        start + 4,
      );
    }
    if (text.charCodeAt(dashes + 2) !== 62) {
      throw new XmlError(
        "'--' is not allowed inside a comment: expected '-->' to end it",
        dashes,
        dashes + 2,
      );
    }
    this.#pos = dashes + 3;
  }

  #instruction(): void {
    const text = this.#text;
    const start = this.#pos;
    const target = this.#name(
      start + 2,
      "a processing instruction target after '<?'",
    );
    if (target.toLowerCase() === "xml") {
      throw new XmlError(
        "XML declaration not at the very start: '<?xml …?>' must be the first thing in the document (not even whitespace may come before it)",
        start,
        start + 5,
      );
    }
    const close = text.indexOf("?>", start + 2 + target.length);
    if (close === -1) {
      throw new XmlError(
        `Unterminated processing instruction <?${target}: expected '?>'`,
        start,
        start + 2 + target.length,
      );
    }
    if (
      close !== start + 2 + target.length &&
      !SPACE.test(text[start + 2 + target.length])
    ) {
      const at = start + 2 + target.length;
      throw new XmlError(
        `Expected whitespace after the processing instruction target "${target}"`,
        at,
        at + 1,
      );
    }
    this.#pos = close + 2;
  }

  #declaration(): void {
    const text = this.#text;
    const close = text.indexOf("?>");
    if (close === -1) {
      throw new XmlError("Unterminated XML declaration: expected '?>'", 0, 5);
    }
    const body = text.slice(5, close);
    const pattern =
      /^(\s+)version\s*=\s*(["'])([^"']*)\2(?:(\s+)encoding\s*=\s*(["'])([^"']*)\5)?(?:(\s+)standalone\s*=\s*(["'])([^"']*)\8)?\s*$/;
    const match = pattern.exec(body);
    if (match === null) {
      const at = body.search(/\S/);
      throw new XmlError(
        body.includes("version")
          ? 'Malformed XML declaration: expected <?xml version="1.0" encoding="…" standalone="yes|no"?> with the attributes in that order'
          : 'XML declaration without a version: expected <?xml version="1.0"?>',
        at === -1 ? close : 5 + at,
        close,
      );
    }
    const version = match[3];
    if (!/^1\.[0-9]+$/.test(version)) {
      const at = 5 + body.indexOf(version, match[1].length);
      throw new XmlError(
        `Unsupported XML version "${version}": expected "1.0"`,
        at,
        at + version.length,
      );
    }
    const encoding = match[6];
    if (encoding !== undefined && !/^[A-Za-z][A-Za-z0-9._-]*$/.test(encoding)) {
      const at = 5 + body.indexOf(encoding, body.indexOf("encoding"));
      throw new XmlError(
        `Malformed encoding name "${encoding}": expected a name such as UTF-8`,
        at,
        at + encoding.length,
      );
    }
    const standalone = match[9];
    if (
      standalone !== undefined && standalone !== "yes" && standalone !== "no"
    ) {
      const at = 5 + body.indexOf(standalone, body.indexOf("standalone"));
      throw new XmlError(
        `Invalid standalone value "${standalone}": expected "yes" or "no"`,
        at,
        at + standalone.length,
      );
    }
    this.#pos = close + 2;
  }

  /**
   * Skips `<!DOCTYPE …>`, noting general entities declared in the internal
   * subset. Their values are not read further: nothing is expanded.
   */
  #doctype(): void {
    const text = this.#text;
    const start = this.#pos;
    if (!this.#skipSpace(start + 9)) {
      throw new XmlError(
        "Expected whitespace after '<!DOCTYPE'",
        this.#pos,
        this.#pos + 1,
      );
    }
    const name = this.#name(
      this.#pos,
      "the root element name after '<!DOCTYPE'",
    );
    let pos = this.#pos + name.length;
    let quote = "";
    let subset = -1;
    for (; pos < text.length; pos++) {
      const char = text[pos];
      if (quote !== "") {
        if (char === quote) quote = "";
        continue;
      }
      if (char === '"' || char === "'") {
        quote = char;
      } else if (char === "[" && subset === -1) {
        subset = pos;
        pos = this.#internalSubset(pos + 1) - 1;
      } else if (char === ">") {
        break;
      }
    }
    if (pos >= text.length) {
      throw new XmlError(
        "Unterminated document type declaration: expected '>'",
        start,
        start + 9,
      );
    }
    const external = text.slice(start + 9, subset === -1 ? pos : subset);
    if (/\b(?:SYSTEM|PUBLIC)\b/.test(external)) this.#entitiesOpen = true;
    this.#pos = pos + 1;
  }

  /** Reads the internal subset from `pos`; returns the offset after ']'. */
  #internalSubset(pos: number): number {
    const text = this.#text;
    while (pos < text.length) {
      const char = text[pos];
      if (char === "]") return pos + 1;
      if (text.startsWith("<!--", pos)) {
        this.#pos = pos;
        this.#comment();
        pos = this.#pos;
        continue;
      }
      if (text.startsWith("<?", pos)) {
        this.#pos = pos;
        this.#instruction();
        pos = this.#pos;
        continue;
      }
      if (char === "%") this.#entitiesOpen = true;
      if (text.startsWith("<!", pos)) {
        const entity = /^<!ENTITY\s+([^\s%][^\s]*)/.exec(
          text.slice(pos, pos + 300),
        );
        if (entity !== null) this.#entities.add(entity[1]);
        // Skip the declaration, honouring quoted strings.
        let quote = "";
        let i = pos + 2;
        for (; i < text.length; i++) {
          const c = text[i];
          if (quote !== "") {
            if (c === quote) quote = "";
          } else if (c === '"' || c === "'") quote = c;
          else if (c === ">") break;
        }
        if (i >= text.length) {
          throw new XmlError(
            "Unterminated markup declaration in the DTD: expected '>'",
            pos,
            pos + 2,
          );
        }
        pos = i + 1;
        continue;
      }
      pos++;
    }
    throw new XmlError(
      "Unterminated internal DTD subset: expected ']'",
      pos,
    );
  }

  #name(pos: number, expected: string): string {
    NAME.lastIndex = pos;
    const match = NAME.exec(this.#text);
    if (match === null) {
      throw new XmlError(
        `Expected ${expected}, found ${this.#describe(pos)}`,
        pos,
        pos + 1,
      );
    }
    return match[0];
  }

  #peekName(pos: number): string {
    NAME.lastIndex = pos;
    return NAME.exec(this.#text)?.[0] ?? "";
  }

  /** Moves past whitespace from `pos`; true when there was some. */
  #skipSpace(pos: number): boolean {
    const text = this.#text;
    let i = pos;
    while (i < text.length) {
      const code = text.charCodeAt(i);
      if (code !== 32 && code !== 9 && code !== 10 && code !== 13) break;
      i++;
    }
    this.#pos = i;
    return i > pos;
  }

  #isSpaceOrEnd(pos: number): boolean {
    return pos >= this.#text.length || SPACE.test(this.#text[pos]) ||
      this.#text.startsWith("?>", pos);
  }

  #unclosed(open: OpenElement): XmlError {
    const at = new Locator(this.#text).position(open.start);
    return new XmlError(
      `Unexpected end of the document: expected </${open.element.name}> to close the element opened at line ${at.line}, column ${at.column}`,
      this.#text.length,
    );
  }

  #lineEndOrTag(pos: number): number {
    const match = /[\r\n<]/.exec(this.#text.slice(pos, pos + 200));
    return match === null
      ? Math.min(this.#text.length, pos + 200)
      : pos + match.index;
  }

  #describe(pos: number): string {
    if (pos >= this.#text.length) return "the end of the document";
    const char = String.fromCodePoint(this.#text.codePointAt(pos)!);
    const code = char.codePointAt(0)!;
    if (code < 0x20) {
      return `control character U+${
        code.toString(16).toUpperCase().padStart(4, "0")
      }`;
    }
    return `'${char}'`;
  }
}
