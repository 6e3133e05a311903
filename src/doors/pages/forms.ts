import { z } from "zod";
import { creationProblems } from "../../store/token-rules.js";
import { SCOPES, type Scope } from "../../model/records.js";

/**
 * The token form's fields as the browser sends them (application/x-www-form-urlencoded), read into
 * the domain's input. Knows nothing of HTTP beyond the field names: the door hands it `req.body`.
 */

export type NewTokenField = "name" | "scopes" | "expiresOn";
export type FieldErrors = Partial<Record<NewTokenField, string>>;

/** What the form shows back, as typed. */
export interface NewTokenValues {
  name: string;
  scopes: string[];
  /** `YYYY-MM-DD`, or "" for no expiry. */
  expiresOn: string;
}

export interface NewTokenInput {
  name: string;
  scopes: Scope[];
  expiresAt: Date | null;
}

export type NewTokenParse =
  | { ok: true; values: NewTokenValues; input: NewTokenInput }
  | { ok: false; values: NewTokenValues; errors: FieldErrors };

export const EMPTY_VALUES: NewTokenValues = { name: "", scopes: [], expiresOn: "" };

const DAY_MS = 86_400_000;
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A field sent once is a string, sent twice an array (the urlencoded parser's way). */
const oneOrMany = z.union([z.string(), z.array(z.string())]);
const RawForm = z.looseObject({
  name: oneOrMany.optional(),
  scopes: oneOrMany.optional(),
  expiresOn: oneOrMany.optional(),
});

/** The calendar day of an instant, in UTC: `YYYY-MM-DD`. */
export const utcDay = (instant: Date): string => instant.toISOString().slice(0, 10);

/**
 * An expiry date is the start of that day in UTC (DECISIONS.md): the token is Expired from 00:00 UTC
 * on the date shown, as §2 gives dates a midnight time. Undefined for anything but a real calendar
 * date written `YYYY-MM-DD`.
 */
export function expiryInstant(date: string): Date | undefined {
  const m = DATE_RE.exec(date);
  if (m === null) return undefined;
  const instant = new Date(`${date}T00:00:00.000Z`);
  // 2026-02-30 parses as NaN; 0000-01-01 and friends round-trip to themselves or not at all.
  if (Number.isNaN(instant.getTime()) || utcDay(instant) !== date) return undefined;
  return instant;
}

/** The first date the form accepts: tomorrow in UTC, since today's midnight is already past. */
export const earliestExpiryDate = (now: Date): string => utcDay(new Date(now.getTime() + DAY_MS));

/** "name must not be blank" → "Name must not be blank": the domain's message, as a sentence. */
const sentence = (message: string): string => message.charAt(0).toUpperCase() + message.slice(1);

export function parseNewToken(body: unknown, now: Date): NewTokenParse {
  const raw = RawForm.safeParse(body ?? {});
  const fields = raw.success ? raw.data : {};
  const errors: FieldErrors = {};
  const single = (field: "name" | "expiresOn"): string => {
    const value = fields[field];
    if (Array.isArray(value)) {
      errors[field] = "Give this field once";
      return value[0] ?? "";
    }
    return value ?? "";
  };
  // Leading and trailing spaces are a slip of the keyboard, not part of a label.
  const name = single("name").trim();
  const expiresOn = single("expiresOn").trim();
  const scopes = fields.scopes === undefined ? [] : [fields.scopes].flat();
  const values: NewTokenValues = { name, scopes, expiresOn };

  let expiresAt: Date | null = null;
  if (expiresOn !== "" && errors.expiresOn === undefined) {
    const instant = expiryInstant(expiresOn);
    if (instant === undefined) {
      errors.expiresOn = "Enter a date as YYYY-MM-DD, or leave the field empty";
    } else if (instant.getTime() <= now.getTime()) {
      errors.expiresOn = `Choose a date after today (${utcDay(now)}, UTC): the token would be expired at once`;
    } else {
      expiresAt = instant;
    }
  }
  const problems = creationProblems({ name, scopes, expiresAt }, now);
  if (errors.name === undefined && problems.name !== undefined) errors.name = sentence(problems.name);
  if (problems.scopes !== undefined) {
    errors.scopes = scopes.length === 0 ? "Tick at least one scope" : sentence(problems.scopes);
  }
  if (errors.expiresOn === undefined && problems.expiresAt !== undefined) {
    errors.expiresOn = sentence(problems.expiresAt);
  }
  if (Object.keys(errors).length > 0) return { ok: false, values, errors };
  // creationProblems found no scope outside SCOPES.
  const known = SCOPES.filter((s) => scopes.includes(s));
  return { ok: true, values, input: { name, scopes: known, expiresAt } };
}

/** The organization selector's one field. */
export function parseOrganizationChoice(body: unknown): string | undefined {
  const parsed = z.looseObject({ organization: z.string() }).safeParse(body ?? {});
  return parsed.success ? parsed.data.organization : undefined;
}

/** The confirmation the revoke form carries: the confirmation page's button, or the dialog's yes. */
export function isRevokeConfirmed(body: unknown): boolean {
  const parsed = z.looseObject({ confirm: z.literal("yes") }).safeParse(body ?? {});
  return parsed.success;
}
