import { z } from "zod";
import { parseDuration } from "../../model/duration.js";
import { ERROR_CODES, ERROR_STATUS } from "../../model/errors.js";
import { TABLE_ROWS } from "../../routes/table.js";
import { BEYOND_SPEC } from "../../store/faults.js";
import {
  AccountRecordSchema,
  ContactRecordSchema,
  ExpenseRecordSchema,
  InvoiceRecordSchema,
  ProductRecordSchema,
} from "../../store/fixtures/schemas.js";

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

export const ResetInput = z.strictObject({
  /** One organization's part only; in a sandbox, its own id or the fixture's (`org_lumiere`). */
  organization: z.string().min(1).optional(),
});

export const ClockInput = z
  .strictObject({
    /** An ISO 8601 date-time with its zone: `2027-01-01T00:00:00Z`. */
    now: instant.optional(),
    /** An ISO 8601 duration in days to seconds: `PT61S`, `P1D`, `-PT5M`. */
    advance: duration.optional(),
    frozen: z.boolean().optional(),
  })
  .refine((c) => c.now !== undefined || c.advance !== undefined || c.frozen !== undefined, {
    message: "give now, advance or frozen",
  })
  .refine((c) => c.now === undefined || c.advance === undefined, {
    message: "give now or advance, not both",
    path: ["advance"],
  });

const CODES = ERROR_CODES;
const STATUSES = ERROR_CODES.map((code) => ERROR_STATUS[code]);

/** §4's endpoints that exist: a fault names one of them, or none (then it matches every request). */
const ENDPOINTS = TABLE_ROWS.flatMap(({ row }) =>
  row.announced === true ? [] : [{ method: row.method.toUpperCase(), path: row.path }],
);
const ENDPOINT_PATHS = [...new Set(ENDPOINTS.map((e) => e.path))];
/** §4's methods (an endpoint's method is `get` or `post`). */
const ENDPOINT_METHODS = ["GET", "POST"] as const;

/** A positive ISO 8601 duration, in ms. */
const positiveDuration = duration.refine((ms) => ms > 0, "must be a positive duration, e.g. PT30S");

export const FaultInput = z
  .strictObject({
    // Only §4's methods: PUT, PATCH and DELETE have no endpoint, and pre-flights (OPTIONS) are
    // answered before any fault is looked at.
    method: z.enum(ENDPOINT_METHODS, `must be one of ${ENDPOINT_METHODS.join(", ")} (§4)`).optional(),
    // Exact paths, no pattern: a fault aimed at a path no request can have would never fire.
    /** One of §4's endpoint paths, exactly (no pattern); left out, every request matches. */
    path: z
      .string()
      .refine((p) => ENDPOINT_PATHS.includes(p), {
        error: `must be an endpoint's path, exactly (no pattern, no query string): one of ${ENDPOINT_PATHS.join(", ")}; leave it out to match every request`,
      })
      .optional(),
    /** A token's label (`lumiere-full`). */
    token: z.string().min(1).optional(),
    /** An organization's id; in a sandbox, its own or the fixture's (`org_lumiere`). */
    organization: z.string().min(1).optional(),
    /** How many matching requests it takes (1 when neither duration nor untilCleared is given). */
    times: z.int().min(1).max(1_000_000).optional(),
    /** Or: every matching request for this long on the reference's clock, an ISO 8601 duration (`PT30S`). */
    duration: positiveDuration.optional(),
    /** Or: every matching request until the fault is cleared. */
    untilCleared: z.literal(true).optional(),
    status: z.literal(STATUSES, `must be one of ${STATUSES.join(", ")} (§7)`).optional(),
    code: z.enum(CODES).optional(),
    /** The error's message; "… (injected fault)" by default. */
    message: z.string().min(1).max(500).optional(),
    /** Seconds, for a 429 (1 by default). */
    retryAfter: z.int().min(0).max(86_400).optional(),
    /** A wait before the request goes on (or fails, with an error too). */
    delayMs: z.int().min(0).max(60_000).optional(),
    /** The connection closed without an answer. */
    drop: z.literal(true).optional(),
    /** A failure the spec does not list (docs/frontend.md, "Faults"): a gateway's page, an HTML page, a cut body. */
    beyondSpec: z.enum(BEYOND_SPEC).optional(),
  })
  .superRefine((f, ctx) => {
    const fail = (path: string, message: string) => ctx.addIssue({ code: "custom", path: [path], message });
    if (f.status !== undefined && f.code !== undefined && ERROR_STATUS[f.code] !== f.status) {
      fail("code", `is answered with ${ERROR_STATUS[f.code]}, not ${f.status} (§7)`);
    }
    if (
      f.method !== undefined &&
      f.path !== undefined &&
      !ENDPOINTS.some((e) => e.method === f.method && e.path === f.path)
    ) {
      fail("method", `${f.method} ${f.path} is no endpoint of §4`);
    }
    const holds = [f.times, f.duration, f.untilCleared].filter((h) => h !== undefined).length;
    if (holds > 1) fail("times", "give one of times, duration or untilCleared");
    const errs = f.status !== undefined || f.code !== undefined;
    if (errs && f.drop === true) fail("drop", "a fault answers an error or drops the connection, not both");
    if (f.beyondSpec !== undefined && (errs || f.drop === true)) {
      fail("beyondSpec", "a fault answers an error of §7, drops, or fails beyond the spec: one of them");
    }
    if (!errs && f.drop === undefined && f.delayMs === undefined && f.beyondSpec === undefined) {
      fail("status", "give status (or code), delayMs, drop or beyondSpec");
    }
    const isRateLimited = f.code === "rate_limited" || f.status === 429;
    if (f.retryAfter !== undefined && !isRateLimited)
      fail("retryAfter", "goes with a 429 rate_limited fault only");
    if (f.message !== undefined && !errs) fail("message", "goes with an error fault (status or code) only");
  });

