// Internal: pattern templates for tools that do not answer the probe
// (`write:{path}`, `read:{paths[]}`, `net:{url}`), filled from a call's
// arguments and canonicalised with the toolkit's own canonicalisers, so
// that a templated call is decided on the same patterns a probe would give.

import {
  CONTROL,
  isPatternVerb,
  type TargetKind,
  targetKind,
} from "../../../validate/_pattern_grammar.ts";
import { execAccess } from "../../patterns/exec.ts";
import { escapeGlob } from "../../patterns/escape.ts";
import { type FileAccess, reachableTargets } from "../../patterns/file.ts";
import { netAccess } from "../../patterns/net.ts";
import { isRecord, typeName } from "../../_util/json_type.ts";

/** One step into the arguments: a key, then every element when `each`. */
interface Step {
  key: string;
  each: boolean;
}

/** A `{…}` of a template: where its value is in the arguments. */
interface Placeholder {
  /** As written between the braces: `paths[]`, `relations[].from`, `proxy?`. */
  text: string;
  steps: readonly Step[];
  /** `{name?}`: a call without the argument gives no pattern from this template. */
  optional: boolean;
}

/** A checked template. */
export interface Template {
  /** As written in the policy file. */
  readonly text: string;
  readonly verb: string;
  readonly kind: TargetKind;
  /** Literal text and placeholders, in order. */
  readonly parts: readonly (string | Placeholder)[];
  /**
   * A file template ending in `/**` (`read:{path}/**`): the directory and
   * everything below it, as a recursive listing reads.
   */
  readonly subtree: boolean;
}

/** A template that breaks the grammar: the problem and its 1-based column. */
export class TemplateSyntaxError extends TypeError {
  /** The 1-based column inside the template. */
  readonly column: number;

  constructor(problem: string, column: number) {
    super(problem);
    this.name = "TemplateSyntaxError";
    this.column = column;
  }
}

const PLACEHOLDER = /^[A-Za-z0-9_$-]+(\[\])?(\.[A-Za-z0-9_$-]+(\[\])?)*\??$/;
/** Words a shell passes on unchanged: no quoting, expansion or operators. */
const PLAIN_WORDS = /^[A-Za-z0-9_./=:@%+,-]+( [A-Za-z0-9_./=:@%+,-]+)*$/;

/**
 * Checks a template: `<verb>:<text>`, where `{name}` stands for the string
 * argument `name`, `{name[]}` for each string of an array (one pattern
 * each), `{a.b}` and `{a[].b}` reach into objects, and `{name?}` gives no
 * pattern when the argument is missing. At most one placeholder
 * may hold `[]`; an `exec` template is one placeholder alone. A file
 * template ending in `/**` names the subtree under its path.
 *
 * @throws {TemplateSyntaxError} With the column of the problem.
 */
export function compileTemplate(text: string): Template {
  const colon = text.indexOf(":");
  if (colon <= 0) {
    throw new TemplateSyntaxError(
      `expected <verb>:<target> such as "write:{path}"`,
      1,
    );
  }
  const verb = text.slice(0, colon);
  if (!isPatternVerb(verb)) {
    throw new TemplateSyntaxError(
      `unknown verb ${
        JSON.stringify(verb)
      }: expected one of read, write, delete, exec, net or x-<name>`,
      1,
    );
  }
  const parts: (string | Placeholder)[] = [];
  let each = 0;
  let at = colon + 1;
  while (at < text.length) {
    const open = text.indexOf("{", at);
    const close = text.indexOf("}", at);
    if (close !== -1 && (open === -1 || close < open)) {
      throw new TemplateSyntaxError(
        `"}" without "{": a placeholder is {argument}`,
        close + 1,
      );
    }
    if (open === -1) {
      parts.push(text.slice(at));
      break;
    }
    if (open > at) parts.push(text.slice(at, open));
    if (close === -1) {
      throw new TemplateSyntaxError(
        `"{" is not closed: expected {argument}`,
        open + 1,
      );
    }
    const inner = text.slice(open + 1, close);
    if (!PLACEHOLDER.test(inner)) {
      throw new TemplateSyntaxError(
        `placeholder {${inner}}: expected an argument name, [] for each element, .key into an object and ? when it may be missing (such as {path}, {paths[]}, {relations[].from} or {proxy?})`,
        open + 1,
      );
    }
    const optional = inner.endsWith("?");
    const steps = inner.replace(/\?$/, "").split(".").map((part) => ({
      key: part.replace(/\[\]$/, ""),
      each: part.endsWith("[]"),
    }));
    each += steps.filter((step) => step.each).length;
    if (each > 1) {
      throw new TemplateSyntaxError(
        `placeholder {${inner}}: at most one [] in a template, which gives one pattern for each element`,
        open + 1,
      );
    }
    parts.push({ text: inner, steps, optional });
    at = close + 1;
  }
  const kind = targetKind(verb);
  // `{path}/**`: the subtree, which the patterns name as `<dir>/**`.
  const last = parts[parts.length - 1];
  const subtree = kind === "path" && typeof last === "string" &&
    last.endsWith("/**");
  if (subtree) {
    const rest = last.slice(0, -"/**".length);
    if (rest !== "") parts[parts.length - 1] = rest;
    else if (parts.length > 1) parts.pop();
    else parts[0] = "/"; // "read:/**": everything under "/"
  }
  if (kind === "exec" && (parts.length !== 1 || typeof parts[0] === "string")) {
    throw new TemplateSyntaxError(
      `an exec template is one placeholder alone, such as "exec:{command}"`,
      colon + 2,
    );
  }
  if (parts.length === 0) {
    throw new TemplateSyntaxError(
      `the target is empty: expected text or a placeholder such as {path}`,
      colon + 2,
    );
  }
  return Object.freeze({
    text,
    verb,
    kind,
    parts: Object.freeze(parts),
    subtree,
  });
}

