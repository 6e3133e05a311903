import type { z } from "zod";
import { ApiError, type ErrorDetails } from "../errors.js";
import { jsonTypeOf } from "./json.js";

export type Source = "body" | "query";

/**
 * Parses a request part with its schema, or throws invalid_request whose `details` name every
 * offending field (spec-gaps #36: an object keyed by field path, each a list of messages).
 */
export function validate<S extends z.ZodType>(schema: S, input: unknown, source: Source): z.output<S> {
  const result = schema.safeParse(input, { error: (issue) => messageFor(issue, source) });
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
  const details: ErrorDetails = Object.fromEntries(byField);
  const summary = [...byField].map(([field, messages]) => `${field}: ${messages.join("; ")}`).join(", ");
  throw new ApiError(
    "invalid_request",
    `Invalid ${source === "body" ? "request body" : "query"}: ${summary}`,
    details,
  );
}

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
