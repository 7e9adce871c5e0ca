// Net rules: scheme://host[:port], each part an item, with the checks that
// refuse a host or port no canonical net target ever names.

import {
  DEFAULT_PORTS,
  GLOB_CHARS,
  HOST_LABEL,
  isNetScheme,
} from "../../validate/_pattern_grammar.ts";
import { canonicalHost } from "../patterns/_canonical.ts";
import { escapeGlob } from "../patterns/escape.ts";
import {
  isSpecial,
  isWord,
  NotCanonical,
  Problem,
  splitTokens,
  text,
  type Token,
} from "./_lex.ts";
import { ANY, compileItem, type Item } from "./_item.ts";

const IPV6 = /^\[[0-9a-f:.]+\]$/;
const PORT = /^(0|[1-9][0-9]{0,4})$/;

/**
 * A compiled net rule; `port` is `ANY` for `net:**` alone, which takes a
 * target with any port or none.
 */
export interface NetForm {
  kind: "net";
  scheme: Item;
  host: Item[];
  port: Item | undefined;
}

export function compileNet(tokens: Token[], offset: number): NetForm {
  // `net:**` is any network target, as `exec:**` is any program: every
  // scheme, host and port (`net:*://**` leaves out explicit ports).
  if (isWord(tokens, "**")) {
    return { kind: "net", scheme: ANY, host: [ANY], port: ANY };
  }
  const sep = findSeparator(tokens);
  if (sep === -1) {
    throw new Problem(
      "expected scheme://host[:port], such as https://*.example.com",
      tokens[0]?.at ?? offset,
    );
  }
  const schemeTokens = tokens.slice(0, sep);
  if (schemeTokens.length === 0) {
    throw new Problem(
      'empty scheme: expected http, https, ws, wss or a wildcard such as "*"',
      offset,
    );
  }
  const scheme = compileItem(schemeTokens, offset, false);
  if (typeof scheme === "string" && !isNetScheme(scheme)) {
    throw new Problem(
      `scheme "${scheme}" is never named: expected http, https, ws or wss`,
      schemeTokens[0].at,
    );
  }
  const rest = tokens.slice(sep + 3);
  const slash = rest.find((t) => isSpecial(t, "/"));
  if (slash !== undefined) {
    throw new Problem(
      "a path after the host: expected scheme://host[:port] only, since net patterns never name a path",
      slash.at,
    );
  }
  let hostTokens: Token[];
  let portTokens: Token[] | undefined;
  let host: Item[];
  if (rest[0] !== undefined && isSpecial(rest[0], "[")) {
    throw new Problem(
      "an IPv6 address in a rule: expected its brackets escaped, such as \\[::1\\]",
      rest[0].at,
    );
  }
  if (rest[0]?.lit && rest[0].c === "[") {
    const close = rest.findIndex((t) => t.lit && t.c === "]");
    const literal = close === -1 ? "" : text(rest.slice(0, close + 1));
    if (!IPV6.test(literal)) {
      throw new Problem(
        "expected an IPv6 address written \\[…\\] in lowercase hex, such as \\[::1\\]",
        rest[0].at,
      );
    }
    host = [literal];
    hostTokens = rest.slice(0, close + 1);
    const after = rest.slice(close + 1);
    if (after.length > 0 && !isSpecial(after[0], ":")) {
      throw new Problem(
        'expected ":port" or the end after an IPv6 address',
        after[0].at,
      );
    }
    portTokens = after.length > 0 ? after.slice(1) : undefined;
  } else {
    const colon = rest.findIndex((t) => isSpecial(t, ":"));
    hostTokens = colon === -1 ? rest : rest.slice(0, colon);
    portTokens = colon === -1 ? undefined : rest.slice(colon + 1);
    host = compileHost(hostTokens, (tokens[sep + 2]?.at ?? offset) + 1);
  }
  checkHost(host, hostTokens);
  let port: Item | undefined;
  if (portTokens !== undefined) {
    const at = (hostTokens.at(-1)?.at ?? offset) + 2;
    if (portTokens.length === 0) {
      throw new Problem('empty port after ":": expected digits or "*"', at);
    }
    if (isWord(portTokens, "**")) {
      throw new Problem('"**" is not a port: expected digits or "*"', at);
    }
    port = compileItem(portTokens, offset, false);
    if (typeof port === "string") {
      if (!PORT.test(port) || Number(port) > 65535) {
        throw new Problem(
          `port "${port}" is out of range: expected 0 to 65535 without leading zeros`,
          at,
        );
      }
      if (
        typeof scheme === "string" && isNetScheme(scheme) &&
        DEFAULT_PORTS[scheme] === port
      ) {
        throw new Problem(
          `the default port ${port} of ${scheme} is never named: expected the rule without ":${port}"`,
          at,
        );
      }
    }
  }
  return { kind: "net", scheme, host, port };
}

