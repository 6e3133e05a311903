import type { z } from "zod";
import { ApiError, type ErrorDetails } from "../model/errors.js";
import { jsonTypeOf } from "./json.js";

/** Where a request's input comes from: its body, its query string, or its path's parameters. */
export type Source = "body" | "query" | "path";

/** The parse options of each source, made once, not per parse (DECISIONS.md, "Performance (issue #11)", "Memory under load"). */
const PARSE_OPTIONS = {
  body: { error: (issue: RawIssue) => messageFor(issue, "body") },
  query: { error: (issue: RawIssue) => messageFor(issue, "query") },
  path: { error: (issue: RawIssue) => messageFor(issue, "path") },
} as const satisfies Record<Source, z.core.ParseContext<z.core.$ZodIssue>>;

/**
 * Parses a request part with its schema, or throws invalid_request whose `details` name every
 * offending field (spec-gaps #36: an object keyed by field path, each a list of messages).
 */
export function validate<S extends z.ZodType>(schema: S, input: unknown, source: Source): z.output<S> {
  const result = schema.safeParse(input, PARSE_OPTIONS[source]);
  if (result.success) return result.data;
  // A Map, not an object literal: a field named "constructor" or "__proto__" must not meet
  // Object.prototype's members.
  const byField = new Map<string, string[]>();
  const add = (path: string, message: string) => byField.set(path, [...(byField.get(path) ?? []), message]);
  for (const issue of result.error.issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) add([...issue.path, key].join("."), "is not a known field");
    } else {
      add(issue.path.join("."), issue.message);
    }
  }
  // 9 000 unknown keys made a 556 KB answer to an 89 KB body: the answer names the first few fields
  // and counts the rest, so it stays near the size of what was sent.
  const listed = [...byField].slice(0, MAX_DETAIL_FIELDS);
  const unlisted = byField.size - listed.length;
  const details: ErrorDetails = Object.fromEntries(listed);
  const summary = listed.map(([field, messages]) => `${shorten(field)}: ${messages.join("; ")}`).join(", ");
  const more = unlisted === 0 ? "" : ` (and ${unlisted} more field${unlisted === 1 ? "" : "s"})`;
  throw new ApiError(
    "invalidRequest",
    `Invalid ${source === "body" ? "request body" : source}: ${summary}${more}`,
    details,
  );
}

/** The most fields an error's `details` names; the message counts the others. */
export const MAX_DETAIL_FIELDS = 20;
/** A field name longer than this is cut in the message (never in `details`, whose keys are exact). */
const MESSAGE_FIELD_CHARS = 100;

const shorten = (field: string): string =>
  field.length <= MESSAGE_FIELD_CHARS ? field : `${field.slice(0, MESSAGE_FIELD_CHARS)}…`;

type RawIssue = Parameters<Extract<z.core.$ZodErrorMap, (...args: never[]) => unknown>>[0];

/** Messages a client can act on, in terms of JSON and query strings rather than zod's. */
function messageFor(issue: RawIssue, source: Source): string | undefined {
  switch (issue.code) {
    case "invalid_type":
      if (issue.input === undefined) return "is required";
      if (source === "query" && Array.isArray(issue.input)) return "must be given once";
      return `must be ${article(issue.expected)}, not ${jsonTypeOf(issue.input)}`;
    case "invalid_value":
      return `must be one of ${issue.values.map(String).join(", ")}`;
    default:
      return undefined;
  }
}

const article = (type: string): string => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);
