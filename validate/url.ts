// Absolute URLs by the WHATWG URL standard (what `new URL()`, fetch and
// browsers use). The standard decides success; a small reader of the URL's
// parts says where a failure is, and flags what the standard quietly
// repairs (its "validation errors") as warnings.

import { Locator } from "./position.ts";
import type { Diagnostic } from "./types.ts";
import type { Parsed } from "./parsed.ts";

const SPECIAL = new Set(["http", "https", "ws", "wss", "ftp", "file"]);
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;
// Characters a host may never contain (WHATWG "forbidden host code point"),
// plus '%' for special schemes, where hosts are domain names.
// deno-lint-ignore no-control-regex
const FORBIDDEN_HOST = /[\u0000-\u0020#/:<>?@[\\\]^|\u007f]/;
// deno-lint-ignore no-control-regex
const FORBIDDEN_DOMAIN = /[\u0000-\u0020#%/:<>?@[\\\]^|\u007f]/;

interface Problem {
  start: number;
  end: number;
  message: string;
}

/** Parses an absolute URL; the value is the `URL` object. */
export function parseUrl(text: string): Parsed {
  const locator = new Locator(text);
  const diagnostic = (p: Problem, severity: "error" | "warning"): Diagnostic =>
    locator.diagnostic(p.start, p.message, severity, p.end);
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (url === undefined) {
    const problem = explainFailure(text) ?? {
      start: 0,
      end: text.length,
      message:
        "Invalid URL: expected an absolute URL such as https://example.com/path",
    };
    return { ok: false, diagnostics: [diagnostic(problem, "error")] };
  }
  return {
    ok: true,
    value: url,
    diagnostics: repairs(text, url).map((p) => diagnostic(p, "warning")),
  };
}

function explainFailure(text: string): Problem | undefined {
  if (text.trim() === "") {
    return {
      start: 0,
      end: text.length,
      message:
        "Empty URL: expected an absolute URL such as https://example.com/path",
    };
  }
  const lead = text.length - text.trimStart().length;
  const body = text.slice(lead);
  const scheme = SCHEME.exec(body);
  if (scheme === null) {
    if (body.startsWith("//")) {
      return {
        start: lead,
        end: lead + 2,
        message:
          "Scheme-relative URL: expected an absolute URL with a scheme, such as https://",
      };
    }
    const colon = body.indexOf(":");
    if (colon > 0 && /^[A-Za-z]/.test(body)) {
      const bad = /[^A-Za-z0-9+.-]/.exec(body.slice(0, colon))!;
      return {
        start: lead + bad.index,
        end: lead + bad.index + 1,
        message: `Invalid character ${
          quote(bad[0])
        } in the URL scheme: expected letters, digits, '+', '-' or '.' before ':'`,
      };
    }
    return {
      start: lead,
      end: lead + 1,
      message:
        "Relative URL: expected an absolute URL with a scheme, such as https://example.com/path",
    };
  }
  const name = scheme[0].slice(0, -1).toLowerCase();
  const special = SPECIAL.has(name);
  let pos = lead + scheme[0].length;
  const slashes = special ? /^[/\\]*/ : /^(?:\/\/)?/;
  const slashRun = slashes.exec(text.slice(pos))![0].length;
  if (!special && slashRun === 0) return undefined;
  pos += slashRun;
  const authorityEnd = findAuthorityEnd(text, pos, special);
  let hostStart = pos;
  const at = text.lastIndexOf("@", authorityEnd - 1);
  if (at >= pos) hostStart = at + 1;
  let hostEnd = authorityEnd;
  let portStart = -1;
  if (text[hostStart] === "[") {
    const close = text.indexOf("]", hostStart);
    if (close === -1 || close >= authorityEnd) {
      return {
        start: hostStart,
        end: authorityEnd,
        message: "Unclosed IPv6 address: expected ']' after the address",
      };
    }
    if (!URL.canParse(`http://${text.slice(hostStart, close + 1)}/`)) {
      return {
        start: hostStart,
        end: close + 1,
        message: `Invalid IPv6 address ${text.slice(hostStart, close + 1)}`,
      };
    }
    hostEnd = close + 1;
    if (text[hostEnd] === ":") portStart = hostEnd + 1;
  } else {
    const colon = text.indexOf(":", hostStart);
    if (colon !== -1 && colon < authorityEnd) {
      hostEnd = colon;
      portStart = colon + 1;
    }
  }
  const host = text.slice(hostStart, hostEnd);
  if (host === "" && special && name !== "file") {
    return {
      start: hostStart,
      end: hostStart + 1,
      message:
        `Missing host: expected a host name after '${name}://', such as ${name}://example.com`,
    };
  }
  if (!host.startsWith("[")) {
    const forbidden =
      (special && name !== "file" ? FORBIDDEN_DOMAIN : FORBIDDEN_HOST)
        .exec(host);
    if (forbidden !== null) {
      const start = hostStart + forbidden.index;
      return {
        start,
        end: start + 1,
        message: `Invalid character ${quote(forbidden[0])} in the host name ${
          JSON.stringify(host)
        }`,
      };
    }
  }
  if (portStart !== -1) {
    const port = text.slice(portStart, authorityEnd);
    if (!/^\d*$/.test(port) || (port !== "" && Number(port) > 65535)) {
      return {
        start: portStart,
        end: authorityEnd,
        message: `Invalid port ${
          JSON.stringify(port)
        }: expected a number from 0 to 65535`,
      };
    }
  }
  if (special && name !== "file" && host !== "") {
    return {
      start: hostStart,
      end: hostEnd,
      message: /^[0-9.]+$|^0x/i.test(host) || /\.\d+\.?$/.test(host)
        ? `Invalid IPv4 address ${
          JSON.stringify(host)
        }: expected four numbers from 0 to 255, such as 192.168.0.1`
        : `Invalid host name ${
          JSON.stringify(host)
        }: expected a domain such as example.com`,
    };
  }
  return undefined;
}

function findAuthorityEnd(text: string, pos: number, special: boolean): number {
  const end = (special ? /[/?#\\]/ : /[/?#]/).exec(text.slice(pos));
  return end === null ? text.length : pos + end.index;
}

// What the URL standard silently repairs, which a tool should not rely on.
function repairs(text: string, url: URL): Problem[] {
  const problems: Problem[] = [];
  // deno-lint-ignore no-control-regex
  const leading = /^[\u0000-\u0020]+/.exec(text);
  if (leading !== null) {
    problems.push({
      start: 0,
      end: leading[0].length,
      message:
        "Leading whitespace or control characters: they are stripped from the URL",
    });
  }
  // deno-lint-ignore no-control-regex
  const trailing = /[\u0000-\u0020]+$/.exec(text);
  if (trailing !== null && trailing.index > 0) {
    problems.push({
      start: trailing.index,
      end: text.length,
      message:
        "Trailing whitespace or control characters: they are stripped from the URL",
    });
  }
  const start = leading?.[0].length ?? 0;
  const end = trailing === null || trailing.index === 0
    ? text.length
    : trailing.index;
  const inner = text.slice(start, end);
  const tab = /[\t\n\r]/.exec(inner);
  if (tab !== null) {
    problems.push({
      start: start + tab.index,
      end: start + tab.index + 1,
      message: "Tab or line break inside the URL: it is removed silently",
    });
  }
  const space = / /.exec(inner);
  if (space !== null) {
    problems.push({
      start: start + space.index,
      end: start + space.index + 1,
      message:
        "Space inside the URL: it is sent as %20; write %20 if that is meant",
    });
  }
  const special = SPECIAL.has(url.protocol.slice(0, -1));
  if (special) {
    const scheme = SCHEME.exec(inner)![0];
    if (!inner.startsWith("//", scheme.length) && url.protocol !== "file:") {
      problems.push({
        start: start + scheme.length,
        end: start + scheme.length + 1,
        message: `Missing '//' after '${scheme}': expected ${scheme}//host`,
      });
    }
    const backslash = inner.indexOf("\\");
    if (backslash !== -1) {
      problems.push({
        start: start + backslash,
        end: start + backslash + 1,
        message:
          `Backslash in a ${url.protocol} URL: it is read as '/'; write '/' or %5C`,
      });
    }
  }
  const percent = /%(?![0-9A-Fa-f]{2})/.exec(inner);
  if (percent !== null) {
    problems.push({
      start: start + percent.index,
      end: start + percent.index + 1,
      message:
        "'%' not followed by two hex digits: write a literal percent sign as %25",
    });
  }
  if (url.username !== "" || url.password !== "") {
    const at = inner.indexOf("@");
    problems.push({
      start: start + Math.max(0, at),
      end: start + Math.max(0, at) + 1,
      message:
        "The URL contains credentials (user:password@): they end up in logs and histories",
    });
  }
  return problems.sort((a, b) => a.start - b.start);
}

function quote(char: string): string {
  const code = char.codePointAt(0)!;
  return code <= 0x20 || code === 0x7f
    ? `U+${code.toString(16).toUpperCase().padStart(4, "0")}`
    : `'${char}'`;
}