/** The index of the `://` after the scheme, or -1. */
function findSeparator(tokens: Token[]): number {
  for (let i = 0; i + 2 < tokens.length; i++) {
    if (
      isSpecial(tokens[i], ":") && isSpecial(tokens[i + 1], "/") &&
      isSpecial(tokens[i + 2], "/")
    ) {
      return i;
    }
  }
  return -1;
}

function compileHost(tokens: Token[], at: number): Item[] {
  if (tokens.length === 0) {
    throw new Problem("empty host: expected a host such as example.com", at);
  }
  return splitTokens(tokens, ".", at).map(({ tokens: label, at: where }) => {
    if (label.length === 0) {
      throw new Problem(
        'empty host label (a leading, trailing or doubled "."): expected labels separated by single dots',
        where,
      );
    }
    if (isWord(label, "**")) return ANY;
    let inClass = false;
    for (const t of label) {
      // Class syntax (`[!a-z]`) is checked by compileItem, not as host text.
      if (!t.lit && (GLOB_CHARS.has(t.c) || (inClass && /[!^-]/.test(t.c)))) {
        if (t.c === "[") inClass = true;
        if (t.c === "]") inClass = false;
        continue;
      }
      if (!HOST_LABEL.test(t.c)) {
        throw new Problem(
          `${JSON.stringify(t.c)} never appears in a canonical host: ${
            hostHint(text(label))
          }`,
          t.at,
        );
      }
    }
    return compileItem(label, at, false);
  });
}

// A label WHATWG reads as a number, which makes the host an IPv4 address.
const NUMERIC_LABEL = /^([0-9]+|0x[0-9a-f]*)$/;
const IPV4_PART = /^(0|[1-9][0-9]{0,2})$/;

/**
 * Refuses hosts that never appear in a canonical target: a literal host the
 * URL parser would rewrite (`127.1`, `2130706433`, `0x7f.0.0.1`, mapped or
 * uncompressed IPv6), and an IPv4 address with wildcards whose literal
 * parts are not plain decimal (`0x7f.0.0.*`) or that cannot have four parts.
 */
function checkHost(host: Item[], tokens: Token[]): void {
  const start = tokens[0].at;
  const end = tokens.at(-1)!.end;
  if (host.every((label) => typeof label === "string")) {
    const written = host.join(".");
    const canonical = canonicalHost(written);
    if ("refused" in canonical) {
      throw new NotCanonical(
        `host ${JSON.stringify(written)} never appears in a canonical target`,
        start,
        {
          otherwise:
            "expected a host name, or an IPv4 address of four decimal parts 0 to 255",
        },
      );
    }
    if (canonical.target !== written) {
      throw new NotCanonical(
        `host ${JSON.stringify(written)} is not canonical`,
        start,
        {
          fix: { start, end, text: escapeGlob(canonical.target) },
          otherwise: `expected ${JSON.stringify(canonical.target)}`,
        },
      );
    }
    return;
  }
  const numeric = (label: Item) =>
    typeof label === "string" && NUMERIC_LABEL.test(label);
  const last = host[host.length - 1];
  const ipv4 = numeric(last) ||
    (host.every((label) => typeof label !== "string" || numeric(label)) &&
      host.some(numeric));
  if (!ipv4) return;
  for (const [index, label] of host.entries()) {
    if (typeof label !== "string") continue;
    if (!IPV4_PART.test(label) || Number(label) > 255) {
      throw new NotCanonical(
        `${
          JSON.stringify(label)
        } is not how a canonical IPv4 address writes a part`,
        labelStart(tokens, index),
        { otherwise: "expected decimal 0 to 255 without leading zeros" },
      );
    }
  }
  if (numeric(last) && !host.includes(ANY) && host.length !== 4) {
    throw new NotCanonical(
      "a host ending in a number is an IPv4 address, which has four parts",
      start,
      { otherwise: 'expected four parts such as 10.0.0.*, or "**"' },
    );
  }
}

/** Where the label at `index` of a host starts. */
function labelStart(tokens: Token[], index: number): number {
  let seen = 0;
  for (const t of tokens) {
    if (seen === index) return t.at;
    if (isSpecial(t, ".")) seen++;
  }
  return tokens[0].at;
}

function hostHint(label: string): string {
  if (label !== label.toLowerCase()) {
    return `expected lowercase, such as "${label.toLowerCase()}"`;
  }
  if (/[^\x20-\x7e]/.test(label)) {
    try {
      const ascii = new URL(`http://${label.replace(/[*?]/g, "x")}`).hostname;
      if (!/[*?]/.test(label)) return `expected punycode, such as "${ascii}"`;
    } catch {
      // No suggestion for a label the URL parser refuses.
    }
    return "expected the punycode (xn--) form of the label";
  }
  return 'expected letters, digits, "-" and "_" only';
}
