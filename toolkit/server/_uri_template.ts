// Internal: RFC 6570 URI templates, matched in reverse: which variable values
// would expand to this URI. Resource templates need only matching, and doing
// it here keeps the toolkit's entry free of npm imports (the SDK's matcher
// made every server initialise Deno's npm resolver, about 15 ms of start-up).

const OPERATORS = "+#./;?&";
const RESERVED_OPERATORS = "=,!@|";
const VARNAME =
  /^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*$/;
const MAX_TEMPLATE_LENGTH = 1000;
// Adjacent expressions backtrack quadratically on a URI that fails late.
const MAX_URI_LENGTH = 8192;

/** A template that does not follow RFC 6570; `column` is 1-based. */
export class UriTemplateSyntaxError extends SyntaxError {
  /** Where the problem is, counted in characters from 1. */
  readonly column: number;

  constructor(message: string, column: number) {
    super(`${message} at column ${column}`);
    this.name = "UriTemplateSyntaxError";
    this.column = column;
  }
}

interface VarSpec {
  name: string;
  explode: boolean;
  /** The `:n` prefix length, if any. */
  prefix: number | undefined;
}

interface Expression {
  operator: string;
  vars: VarSpec[];
}

/** The values a URI gives a template's variables; an exploded variable gives a list. */
export type UriVariables = Record<string, string | string[]>;

/** A parsed template that tells which variable values produce a URI. */
export class UriTemplate {
  readonly #pattern: RegExp;
  /** The variables of each capture group, in order. */
  readonly #groups: Expression[];

  constructor(template: string) {
    if (template.length > MAX_TEMPLATE_LENGTH) {
      throw new RangeError(
        `URI template is ${template.length} characters long; the limit is ${MAX_TEMPLATE_LENGTH}`,
      );
    }
    let source = "^";
    const groups: Expression[] = [];
    const names = new Set<string>();
    let at = 0;
    while (at < template.length) {
      const open = template.indexOf("{", at);
      const literal = template.slice(at, open === -1 ? undefined : open);
      const stray = literal.indexOf("}");
      if (stray !== -1) {
        throw new UriTemplateSyntaxError("Unmatched '}'", at + stray + 1);
      }
      source += escapeRegExp(literal);
      if (open === -1) break;
      const close = template.indexOf("}", open);
      if (close === -1) {
        throw new UriTemplateSyntaxError("Unclosed '{'", open + 1);
      }
      const expression = parseExpression(
        template.slice(open + 1, close),
        open + 2,
      );
      for (const { name } of expression.vars) {
        if (names.has(name)) {
          throw new UriTemplateSyntaxError(
            `Variable ${name} appears twice`,
            open + 1,
          );
        }
        names.add(name);
      }
      source += `(${expressionPattern(expression)})`;
      groups.push(expression);
      at = close + 1;
    }
    this.#pattern = new RegExp(source + "$");
    this.#groups = groups;
  }

