import { parse } from "lossless-json";

/**
 * A JSON number as its source text. Request bodies are parsed without ever turning a number into a
 * binary float, so that `unitPrice` keeps every digit the client sent (spec-gaps #19); a schema
 * decides what a number may become.
 */
export class JsonNumber {
  constructor(readonly text: string) {}
}

export type JsonValue = string | boolean | null | JsonNumber | JsonValue[] | { [key: string]: JsonValue };

export class JsonSyntaxError extends Error {
  override readonly name = "JsonSyntaxError";
}

/** Parses JSON text strictly: duplicate keys with different values and `__proto__` keys are errors. */
export function parseJson(text: string): JsonValue {
  let value: unknown;
  try {
    value = parse(text, null, (numberText) => new JsonNumber(numberText));
  } catch (err) {
    throw new JsonSyntaxError(err instanceof Error ? err.message : "invalid JSON");
  }
  rejectPrototypeKeys(value);
  return value as JsonValue;
}

// The parser assigns `__proto__` through the setter, which swaps the object's prototype instead of
// adding a field: the key would vanish instead of being reported as unknown.
function rejectPrototypeKeys(value: unknown): void {
  if (Array.isArray(value)) {
    value.forEach(rejectPrototypeKeys);
  } else if (typeof value === "object" && value !== null && !(value instanceof JsonNumber)) {
    if (Object.getPrototypeOf(value) !== Object.prototype) {
      throw new JsonSyntaxError('the key "__proto__" is not allowed');
    }
    Object.values(value).forEach(rejectPrototypeKeys);
  }
}

/** The JSON type of a parsed value, as error messages name it. */
export function jsonTypeOf(value: unknown): string {
  if (value === null) return "null";
  if (value instanceof JsonNumber) return "number";
  if (Array.isArray(value)) return "array";
  if (value === undefined) return "nothing";
  return typeof value;
}
