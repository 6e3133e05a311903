import { Decimal } from "decimal.js";
import { z } from "zod";
import {
  CONTACT_TYPES,
  EXPENSE_STATUSES,
  INVOICE_STATUSES,
  PRODUCT_TYPES,
  TEXT_LIMITS,
} from "../model/records.js";
import { renderedAs } from "../serialization/json-schema.js";
import type {
  ContactCreateInput,
  ContactListInput,
  ExpenseListInput,
  InvoiceListInput,
  ProductCreateInput,
  ProductListInput,
} from "../domain/inputs.js";
import { JsonNumber } from "./json.js";
import {
  EMAIL_PATTERN,
  TEXT_PATTERN,
  codePointLength,
  isBlank,
  isEmail,
  isWellFormed,
} from "../model/text.js";

/**
 * What the API accepts from clients: POST bodies (strict objects: an unknown field is an error,
 * spec-gaps #12) and list queries (unknown parameters ignored, spec-gaps #11). Limits are §8's.
 * Each refinement, custom type and transform carries its JSON Schema twin in `.meta()`, because the
 * OpenAPI document is generated from these schemas and zod-openapi drops refinements silently.
 */

export const LIMITS = {
  contactName: TEXT_LIMITS.contact.name,
  contactPhone: TEXT_LIMITS.contact.phone,
  contactAddress: TEXT_LIMITS.contact.address,
  contactTaxNumber: TEXT_LIMITS.contact.taxNumber,
  productSku: TEXT_LIMITS.product.sku,
  productName: TEXT_LIMITS.product.name,
  productDescription: TEXT_LIMITS.product.description,
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
    .refine((s) => codePointLength(s) <= max, `must be at most ${max} characters`)
    // JSON Schema's maxLength counts code points, as #16 does.
    .meta({ maxLength: max, pattern: TEXT_PATTERN });

const email = z
  .string()
  .refine((s) => isEmail(s), "must be a valid e-mail address (WHATWG HTML definition)")
  .meta({
    pattern: EMAIL_PATTERN,
    description: "A valid e-mail address as the WHATWG HTML standard defines it (`<input type=email>`).",
  });

/** Reads the number's source text, never a binary float: every accepted value comes back exactly. */
const unitPrice = z
  .custom<JsonNumber>((v) => v instanceof JsonNumber, "must be a number")
  .meta({
    override: renderedAs({
      type: "number",
      minimum: 0,
      maximum: Number(LIMITS.unitPriceMax.toFixed(4)),
      multipleOf: 0.0001,
      description:
        "A JSON number, at most 4 decimals (more is refused, never rounded), read from its text without a binary float: what is sent comes back exactly as a 4-decimal string.",
    }),
  })
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

export const ContactCreateBody = z
  .strictObject({
    type: z.enum(CONTACT_TYPES),
    name: text(LIMITS.contactName),
    email: email.optional(),
    phone: text(LIMITS.contactPhone).optional(),
    address: text(LIMITS.contactAddress).optional(),
    taxNumberTPS: text(LIMITS.contactTaxNumber).optional(),
    taxNumberTVQ: text(LIMITS.contactTaxNumber).optional(),
  })
  .meta({
    id: "NewContact",
    description:
      "A contact to create. Strings may not be blank (white space, zero-width or control characters only); lengths count Unicode code points. An unknown field is refused.",
  }) satisfies z.ZodType<ContactCreateInput>;

export const ProductCreateBody = z
  .strictObject({
    sku: text(LIMITS.productSku).meta({
      description: "Unique among the organization's products (exact, case-sensitive match).",
    }),
    name: text(LIMITS.productName),
    description: text(LIMITS.productDescription).optional(),
    type: z.enum(PRODUCT_TYPES).default("PRODUCT"),
    unitPrice,
    taxable: z.boolean().default(true),
  })
  .meta({
    id: "NewProduct",
    description:
      "A product or service to create. Strings may not be blank; lengths count Unicode code points. An unknown field is refused; a sku already used in the organization is refused with 400 invalid_request.",
  }) satisfies z.ZodType<ProductCreateInput>;

/**
 * `limit`: a canonical decimal integer from 1 to 200 (spec-gaps #10). "050", "+5", "5.0" and a
 * repeated parameter are rejected rather than guessed at.
 */
const limit = z
  .string()
  .regex(/^[1-9][0-9]*$/, `must be an integer from 1 to ${LIMITS.pageMax}`)
  .transform(Number)
  .refine((n) => n <= LIMITS.pageMax, `must be an integer from 1 to ${LIMITS.pageMax}`)
  .default(LIMITS.pageDefault)
  .meta({
    override: renderedAs({
      type: "integer",
      minimum: 1,
      maximum: LIMITS.pageMax,
      default: LIMITS.pageDefault,
      description: `Page size, ${LIMITS.pageDefault} when absent. Written in plain decimal digits: \`050\`, \`+5\` and \`5.0\` are refused.`,
    }),
  });

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
  .union(
    [
      z.iso.date(),
      z.iso.datetime({ offset: true }).meta({
        // JSON Schema's date-time is RFC 3339's, which needs the seconds; ISO 8601 and this server
        // do not (2026-10-30T12:00Z). zod's own pattern, kept, says exactly what is accepted.
        override: ({ jsonSchema }: { jsonSchema: Record<string, unknown> }) => {
          Reflect.deleteProperty(jsonSchema, "format");
        },
        description: "A date-time with its zone (`Z` or `±hh:mm`); seconds and fraction optional.",
      }),
    ],
    {
      error: "must be an ISO 8601 date (2026-10-30) or date-time with a zone (2026-10-30T12:00:00.000Z)",
    },
  )
  .meta({
    description:
      "Only items strictly before this instant: a date (midnight UTC) or a date-time with its zone. Newest-first lists end on the date of their last item; following with `before` set to it skips the rest of that day (§4 Pagination).",
  })
  .transform(exclusiveBoundMs)
  .optional();

export const ContactListQuery = z.object({
  type: z.enum(CONTACT_TYPES).optional(),
  limit,
  before,
}) satisfies z.ZodType<ContactListInput>;
export const ProductListQuery = z.object({ limit, before }) satisfies z.ZodType<ProductListInput>;
export const InvoiceListQuery = z.object({
  status: z.enum(INVOICE_STATUSES).optional(),
  limit,
  before,
}) satisfies z.ZodType<InvoiceListInput>;
export const ExpenseListQuery = z.object({
  status: z.enum(EXPENSE_STATUSES).optional(),
  limit,
  before,
}) satisfies z.ZodType<ExpenseListInput>;