  /** The variables that expand to `uri`, or `null` when it does not match. */
  match(uri: string): UriVariables | null {
    if (uri.length > MAX_URI_LENGTH) return null;
    const found = this.#pattern.exec(uri);
    if (found === null) return null;
    const variables: UriVariables = {};
    try {
      for (let i = 0; i < this.#groups.length; i++) {
        if (!readExpression(this.#groups[i], found[i + 1], variables)) {
          return null;
        }
      }
    } catch {
      // A malformed percent-escape: no expansion produces this URI.
      return null;
    }
    return variables;
  }
}

function parseExpression(body: string, column: number): Expression {
  if (body === "") {
    throw new UriTemplateSyntaxError("Empty expression", column - 1);
  }
  let operator = body[0];
  if (RESERVED_OPERATORS.includes(operator)) {
    throw new UriTemplateSyntaxError(
      `Operator '${operator}' is reserved`,
      column,
    );
  }
  if (OPERATORS.includes(operator)) {
    body = body.slice(1);
    column++;
  } else operator = "";
  const vars: VarSpec[] = [];
  for (const spec of body.split(",")) {
    vars.push(parseVarSpec(spec, column));
    column += spec.length + 1;
  }
  return { operator, vars };
}

function parseVarSpec(spec: string, column: number): VarSpec {
  let name = spec;
  let explode = false;
  let prefix: number | undefined;
  if (spec.endsWith("*")) {
    name = spec.slice(0, -1);
    explode = true;
  } else if (spec.includes(":")) {
    const colon = spec.indexOf(":");
    name = spec.slice(0, colon);
    const digits = spec.slice(colon + 1);
    if (!/^[1-9][0-9]{0,3}$/.test(digits)) {
      throw new UriTemplateSyntaxError(
        `Invalid prefix length ${JSON.stringify(digits)}: expected 1 to 9999`,
        column + colon + 1,
      );
    }
    prefix = Number(digits);
  }
  if (!VARNAME.test(name)) {
    throw new UriTemplateSyntaxError(
      `Invalid variable name ${JSON.stringify(name)}`,
      column,
    );
  }
  return { name, explode, prefix };
}

/** One character of a value in a simple expansion: unreserved, or an escape. */
const UNRESERVED = "(?:[A-Za-z0-9\\-._~]|%[0-9A-Fa-f]{2})";
/** The same without the dot, which separates the values of a `.` expansion. */
const UNRESERVED_NO_DOT = "(?:[A-Za-z0-9\\-_~]|%[0-9A-Fa-f]{2})";
/** One character of a `+` or `#` expansion: reserved characters pass through. */
const RESERVED = "(?:[A-Za-z0-9\\-._~:/?#\\[\\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})";
/** One character of a `name=value` pair. */
const PAIR = "(?:[A-Za-z0-9\\-._~=,]|%[0-9A-Fa-f]{2})";

function expressionPattern({ operator }: Expression): string {
  switch (operator) {
    case "+":
      return `${RESERVED}*`;
    case "#":
      return `(?:#${RESERVED}*)?`;
    case ".":
      return `(?:\\.(?:${UNRESERVED_NO_DOT}|,)*)*`;
    case "/":
      return `(?:/(?:${UNRESERVED}|,)*)*`;
    case ";":
      return `(?:;${PAIR}*)*`;
    case "?":
      return `(?:\\?${PAIR}*(?:&${PAIR}*)*)?`;
    case "&":
      return `(?:&${PAIR}*)*`;
    default:
      return `(?:${UNRESERVED}|,)*`;
  }
}

function readExpression(
  { operator, vars }: Expression,
  text: string | undefined,
  into: UriVariables,
): boolean {
  if (text === undefined || text === "") return true;
  switch (operator) {
    case "":
    case "+":
      return readList(vars, text.split(","), ",", into);
    case "#":
      return readList(vars, text.slice(1).split(","), ",", into);
    case ".":
    case "/":
      return readList(vars, text.slice(1).split(operator), operator, into);
    case ";":
      return readNamed(vars, text.slice(1).split(";"), into);
    default:
      // `?` and `&`: undefined variables are left out, so pairs come in any order.
      return readNamed(vars, text.slice(1).split("&"), into);
  }
}

/**
 * Positional values, one per variable; the last variable takes what is left
 * (a list when exploded, else the items as written).
 */
function readList(
  vars: VarSpec[],
  items: string[],
  separator: string,
  into: UriVariables,
): boolean {
  const last = vars.length - 1;
  for (let i = 0; i < vars.length && i < items.length; i++) {
    const spec = vars[i];
    if (i === last && spec.explode) {
      define(into, spec.name, items.slice(i).map((i) => decodeURIComponent(i)));
      break;
    }
    const raw = i === last ? items.slice(i).join(separator) : items[i];
    if (!assign(spec, decodeURIComponent(raw), into)) return false;
  }
  return true;
}

/** `name=value` pairs; an exploded variable collects repeats into a list. */
function readNamed(
  vars: VarSpec[],
  pairs: string[],
  into: UriVariables,
): boolean {
  for (const pair of pairs) {
    const equals = pair.indexOf("=");
    const name = equals === -1 ? pair : pair.slice(0, equals);
    const value = decodeURIComponent(
      equals === -1 ? "" : pair.slice(equals + 1),
    );
    const spec = vars.find((v) => v.name === name);
    // A name no variable has: no expansion of this template gives the URI.
    if (spec === undefined) return false;
    if (spec.explode) {
      const list = Object.hasOwn(into, spec.name) ? into[spec.name] : [];
      define(into, spec.name, [...list, value]);
    } else if (Object.hasOwn(into, spec.name) || !assign(spec, value, into)) {
      return false;
    }
  }
  return true;
}

function assign(spec: VarSpec, value: string, into: UriVariables): boolean {
  // A `:n` prefix expands to at most n characters.
  if (spec.prefix !== undefined && [...value].length > spec.prefix) {
    return false;
  }
  define(into, spec.name, value);
  return true;
}

/** Sets a variable as an own property, even one named `__proto__`. */
function define(
  into: UriVariables,
  name: string,
  value: string | string[],
): void {
  Object.defineProperty(into, name, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