/** `--latency`'s range, set by the control surface: `{ minMs, maxMs }`, or `{ minMs }` for a fixed delay. */
export const LatencyInput = z
  .strictObject({
    minMs: z.int().min(0).max(60_000),
    /** `minMs` when left out; 0 and 0 for none. */
    maxMs: z.int().min(0).max(60_000).optional(),
  })
  .refine((l) => l.maxMs === undefined || l.maxMs >= l.minMs, {
    message: "must be at least minMs",
    path: ["maxMs"],
  });

/** The most records one `POST /__control/records` adds. */
export const MAX_RECORDS = 10_000;

/**
 * `POST /__control/records`: records in the fixtures' format (docs/server.md, "Fixtures"), checked by the same
 * schemas and rules. Only `id` (drawn at random), `createdAt` (the reference's clock) and `updatedAt`
 * (its createdAt) may be left out.
 */
export const RecordsInput = z
  .strictObject({
    contacts: z.array(ContactRecordSchema.partial({ id: true, createdAt: true, updatedAt: true })).optional(),
    products: z.array(ProductRecordSchema.partial({ id: true, createdAt: true, updatedAt: true })).optional(),
    accounts: z.array(AccountRecordSchema.partial({ id: true })).optional(),
    invoices: z.array(InvoiceRecordSchema.partial({ id: true, createdAt: true })).optional(),
    expenses: z.array(ExpenseRecordSchema.partial({ id: true, createdAt: true })).optional(),
  })
  .superRefine((r, ctx) => {
    const counts = [r.contacts, r.products, r.accounts, r.invoices, r.expenses].map((l) => l?.length ?? 0);
    const total = counts.reduce((a, b) => a + b, 0);
    if (total === 0) {
      ctx.addIssue({ code: "custom", path: ["contacts"], message: "give at least one record" });
    } else if (total > MAX_RECORDS) {
      ctx.addIssue({ code: "custom", path: ["contacts"], message: `at most ${MAX_RECORDS} records a call` });
    }
  });

/** `POST /__control/sandboxes`: where the sandbox's clock starts (the server's start instant by default). */
export const SandboxInput = z.strictObject({
  /** Where its clock starts, an ISO 8601 date-time with its zone (the server's start by default). */
  now: instant.optional(),
});

/** The `:id` of a path (`DELETE /__control/faults/:id`). */
export const IdParams = z.strictObject({ id: z.string().min(1).max(100) });

const seq = z
  .string()
  .regex(/^(0|[1-9][0-9]{0,14})$/, "must be a journal entry's seq, an integer")
  .transform(Number);

const journalFilter = {
  method: z
    .string()
    .regex(/^[A-Z]+$/, "must be an HTTP method in upper case, e.g. POST")
    .optional(),
  path: z.string().min(1).optional(),
  status: z
    .string()
    .regex(/^[1-5][0-9]{2}$/, "must be an HTTP status, e.g. 401")
    .transform(Number)
    .optional(),
  /** A seq already seen: only the requests after it. */
  after: seq.optional(),
};

export const JournalQuery = z.strictObject({
  ...journalFilter,
  limit: z
    .string()
    .regex(/^[1-9][0-9]*$/, "must be an integer from 1 to 1000")
    .transform(Number)
    .refine((n) => n <= 1000, "must be an integer from 1 to 1000")
    .optional(),
});

/** The longest a wait for a request lasts, in ms of real time, and how long when not said. */
export const MAX_WAIT_MS = 60_000;
export const DEFAULT_WAIT_MS = 5000;

export const JournalWaitQuery = z.strictObject({
  ...journalFilter,
  /** Real time, 5 000 by default, at most 60 000. */
  timeoutMs: z
    .string()
    .regex(/^[0-9]{1,5}$/, `must be an integer from 0 to ${MAX_WAIT_MS}`)
    .transform(Number)
    .refine((n) => n <= MAX_WAIT_MS, `must be an integer from 0 to ${MAX_WAIT_MS}`)
    .optional(),
});
