// Internal: the ConfigError for each way a look at the file can fail, with
// one-line messages (`Cannot load config: app.yaml:3:5: …`) and a fuller
// report (code frames, one line per schema issue).

import { type Diagnostic, formatDiagnostics } from "../validate/mod.ts";
import { ConfigError, type ConfigIssue } from "./config_error.ts";
import type { FileLook } from "./_read_file.ts";
import { issuePath } from "./_schema.ts";

/** A file that could not be read as bytes. */
export function fileError(
  prefix: string,
  path: string,
  look: Exclude<FileLook, { kind: "ok" }>,
  maxBytes: number,
): ConfigError {
  switch (look.kind) {
    case "missing":
      return new ConfigError(`${prefix}: file not found: ${path}`, {
        kind: "missing",
        path,
      });
    case "not-a-file":
      return new ConfigError(`${prefix}: not a regular file: ${path}`, {
        kind: "not-a-file",
        path,
      });
    case "too-large":
      return new ConfigError(
        `${prefix}: file is larger than maxBytes (${maxBytes} bytes): ${path}`,
        { kind: "too-large", path },
      );
    case "unreadable":
      return new ConfigError(
        `${prefix}: file is not readable: ${path}: ${messageOf(look.error)}`,
        { kind: "unreadable", path, cause: look.error },
      );
  }
}

/** Text that does not parse. */
export function syntaxError(
  prefix: string,
  path: string,
  diagnostics: readonly Diagnostic[],
  bytes: Uint8Array,
  hash: string,
  cause?: unknown,
): ConfigError {
  if (diagnostics.length === 0) {
    const message = `${prefix}: ${path}: ${messageOf(cause)}`;
    return new ConfigError(message, { kind: "syntax", path, hash, cause });
  }
  const [first] = diagnostics;
  const more = diagnostics.length > 1
    ? ` (and ${diagnostics.length - 1} more)`
    : "";
  return new ConfigError(
    `${prefix}: ${path}:${first.line}:${first.column}: ${first.message}${more}`,
    {
      kind: "syntax",
      path,
      hash,
      diagnostics,
      cause,
      report: `${prefix}:\n${
        formatDiagnostics({ diagnostics }, { path, source: bytes })
      }`,
    },
  );
}

/** A value the schema refused. */
export function schemaError(
  prefix: string,
  path: string,
  issues: readonly ConfigIssue[],
  hash: string,
  cause?: unknown,
): ConfigError {
  const lines = issues.map((issue) => {
    const where = issuePath(issue.path);
    return where === "" ? issue.message : `${where}: ${issue.message}`;
  });
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : "";
  return new ConfigError(
    `${prefix}: ${path}: ${lines[0] ?? "the schema refused the value"}${more}`,
    {
      kind: "schema",
      path,
      hash,
      issues,
      cause,
      report: `${prefix}: ${path} does not match the schema:\n${
        lines.map((line) => `  ${line}`).join("\n")
      }`,
    },
  );
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
