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
  rejectPrototypeKeys(text);
  try {
    return parse(text, null, (numberText) => new JsonNumber(numberText)) as JsonValue;
  } catch (err) {
    throw new JsonSyntaxError(err instanceof Error ? err.message : "invalid JSON");
  }
}

/**
 * lossless-json assigns a `__proto__` key through the setter: an object value swaps the prototype and
 * any other value is dropped, so the key would vanish instead of being reported as unknown. The
 * built-in parser keeps it as an own key (however it is escaped), so it finds them; its numbers are
 * thrown away. Bodies are capped at 100 KiB, so the second pass costs microseconds.
 */
function rejectPrototypeKeys(text: string): void {
  let found = false;
  try {
    JSON.parse(text, (key, value: unknown) => {
      if (key === "__proto__") found = true;
      return value;
    });
  } catch (err) {
    throw new JsonSyntaxError(err instanceof Error ? err.message : "invalid JSON");
  }
  if (found) throw new JsonSyntaxError('the key "__proto__" is not allowed');
}

/** The JSON type of a parsed value, as error messages name it. */
export function jsonTypeOf(value: unknown): string {
  if (value === null) return "null";
  if (value instanceof JsonNumber) return "number";
  if (Array.isArray(value)) return "array";
  if (value === undefined) return "nothing";
  return typeof value;
}
