import type { z } from "zod";
import defaultFile from "./accounting-api.json" with { type: "json" };
import { SpecShape, type Spec } from "./schema.js";

/**
 * A variant is a partial spec file merged over a base (the default unless said otherwise) by JSON Merge
 * Patch (RFC 7396): objects merge key by key, any other value (an array included) replaces, and `null`
 * removes a key (a field a base added, say). The result must be a whole, valid spec; every key at fault
 * is named, so that an author fixes a variant in one pass.
 */

export interface SpecProblem {
  /** The key's path in the merged file: `limits.page.max`, `enums.contactTypes[3]`. */
  path: string;
  message: string;
}

/** A variant that cannot be served or checked. Both tools refuse it (exit 2) with its message. */
export class SpecVariantError extends Error {
  readonly problems: readonly SpecProblem[];

  constructor(problems: readonly SpecProblem[], source = "the spec variant") {
    super(`${source} is not a valid spec:\n${problems.map((p) => `  ${p.path}: ${p.message}`).join("\n")}`);
    this.name = "SpecVariantError";
    this.problems = problems;
  }
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** RFC 7396 §2, as written. */
export function mergePatch(target: Json, patch: Json): Json {
  if (!isObject(patch)) return patch;
  const result: JsonObject = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) Reflect.deleteProperty(result, key);
    else result[key] = mergePatch(result[key] ?? null, value);
  }
  return result;
}

export const formatPath = (path: readonly PropertyKey[]): string =>
  path.reduce<string>(
    (text, key) =>
      typeof key === "number" ? `${text}[${key}]` : text === "" ? String(key) : `${text}.${String(key)}`,
    "",
  ) || "(the whole file)";

function problemsOf(error: z.ZodError): SpecProblem[] {
  return error.issues.flatMap((issue) =>
    issue.code === "unrecognized_keys"
      ? issue.keys.map((key) => ({
          path: formatPath([...issue.path, key]),
          message: "is not a key of the spec file",
        }))
      : [
          {
            path: formatPath(issue.path),
            message:
              issue.code === "invalid_type" && issue.input === undefined
                ? `is missing (expected ${issue.expected}): only added fields may be removed with null`
                : issue.code === "invalid_key"
                  ? issue.issues.map((inner) => inner.message).join("; ")
                  : issue.message,
          },
        ],
  );
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** Checks a whole spec file; the parsed spec, frozen, or every problem. */
export function parseSpec(value: unknown, source?: string): Spec {
  const parsed = SpecShape.safeParse(value, { reportInput: true });
  if (!parsed.success) throw new SpecVariantError(problemsOf(parsed.error), source);
  return deepFreeze(parsed.data);
}

let parsedDefault: Spec | undefined;

/** The spec as written (accounting-api.md), read once: it is data, and frozen. */
export function defaultSpec(): Spec {
  parsedDefault ??= parseSpec(defaultFile, "the default spec file");
  return parsedDefault;
}

/** The base with a variant merged over it; a variant that is not a JSON object is refused as a whole. */
export function applyVariant(variant: unknown, base: Spec = defaultSpec(), source?: string): Spec {
  if (!isObject(variant)) {
    throw new SpecVariantError(
      [{ path: "(the whole file)", message: "must be a JSON object (a partial spec file)" }],
      source,
    );
  }
  return parseSpec(mergePatch(base as unknown as Json, variant), source);
}

export interface SpecDifference {
  path: string;
  a: unknown;
  b: unknown;
}

/** The keys whose values differ between two specs (arrays compare whole), in the files' order. */
export function diffSpecs(a: Spec, b: Spec): SpecDifference[] {
  const differences: SpecDifference[] = [];
  const walk = (x: unknown, y: unknown, path: string[]) => {
    if (isObject(x) && isObject(y)) {
      const keys = [...new Set([...Object.keys(x), ...Object.keys(y)])];
      for (const key of keys) walk(x[key], y[key], [...path, key]);
    } else if (JSON.stringify(x) !== JSON.stringify(y)) {
      differences.push({ path: formatPath(path), a: x, b: y });
    }
  };
  walk(a, b, []);
  return differences.filter((d) => d.path !== "$schema");
}
