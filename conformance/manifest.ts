import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { z } from "zod";
import { manifestSchema, type TokenManifest } from "./manifest-schema.js";
import { kitSpec, type KitSpec } from "./spec/kit-spec.js";
import { defaultFixturesDir } from "../src/store/fixtures/paths.js";

/** A token manifest that cannot be read or does not follow the format; the message is one paragraph. */
export class ManifestError extends Error {
  readonly file: string;

  constructor(file: string, message: string) {
    super(message);
    this.name = "ManifestError";
    this.file = file;
  }
}

/** The reference fixtures' manifest, the default of --tokens. */
export function defaultManifestPath(): string {
  return join(defaultFixturesDir(), "tokens.json");
}

/** `spec`: the run's, whose scopes a token may hold (default the spec as written). */
export async function loadManifest(file: string, spec: KitSpec = kitSpec()): Promise<TokenManifest> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "no such file" : code === "EISDIR" ? "it is a directory" : String(error);
    throw new ManifestError(file, `Cannot read the token manifest ${file}: ${why}.`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ManifestError(
      file,
      `The token manifest ${file} is not JSON: ${oneLine(error instanceof Error ? error.message : String(error))}.`,
    );
  }
  return parseManifest(value, file, spec);
}

/** Validates a manifest already parsed from JSON; `source` names it in the error. */
export function parseManifest(value: unknown, source: string, spec: KitSpec = kitSpec()): TokenManifest {
  const parsed = manifestSchema(spec).safeParse(value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map(describeIssue).join("; ");
  throw new ManifestError(
    source,
    `The token manifest ${source} does not follow the manifest format (docs/implementers.md, "Token manifest"): ${problems}.`,
  );
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const message = oneLine(issue.message);
  const lowered = message.charAt(0).toLowerCase() + message.slice(1);
  return `${formatPath(issue.path) || "(top level)"}: ${lowered}`;
}

/** `["tokens", 3, "scopes", 0]` → `tokens[3].scopes[0]`. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path
    .map((key, i) =>
      typeof key === "number"
        ? `[${key}]`
        : `${i === 0 ? "" : "."}${typeof key === "symbol" ? key.toString() : key}`,
    )
    .join("");
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ").trim();
}
