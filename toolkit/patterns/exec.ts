// Exec targets: `exec:<program> <args…>` from an argv array.

import { argumentName } from "./_messages.ts";
import { escapeToken } from "./escape.ts";
import { ToolError } from "../result/result.ts";
import { typeName } from "../_util/json_type.ts";

/**
 * Options for {@linkcode execAccess}.
 *
 * @example
 * ```ts
 * import { execAccess } from "@forge/toolkit";
 *
 * execAccess(["git", "status"], { argument: "command" });
 * ```
 */
export interface ExecAccessOptions {
  /**
   * The argument name that error messages start with.
   *
   * @default {"argv"}
   */
  argument?: string;
}

/**
 * A program run, with the patterns that name it.
 *
 * @example
 * ```ts
 * import { execAccess } from "@forge/toolkit";
 *
 * const run = execAccess(["git", "status", "--short"]);
 * const { stdout } = await new Deno.Command(run.program, { args: run.args }).output();
 * ```
 */
export interface ExecTarget {
  /** The program to pass to `Deno.Command`, in NFC. */
  readonly program: string;
  /** The arguments to pass to `Deno.Command`, in NFC; a fresh copy per read. */
  readonly args: string[];
  /** The pattern target: program and arguments, escaped and space-joined. */
  readonly target: string;
  /**
   * `exec:<target>`, and when the program is given by path, the same with
   * the path's base name too, so a rule about `rm` also covers `/bin/rm`.
   */
  readonly patterns: readonly string[];
}

/**
 * Running a program from an argv array (a shell string is refused: a shell
 * would split and expand it differently from what the host approved). The
 * pattern is `exec:<program> <args…>`, tokens joined by one space, each
 * escaped so that no two argument lists share a pattern: `\` space `"` and
 * the glob characters get a backslash, an empty argument is `""`, a line
 * feed, carriage return or tab is `\n`, `\r`, `\t` and any other control
 * character `\u{hex}`.
 *
 * @example Spaces cannot merge arguments
 * ```ts
 * import { execAccess } from "@forge/toolkit";
 *
 * execAccess(["rm", "-rf", "x"]).patterns; // ["exec:rm -rf x"]
 * execAccess(["rm", "-rf x"]).patterns; // ["exec:rm -rf\\ x"]
 * const run = execAccess(["git", "status"]);
 * const output = await new Deno.Command(run.program, { args: run.args }).output();
 * ```
 *
 * @param argv The program followed by its arguments.
 * @param options The argument name for messages.
 * @returns The program and arguments to run and their patterns.
 * @throws {ToolError} When `argv` is a string, empty, or holds a NUL.
 */
export function execAccess(
  argv: readonly string[],
  options: ExecAccessOptions = {},
): ExecTarget {
  const argument = argumentName(options.argument, "argv", "execAccess");
  if (typeof argv === "string") {
    throw new ToolError(
      `${argument}: got the shell string ${
        JSON.stringify(argv)
      }: expected an argv array of program and arguments such as ["git", "status"]`,
    );
  }
  if (!Array.isArray(argv)) {
    throw new TypeError(
      `Cannot build an exec target: expected an argv array of strings, got ${
        typeName(argv)
      }`,
    );
  }
  if (argv.length === 0) {
    throw new ToolError(
      `${argument}: the argv array is empty: expected a program and its arguments such as ["git", "status"]`,
    );
  }
  const words = argv.map((word: unknown, index) => {
    if (typeof word !== "string") {
      throw new TypeError(
        `Cannot build an exec target: argv[${index}] must be a string, got ${
          typeName(word)
        }`,
      );
    }
    if (word.includes("\0")) {
      throw new ToolError(
        `${argument}[${index}]: ${
          JSON.stringify(word)
        } contains a NUL character: expected text without NUL, which no program can receive`,
      );
    }
    return word.normalize("NFC");
  });
  const [program, ...args] = words;
  if (program === "") {
    throw new ToolError(
      `${argument}[0]: the program is empty: expected a program name or path such as "git"`,
    );
  }
  if (program.endsWith("/")) {
    throw new ToolError(
      `${argument}[0]: ${
        JSON.stringify(program)
      } ends with "/": expected a program, not a directory`,
    );
  }
  const rest = args.map(escapeToken);
  const target = [escapeToken(program), ...rest].join(" ");
  const patterns = [`exec:${target}`];
  const slash = program.lastIndexOf("/");
  if (slash !== -1) {
    patterns.push(
      `exec:${[escapeToken(program.slice(slash + 1)), ...rest].join(" ")}`,
    );
  }
  return Object.freeze({
    program,
    get args(): string[] {
      return [...args];
    },
    target,
    patterns: Object.freeze(patterns),
  });
}
