// The canonical target of an unescaped target, for every verb: the one rule
// that decides whether a pattern (or a rule without wildcards) is canonical,
// computed by the same builders that name targets for a probe.

import {
  codePointName,
  CONTROL,
  targetKind,
} from "../../validate/_pattern_grammar.ts";
import { canonicalName } from "./_path.ts";
import { escapeGlob } from "./escape.ts";
import { execAccess } from "./exec.ts";
import { netAccess } from "./net.ts";
import { ToolError } from "../result/result.ts";

/** The canonical target, escaped as a pattern writes it, or why none. */
export type Canonical = { target: string } | { refused: string };

// The argument name the builders' messages start with; cut off again below.
const ARGUMENT = "target";

/**
 * The canonical target of `value`, already unescaped: a path, a URL, the
 * words of a command, or an extension's text.
 */
export function canonicalTarget(
  verb: string,
  value: string | readonly string[],
): Canonical {
  try {
    return { target: build(verb, value) };
  } catch (error) {
    if (!(error instanceof ToolError)) throw error;
    // "target: …" and "target[0]: …" name no argument of the caller here.
    return { refused: error.message.replace(/^target(\[\d+\])?: /, "") };
  }
}

function build(verb: string, value: string | readonly string[]): string {
  const kind = targetKind(verb);
  if (kind === "exec") {
    return execAccess(typeof value === "string" ? [value] : value, {
      argument: ARGUMENT,
    }).target;
  }
  const text = typeof value === "string" ? value : value.join(" ");
  switch (kind) {
    case "path":
      return escapeGlob(canonicalName(text, ARGUMENT));
    case "net":
      return netAccess(text, { argument: ARGUMENT }).target;
    case "opaque": {
      // No builder names extension targets: escaped glob characters, no
      // control characters, NFC, as the grammar asks of every target.
      const control = CONTROL.exec(text);
      if (control !== null) {
        throw new ToolError(
          `${JSON.stringify(text)} contains the control character ${
            codePointName(control[0])
          } at offset ${control.index}: expected text without control characters`,
        );
      }
      return escapeGlob(text.normalize("NFC"));
    }
  }
}

/**
 * The host of a network target in canonical form (IPv4 spellings, mapped
 * IPv6, case and IDNA normalised), unescaped, or why none.
 */
export function canonicalHost(host: string): Canonical {
  try {
    return { target: netAccess(`http://${host}`).url.hostname };
  } catch (error) {
    if (!(error instanceof ToolError)) throw error;
    return { refused: error.message.replace(/^url: /, "") };
  }
}
