import { Decimal } from "decimal.js";
import { z } from "zod";
import { CONTACT_TYPES, EXPENSE_STATUSES, INVOICE_STATUSES, PRODUCT_TYPES } from "../domain/model.js";
import { JsonNumber } from "./json.js";
import { codePointLength, isBlank, isEmail, isWellFormed } from "./text.js";

/**
 * What the API accepts from clients: POST bodies (strict objects: an unknown field is an error,
 * spec-gaps #12) and list queries (unknown parameters ignored, spec-gaps #11). Limits are §8's.
 */

export const LIMITS = {
  contactName: 200,
  contactPhone: 50,
  contactAddress: 500,
  contactTaxNumber: 50,
  productSku: 100,
  productName: 200,
  productDescription: 2000,
  /** The largest unitPrice accepted (spec-gaps #19): 16 significant digits at most, all kept exactly. */
  unitPriceMax: new Decimal("999999999999.9999"),
  unitPriceDecimals: 4,
  pageDefault: 50,
  pageMax: 200,
} as const;

/** A string of at most `max` code points that is not blank (spec-gaps #16, #17). */
const text = (max: number) =>
  z
    .string()
    .refine(isWellFormed, "must be valid Unicode text (it holds a lone surrogate)")
    .refine((s) => !isBlank(s), "must not be blank")
    .refine((s) => codePointLength(s) <= max, `must be at most ${max} characters`);

const email = z.string().refine((s) => isEmail(s), "must be a valid e-mail address (WHATWG HTML definition)");

/** Reads the number's source text, never a binary float: every accepted value comes back exactly. */
const unitPrice = z
  .custom<JsonNumber>((v) => v instanceof JsonNumber, "must be a number")
  .transform((n, ctx) => {
    const value = new Decimal(n.text);
    const fail = (message: string) => {
      ctx.addIssue({ code: "custom", message, input: n });
      return z.NEVER;
    };
    if (value.isNegative() && !value.isZero()) return fail("must be greater than or equal to 0");
    // decimal.js turns a value below its exponent range (1e-9000000000000001) into 0: that would be
    // rounding, which #19 forbids. Such a value has far more than 4 decimals.
    if (value.isZero() && /[1-9]/.test(n.text.split(/[eE]/)[0] ?? "")) {
      return fail(`must have at most ${LIMITS.unitPriceDecimals} decimal places`);
    }
    if (value.decimalPlaces() > LIMITS.unitPriceDecimals) {
      return fail(`must have at most ${LIMITS.unitPriceDecimals} decimal places`);
    }
    if (value.greaterThan(LIMITS.unitPriceMax))
      return fail(`must be at most ${LIMITS.unitPriceMax.toFixed(4)}`);
    return value.isZero() ? new Decimal(0) : value;
  });

export const ContactCreateBody = z.strictObject({
  type: z.enum(CONTACT_TYPES),
  name: text(LIMITS.contactName),
  email: email.optional(),
  phone: text(LIMITS.contactPhone).optional(),
  address: text(LIMITS.contactAddress).optional(),
  taxNumberTPS: text(LIMITS.contactTaxNumber).optional(),
  taxNumberTVQ: text(LIMITS.contactTaxNumber).optional(),
});
export type ContactCreateInput = z.infer<typeof ContactCreateBody>;

export const ProductCreateBody = z.strictObject({
  sku: text(LIMITS.productSku),
  name: text(LIMITS.productName),
  description: text(LIMITS.productDescription).optional(),
  type: z.enum(PRODUCT_TYPES).default("PRODUCT"),
  unitPrice,
  taxable: z.boolean().default(true),
});
export type ProductCreateInput = z.infer<typeof ProductCreateBody>;

/**
 * `limit`: a canonical decimal integer from 1 to 200 (spec-gaps #10). "050", "+5", "5.0" and a
 * repeated parameter are rejected rather than guessed at.
 */
const limit = z
  .string()
  .regex(/^[1-9][0-9]*$/, `must be an integer from 1 to ${LIMITS.pageMax}`)
  .transform(Number)
  .refine((n) => n <= LIMITS.pageMax, `must be an integer from 1 to ${LIMITS.pageMax}`)
  .default(LIMITS.pageDefault);

/**
 * The exclusive bound, in whole ms, that keeps exactly the items strictly before the instant `text`
 * names. Date.parse is given the fraction as exactly three digits: it drops digits past the third,
 * which moved a `before` of 00:00:00.0001 back to 00:00:00.000 and lost the items at that
 * millisecond, though they are strictly earlier; and V8 misreads ten digits or more (.0001000000
 * became 1 ms). Order keys are whole ms, so below an instant inside a millisecond means at that
 * millisecond or earlier: below the next one.
 */
export function exclusiveBoundMs(text: string): number {
  const fraction = /\.(\d+)/.exec(text);
  if (fraction === null) return Date.parse(text);
  const digits = fraction[1] ?? "";
  const ms = Date.parse(text.replace(fraction[0], `.${digits.slice(0, 3).padEnd(3, "0")}`));
  return /[1-9]/.test(digits.slice(3)) ? ms + 1 : ms;
}

/**
 * `before` (spec-gaps #8): an ISO 8601 date (midnight UTC) or a date-time with its zone; exclusive,
 * compared exactly, whatever the number of fraction digits. Becomes ms since the epoch, the unit the
 * store's order keys use.
 */
const before = z
  .union([z.iso.date(), z.iso.datetime({ offset: true })], {
    error: "must be an ISO 8601 date (2026-10-30) or date-time with a zone (2026-10-30T12:00:00.000Z)",
  })
  .transform(exclusiveBoundMs)
  .optional();

export const ContactListQuery = z.object({ type: z.enum(CONTACT_TYPES).optional(), limit, before });
export const ProductListQuery = z.object({ limit, before });
export const InvoiceListQuery = z.object({ status: z.enum(INVOICE_STATUSES).optional(), limit, before });
export const ExpenseListQuery = z.object({ status: z.enum(EXPENSE_STATUSES).optional(), limit, before });

export type ContactListInput = z.infer<typeof ContactListQuery>;
export type ProductListInput = z.infer<typeof ProductListQuery>;
export type InvoiceListInput = z.infer<typeof InvoiceListQuery>;
export type ExpenseListInput = z.infer<typeof ExpenseListQuery>;