/** Whether a template names files, and so needs a root. */
export function namesFiles(template: Template): boolean {
  return template.kind === "path";
}

/** A call's arguments that cannot fill a template: the problem, argument first. */
export class FillError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FillError";
  }
}

/**
 * The canonical patterns of one call: each template filled from `args` and
 * canonicalised by its verb (`files` for file verbs, from the first root).
 *
 * @throws {FillError} Naming the argument that is missing, of the wrong
 * type, or cannot be canonicalised.
 */
export async function fillTemplates(
  templates: readonly Template[],
  args: Record<string, unknown>,
  files: FileAccess | undefined,
): Promise<string[]> {
  const patterns: string[] = [];
  for (const template of templates) {
    for (const filled of fillOne(template, args)) {
      patterns.push(...await canonical(template, filled, files));
    }
  }
  if (patterns.length === 0) {
    // A server may read an empty list as "all": nothing to decide is not
    // the same as nothing to touch.
    throw new FillError(
      `${
        templates.map((t) => t.text).join(", ")
      }: the call gives no item to decide (an empty list): expected at least one`,
    );
  }
  return patterns;
}

/** A filled target before canonicalisation, with the argument it came from. */
interface Filled {
  text: string;
  /** The argument whose value is the whole target, for exec's argv arrays. */
  whole?: unknown;
  argument: string;
}

function fillOne(template: Template, args: Record<string, unknown>): Filled[] {
  return fillPlain(template, args) ?? fillRows(template, args);
}

/**
 * {@linkcode fillRows}'s one target when every placeholder is one key whose
 * value is a string (`x-echo:{text}`, `write:{path}`), without its rows;
 * `undefined` for any other template or value, which fillRows() fills or
 * refuses. A call runs this, its code alone, on every templated call.
 */
function fillPlain(
  template: Template,
  args: Record<string, unknown>,
): Filled[] | undefined {
  let text = "";
  let argument = "";
  let placeholders = 0;
  for (const part of template.parts) {
    if (typeof part === "string") {
      text += part;
      continue;
    }
    if (part.steps.length !== 1 || part.steps[0].each) return undefined;
    const { key } = part.steps[0];
    const value = Object.hasOwn(args, key) ? args[key] : undefined;
    if (typeof value !== "string") return undefined;
    text += value;
    if (argument === "") argument = key;
    placeholders++;
  }
  return [
    placeholders === 0
      ? { text, argument }
      : { text, argument, whole: undefined },
  ];
}

function fillRows(template: Template, args: Record<string, unknown>): Filled[] {
  // The single [] placeholder, if any, multiplies the target.
  let rows: Filled[] = [{ text: "", argument: "" }];
  const wholeExec = template.kind === "exec";
  for (const part of template.parts) {
    if (typeof part === "string") {
      rows = rows.map((row) => ({ ...row, text: row.text + part }));
      continue;
    }
    const values = valuesOf(part, args, wholeExec);
    rows = rows.flatMap((row) =>
      values.map(({ value, name }) => ({
        text: row.text + (typeof value === "string" ? value : ""),
        argument: row.argument === "" ? name : row.argument,
        whole: typeof value === "string" ? undefined : value,
      }))
    );
  }
  return rows;
}

