// Network targets: `net:scheme://host[:port]` from a URL string.

import {
  CONTROL,
  HOST_LABEL,
  isNetScheme,
  NET_SCHEMES,
  type NetScheme,
} from "../../validate/_pattern_grammar.ts";
import { argumentName, describeControl, listWords } from "./_messages.ts";
import { escapeGlob } from "./escape.ts";
import { ToolError } from "../result/result.ts";
import { typeName } from "../_util/json_type.ts";

export type { NetScheme } from "../../validate/_pattern_grammar.ts";

const IPV4_MAPPED = /^\[::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/;

/**
 * Options for {@linkcode netAccess}.
 *
 * @example
 * ```ts
 * import { netAccess } from "@forge/toolkit";
 *
 * netAccess("https://example.com/feed", { schemes: ["https"], argument: "feed" });
 * ```
 */
export interface NetAccessOptions {
  /**
   * The schemes this tool accepts, a subset of http, https, ws and wss.
   *
   * @default {["http", "https", "ws", "wss"]}
   */
  schemes?: readonly NetScheme[];
  /**
   * The argument name that error messages start with.
   *
   * @default {"url"}
   */
  argument?: string;
}

/**
 * A network endpoint the handler connects to, with its pattern.
 *
 * @example
 * ```ts
 * import { netAccess } from "@forge/toolkit";
 *
 * const target = netAccess("https://Example.com/feed");
 * const response = await fetch(target.url); // target.target → "https://example.com"
 * ```
 */
export interface NetTarget {
  /**
   * The URL to fetch or connect to: the parsed input with its host in
   * canonical form. Each read returns a fresh copy.
   */
  readonly url: URL;
  /** The pattern target, `scheme://host[:port]`. */
  readonly target: string;
  /** The single pattern `net:<target>`. */
  readonly patterns: readonly string[];
}

/**
 * Network access to `url`: WHATWG-parsed, named `net:scheme://host[:port]`
 * with the host lowercased and punycoded, a trailing dot and the default port
 * dropped and IPv4 spellings (decimal, hex, short, IPv4-mapped IPv6)
 * normalised. Userinfo, `*` or `%` in the host and schemes other than http,
 * https, ws and wss are refused. Path, query and fragment are kept in
 * {@linkcode NetTarget.url} but are not part of the pattern.
 *
 * @example Spellings of one host share one pattern
 * ```ts
 * import { netAccess } from "@forge/toolkit";
 *
 * const target = netAccess("https://EXAMPLE.com.:443/a?b=1");
 * // target.patterns → ["net:https://example.com"]
 * const response = await fetch(target.url);
 * ```
 *
 * @param url The URL from the caller.
 * @param options Accepted schemes and the argument name for messages.
 * @returns The URL to use and its pattern.
 * @throws {ToolError} When the URL does not parse or is refused.
 */
export function netAccess(
  url: string,
  options: NetAccessOptions = {},
): NetTarget {
  const argument = argumentName(options.argument, "url", "netAccess");
  const schemes = netSchemes(options.schemes);
  if (typeof url !== "string") {
    throw new TypeError(
      `Cannot build a network target: expected a URL string, got ${
        typeName(url)
      }`,
    );
  }
  const shown = JSON.stringify(url);
  const control = CONTROL.exec(url);
  if (control !== null) {
    throw new ToolError(
      `${argument}: ${shown} contains ${
        describeControl(control[0])
      }: expected a URL such as https://example.com/path`,
    );
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ToolError(
      `${argument}: ${shown} is not an absolute URL: expected scheme://host such as https://example.com/path`,
    );
  }
  const scheme = parsed.protocol.slice(0, -1);
  if (!(schemes as readonly string[]).includes(scheme)) {
    throw new ToolError(
      `${argument}: scheme "${scheme}:" of ${shown} is refused: expected ${
        listWords(schemes)
      }`,
    );
  }
  const authority = rawAuthority(url);
  if (authority.includes("@") || parsed.username !== "" || parsed.password) {
    throw new ToolError(
      `${argument}: ${shown} carries user information before "@": expected scheme://host with no credentials`,
    );
  }
  if (authority.includes("%")) {
    throw new ToolError(
      `${argument}: the host of ${shown} contains "%": expected a plain host name without percent escapes`,
    );
  }
  const host = canonicalHost(parsed.hostname, shown, argument);
  if (host !== parsed.hostname) parsed.hostname = host;
  const target = `${scheme}://${escapeGlob(host)}${
    parsed.port === "" ? "" : `:${parsed.port}`
  }`;
  const href = parsed.href;
  return Object.freeze({
    get url(): URL {
      return new URL(href);
    },
    target,
    patterns: Object.freeze([`net:${target}`]),
  });
}

function netSchemes(schemes: unknown): readonly NetScheme[] {
  if (schemes === undefined) return NET_SCHEMES;
  if (!Array.isArray(schemes) || schemes.length === 0) {
    throw new TypeError(
      `Cannot build a network target: options.schemes must be a non-empty array, got ${
        typeName(schemes)
      }`,
    );
  }
  for (const scheme of schemes) {
    if (!isNetScheme(scheme)) {
      throw new RangeError(
        `Cannot build a network target: options.schemes holds ${
          JSON.stringify(scheme)
        }: expected ${listWords(NET_SCHEMES)}`,
      );
    }
  }
  return schemes;
}

/** The raw authority of a URL string (between `//` and the path), unparsed. */
function rawAuthority(url: string): string {
  const trimmed = url.trim();
  const rest = trimmed.slice(trimmed.indexOf(":") + 1).replace(/^[/\\]+/, "");
  const end = rest.search(/[/\\?#]/);
  return end === -1 ? rest : rest.slice(0, end);
}

function canonicalHost(
  hostname: string,
  shown: string,
  argument: string,
): string {
  const mapped = IPV4_MAPPED.exec(hostname);
  if (mapped !== null) {
    // ::ffff:a.b.c.d reaches the same IPv4 host; name it so.
    const high = parseInt(mapped[1], 16);
    const low = parseInt(mapped[2], 16);
    return [high >> 8, high & 255, low >> 8, low & 255].join(".");
  }
  if (hostname.startsWith("[")) return hostname;
  const host = hostname.endsWith(".") ? hostname.slice(0, -1) : hostname;
  if (host === "") {
    throw new ToolError(
      `${argument}: ${shown} has no host: expected scheme://host such as https://example.com`,
    );
  }
  if (host.includes("*")) {
    throw new ToolError(
      `${argument}: the host of ${shown} contains "*": expected one concrete host, not a wildcard`,
    );
  }
  for (const label of host.split(".")) {
    if (label === "") {
      throw new ToolError(
        `${argument}: the host of ${shown} has an empty label: expected labels separated by single dots`,
      );
    }
    if (!HOST_LABEL.test(label)) {
      throw new ToolError(
        `${argument}: the host of ${shown} contains ${
          JSON.stringify([...label].find((c) => !HOST_LABEL.test(c)))
        }: expected letters, digits, "-" and "." only`,
      );
    }
  }
  return host;
}
