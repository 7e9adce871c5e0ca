// The permission-pattern grammar lives in patterns/_grammar.ts; these names
// stay here for the modules that still import them from validate/.

export {
  checkPattern,
  PATTERN_VERBS,
  type PatternParts,
} from "../patterns/_grammar.ts";