function valuesOf(
  placeholder: Placeholder,
  args: Record<string, unknown>,
  argvAllowed: boolean,
): { value: string | string[]; name: string }[] {
  let found: { value: unknown; name: string }[] = [{ value: args, name: "" }];
  placeholder.steps.forEach((step, index) => {
    const last = index === placeholder.steps.length - 1;
    found = found.flatMap(({ value, name }) => {
      const here = name === "" ? step.key : `${name}.${step.key}`;
      if (!isRecord(value)) {
        throw new FillError(
          `${name}: expected an object, got ${typeName(value)}`,
        );
      }
      const inner = Object.hasOwn(value, step.key)
        ? value[step.key]
        : undefined;
      if (inner === undefined || inner === null) {
        if (placeholder.optional) return [];
        throw new FillError(
          `${here}: missing: the gate's policy decides this tool by it (${placeholder.text})`,
        );
      }
      if (!step.each) return [{ value: inner, name: here }];
      if (!Array.isArray(inner)) {
        throw new FillError(
          `${here}: expected an array${last ? " of strings" : ""}, got ${
            typeName(inner)
          }`,
        );
      }
      return inner.map((item, i) => ({ value: item, name: `${here}[${i}]` }));
    });
  });
  return found.map(({ value, name }) => {
    if (typeof value === "string") return { value, name };
    if (
      argvAllowed && Array.isArray(value) &&
      value.every((word) => typeof word === "string")
    ) {
      return { value: value as string[], name };
    }
    throw new FillError(
      `${name}: expected a string${
        argvAllowed ? " or an array of strings" : ""
      }, got ${typeName(value)}`,
    );
  });
}

async function canonical(
  template: Template,
  filled: Filled,
  files: FileAccess | undefined,
): Promise<readonly string[]> {
  const { text } = filled;
  // A template without a placeholder ("read:.") is named by its text.
  const argument = filled.argument === ""
    ? `the template ${JSON.stringify(template.text)}`
    : filled.argument;
  try {
    switch (template.kind) {
      case "path":
        return await filePatterns(template, text, argument, files);
      case "net":
        return netAccess(text, { argument }).patterns;
      case "exec":
        return execPatterns(filled.whole ?? text, argument);
      default:
        if (text === "" || CONTROL.test(text)) {
          throw new FillError(
            `${argument}: ${
              JSON.stringify(text)
            } is empty or holds a control character: expected text`,
          );
        }
        return [`${template.verb}:${escapeGlob(text.normalize("NFC"))}`];
    }
  } catch (error) {
    if (error instanceof FillError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    throw new FillError(
      message.startsWith(`${argument}`) ? message : `${argument}: ${message}`,
    );
  }
}

async function filePatterns(
  template: Template,
  path: string,
  argument: string,
  files: FileAccess | undefined,
): Promise<readonly string[]> {
  if (files === undefined) {
    throw new FillError(
      `${argument}: the gate's policy has no roots to resolve a file path against`,
    );
  }
  if (path.startsWith("~")) {
    // Servers expand ~ to a home directory the gate cannot see as they do.
    throw new FillError(
      `${argument}: ${
        JSON.stringify(path)
      } starts with "~", which a server may expand to a home directory: expected a path relative to the root ${files.root} or absolute`,
    );
  }
  // Every link is followed, the last one too, whatever the verb: a server
  // without the probe may act on what a link points to (the filesystem
  // server moves a link's target). The path is resolved as spelled, and
  // through every Unicode-equivalent spelling of its names a server could
  // open (the filesystem server looks for one when the exact name is
  // missing): the named and all reached targets are reported, so a link can
  // only add patterns, never hide one.
  const names = await reachableTargets(files, path, argument);
  return names.map((name) => `${template.verb}:${subtreeOf(template, name)}`);
}

/** `name`, or the canonical pattern target of the subtree under it. */
function subtreeOf(template: Template, name: string): string {
  if (!template.subtree) return name;
  if (name === ".") return "**";
  return name === "/" ? "/**" : `${name}/**`;
}

function execPatterns(value: unknown, argument: string): readonly string[] {
  if (Array.isArray(value)) return execAccess(value, { argument }).patterns;
  const command = value as string;
  // Plain words split at spaces mean the same to any shell; anything else
  // (quotes, $, ;, |, globs, NAME=value first) is named as the shell script
  // it is, so a rule about "git push" is never matched by "git push; rm".
  if (PLAIN_WORDS.test(command) && !command.split(" ")[0].includes("=")) {
    return execAccess(command.split(" "), { argument }).patterns;
  }
  return execAccess(["sh", "-c", command], { argument }).patterns;
}
