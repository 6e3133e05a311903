import { z } from "zod";
import { parseDuration } from "../../model/duration.js";
import { ERROR_CODES, ERROR_STATUS } from "../../model/errors.js";

/**
 * What the control surface accepts, in process and over HTTP alike: strict objects, so that a typo
 * is a 400 naming the field rather than an operation that silently does less than asked.
 */

const duration = z.string().transform((s, ctx) => {
  const ms = parseDuration(s);
  if (ms === undefined) {
    ctx.addIssue({
      code: "custom",
      message: "must be an ISO 8601 duration in days to seconds, e.g. PT61S",
      input: s,
    });
    return z.NEVER;
  }
  return ms;
});

/** Instants as the API serves them, or any ISO 8601 date-time with its zone. */
const instant = z.iso
  .datetime({ offset: true, error: "must be an ISO 8601 date-time with a zone, e.g. 2027-01-01T00:00:00Z" })
  .transform((s) => new Date(s));

export const ResetInput = z.strictObject({ organization: z.string().min(1).optional() });

export const ClockInput = z
  .strictObject({ now: instant.optional(), advance: duration.optional(), frozen: z.boolean().optional() })
  .refine((c) => c.now !== undefined || c.advance !== undefined || c.frozen !== undefined, {
    message: "give now, advance or frozen",
  })
  .refine((c) => c.now === undefined || c.advance === undefined, {
    message: "give now or advance, not both",
    path: ["advance"],
  });

const CODES = ERROR_CODES;
const STATUSES = Object.values(ERROR_STATUS);
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"] as const;
const API_PATH_RE = /^\/api\/v1(\/[^?#\s]*)?$/;

export const FaultInput = z
  .strictObject({
    method: z.enum(METHODS).optional(),
    path: z
      .string()
      .regex(API_PATH_RE, "must be a path of the API, starting with /api/v1 (no query string)")
      .optional(),
    token: z.string().min(1).optional(),
    organization: z.string().min(1).optional(),
    times: z.int().min(1).max(1_000_000).default(1),
    status: z
      .int()
      .refine((s) => (STATUSES as number[]).includes(s), `must be one of ${STATUSES.join(", ")} (§7)`)
      .optional(),
    code: z.enum(CODES).optional(),
    message: z.string().min(1).max(500).optional(),
    retryAfter: z.int().min(0).max(86_400).optional(),
    delayMs: z.int().min(0).max(60_000).optional(),
    drop: z.literal(true).optional(),
  })
  .superRefine((f, ctx) => {
    const fail = (path: string, message: string) => ctx.addIssue({ code: "custom", path: [path], message });
    if (f.status !== undefined && f.code !== undefined && ERROR_STATUS[f.code] !== f.status) {
      fail("code", `is answered with ${ERROR_STATUS[f.code]}, not ${f.status} (§7)`);
    }
    const errs = f.status !== undefined || f.code !== undefined;
    if (errs && f.drop === true) fail("drop", "a fault answers an error or drops the connection, not both");
    if (!errs && f.drop === undefined && f.delayMs === undefined) {
      fail("status", "give status (or code), delayMs or drop");
    }
    const isRateLimited = f.code === "rate_limited" || f.status === 429;
    if (f.retryAfter !== undefined && !isRateLimited)
      fail("retryAfter", "goes with a 429 rate_limited fault only");
    if (f.message !== undefined && !errs) fail("message", "goes with an error fault (status or code) only");
  });

export const JournalQuery = z.strictObject({
  path: z.string().min(1).optional(),
  status: z
    .string()
    .regex(/^[1-5][0-9]{2}$/, "must be an HTTP status, e.g. 401")
    .transform(Number)
    .optional(),
  limit: z
    .string()
    .regex(/^[1-9][0-9]*$/, "must be an integer from 1 to 1000")
    .transform(Number)
    .refine((n) => n <= 1000, "must be an integer from 1 to 1000")
    .optional(),
});

export type ResetInput = z.input<typeof ResetInput>;
export type ClockInput = z.input<typeof ClockInput>;
export type FaultInput = z.input<typeof FaultInput>;
export type JournalQuery = z.input<typeof JournalQuery>;
