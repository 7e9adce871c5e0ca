// The names args.ts exported before args/ was split by concern, kept while
// server/ still imports them from here; new code imports mod.ts or the
// file that holds the name.

export {
  ArgumentError,
  type ArgumentErrorOptions,
  type ArgumentProblem,
  formatProblems,
} from "./argument_error.ts";
export {
  decode,
  decodeArguments,
  type DecodeOptions,
  type DecodeResult,
} from "./decode.ts";
export { formatPath } from "./_issues.ts";
export {
  type NumberOptions,
  optionalBoolean,
  optionalInt,
  optionalNumber,
  optionalString,
  type RawArguments,
  requireBoolean,
  requireEnum,
  requireInt,
  requireNumber,
  requireString,
  requireStringArray,
} from "./readers.ts";
