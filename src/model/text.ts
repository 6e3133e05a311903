import { z } from "zod";

/**
 * Text rules shared by every string field. "max N characters" counts Unicode code points
 * (spec-gaps #16): an emoji is one character, as a person counts it, not two UTF-16 units.
 */
export const codePointLength = (s: string): number => {
  let n = 0;
  for (const _ of s) n += 1;
  return n;
};

const LONE_SURROGATE = /\p{Cs}/u;
export const isWellFormed = (s: string): boolean => !LONE_SURROGATE.test(s);

/** Blank: nothing a reader would see. Zero-width and control characters are as blank as spaces. */
const VISIBLE = /[^\s\p{Z}\p{Cc}\p{Cf}]/u;
export const isBlank = (s: string): boolean => !VISIBLE.test(s);

/**
 * The JSON Schema twin of `isWellFormed` and `!isBlank` together, for the OpenAPI document: no lone
 * surrogate anywhere and at least one visible code point. JSON Schema patterns are ECMA-262 with the
 * `u` flag (what Ajv compiles), so `\P{Cs}` and the class above mean the same thing here.
 */
export const TEXT_PATTERN = "^\\P{Cs}*[^\\s\\p{Z}\\p{Cc}\\p{Cf}\\p{Cs}]\\P{Cs}*$";

/**
 * The WHATWG HTML definition of a valid e-mail address (spec-gaps #18): what a browser's
 * `<input type="email">` accepts, so a frontend's own check and the server's agree. zod ships it.
 */
export const isEmail = (s: string): boolean => z.regexes.html5Email.test(s);

/** The same definition as a JSON Schema pattern (JSON Schema's `format: email` is RFC 5321's, wider). */
export const EMAIL_PATTERN = z.regexes.html5Email.source;
