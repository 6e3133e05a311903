import { readFile } from "node:fs/promises";
import { z } from "zod";
import { RATE_LIMIT_SCOPES } from "../manifest-schema.js";
import { CAUSES } from "../failures.js";
import { LEVELS, type RunReport } from "../types.js";

/**
 * Reads reports written with `--reporter json`, for `conformance compare`. Checked against the fields
 * compare and the HTML report read, so that a file from another tool is refused in one line.
 */

const FailureSchema = z
  .object({
    // Reports from before stable keys have none: their message stands in, matching only itself.
    key: z.string().optional(),
    cause: z.enum(CAUSES).default("rule"),
    blockedBy: z.string().optional(),
    message: z.string(),
    expected: z.string(),
    actual: z.string(),
    curl: z.string().optional(),
    status: z.number().optional(),
    replay: z.string().optional(),
    // Reports from before issue #29 show no exchange.
    exchange: z
      .object({
        request: z.object({
          method: z.string(),
          target: z.string(),
          headers: z.array(z.tuple([z.string(), z.string()])),
          body: z.string().optional(),
        }),
        response: z.object({
          status: z.number(),
          headers: z.array(z.tuple([z.string(), z.string()])),
          body: z.string(),
        }),
      })
      .optional(),
  })
  .transform(({ key, ...failure }) => ({ key: key ?? failure.message, ...failure }));

/** An observation; one from a report written before keys is its own key. */
const ObservationSchema = z.union([
  z.object({ key: z.string(), text: z.string() }),
  z.string().transform((text) => ({ key: text, text })),
]);

const ResultSchema = z.object({
  id: z.string(),
  section: z.string(),
  // Reports from before clause ids cite none.
  clauses: z.array(z.string()).default([]),
  level: z.enum(LEVELS),
  rule: z.string(),
  outcome: z.enum(["pass", "fail", "skip", "observed"]),
  failsRun: z.boolean(),
  durationMs: z.number(),
  requests: z.number(),
  skipReason: z.string().optional(),
  ranFor: z.array(z.string()).optional(),
  observations: z.array(ObservationSchema),
  baseline: z.enum(["known", "new", "fixed"]).optional(),
  failure: FailureSchema.optional(),
});

const ReportSchema = z.object({
  // Reports from before the kit said who wrote them have none.
  kit: z
    .object({
      name: z.string(),
      version: z.string(),
      spec: z.object({ file: z.string(), sha256: z.string() }),
    })
    .optional(),
  target: z.string(),
  embedded: z.boolean(),
  options: z.object({
    profile: z.enum(["spec", "reference"]),
    strict: z.boolean(),
    readOnly: z.boolean(),
    seed: z.number(),
    numRuns: z.number(),
    rateLimit: z.number(),
    // Reports from before the manifest's rateLimit read as counting every request together.
    rateLimitPer: z.enum(RATE_LIMIT_SCOPES).default("address"),
    rateWindowMs: z.number(),
    tokens: z.string().optional(),
    slow: z.boolean().optional(),
  }),
  startedAt: z.string(),
  durationMs: z.number(),
  requests: z.number(),
  pacing: z
    .object({
      source: z.enum(["option", "manifest", "default"]),
      fellBack: z.string().optional(),
      limited: z
        .object({
          count: z.number(),
          resentAnswered: z.number(),
          resentLimited: z.number(),
          waitedMs: z.number(),
          first: z.string(),
        })
        .optional(),
      requestsByToken: z.record(z.string(), z.number()),
    })
    .optional(),
  results: z.array(ResultSchema),
  baseline: z
    .object({
      file: z.string(),
      kitVersion: z.string(),
      known: z.number(),
      new: z.number(),
      fixed: z.array(z.string()),
    })
    .optional(),
});

/** A report file that cannot be read or is not a --reporter json report; the message is one line. */
export class ReportFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ReportFileError";
  }
}

export function parseReport(value: unknown, source: string): RunReport {
  const parsed = ReportSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue === undefined ? "" : ` (${issue.path.join(".") || "top level"}: ${issue.message})`;
  throw new ReportFileError(`${source} is not a report written with --reporter json${where}`);
}

export async function readReport(file: string): Promise<RunReport> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ReportFileError(`cannot read ${file}: ${code === "ENOENT" ? "no such file" : String(error)}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ReportFileError(`${file} is not JSON`);
  }
  return parseReport(value, file);
}
