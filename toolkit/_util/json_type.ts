// Internal: the JSON type name of a value, as error messages print it.

/** `"null"`, `"array"`, `"integer"`-free JSON type names: string, number, boolean, object, … */
export function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

/** Whether a value is a JSON object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The same, as a sentence reads it: "an array", "null", "number", … */
export function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value;
}
