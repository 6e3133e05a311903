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

/**
 * The deepest nesting of objects and arrays a body may have (a top-level object is depth 1). The
 * API's bodies are flat objects, so any limit of 2 or more refuses nothing valid; 32 keeps the
 * recursive parser far from the engine's stack limit, which 10 000 levels used to reach.
 */
export const MAX_JSON_DEPTH = 32;

/**
 * Parses JSON text strictly: duplicate keys with different values, `__proto__` keys and nesting
 * deeper than MAX_JSON_DEPTH are errors. A JsonSyntaxError's message describes the client's text;
 * anything else thrown is the server's own failure and is not dressed up as a syntax error.
 */
export function parseJson(text: string): JsonValue {
  checkDepth(text);
  let value: JsonValue;
  try {
    value = parse(text, null, (numberText) => new JsonNumber(numberText)) as JsonValue;
  } catch (err) {
    if (err instanceof SyntaxError) throw new JsonSyntaxError(err.message);
    throw err;
  }
  rejectPrototypeKeys(text);
  return value;
}

/**
 * One pass over the text, counting the brackets open outside strings: the parser recurses once per
 * open bracket, so text that passes cannot take it deeper than the limit, valid or not.
 */
function checkDepth(text: string): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i += 1; // a backslash: the next character is escaped, even a quote
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      depth += 1;
      if (depth > MAX_JSON_DEPTH) {
        throw new JsonSyntaxError(`objects and arrays are nested deeper than ${MAX_JSON_DEPTH} levels`);
      }
    } else if (c === 0x7d || c === 0x5d) {
      depth -= 1;
    }
  }
}

/**
 * lossless-json assigns a `__proto__` key through the setter: an object value swaps the prototype and
 * any other value is dropped, so the key would vanish instead of being reported as unknown. The
 * built-in parser keeps it as an own key (however it is escaped), so it finds them; its numbers are
 * thrown away. Bodies are capped at 100 KiB, so the second pass costs microseconds. It runs on text
 * lossless-json accepted, so it has no syntax error of its own to report; should the two parsers
 * ever disagree, the engine's message is not passed on.
 */
function rejectPrototypeKeys(text: string): void {
  let found = false;
  try {
    JSON.parse(text, (key, value: unknown) => {
      if (key === "__proto__") found = true;
      return value;
    });
  } catch {
    throw new JsonSyntaxError("the text is not valid JSON");
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
