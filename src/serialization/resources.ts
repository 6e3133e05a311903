import { Decimal } from "decimal.js";
import { z } from "zod";
import {
  contactShape,
  expenseShape,
  invoiceShape,
  productShape,
  type Contact,
  type Expense,
  type Invoice,
  type Product,
} from "../model/records.js";
import { ERROR_STATUS, type ErrorCode, type ErrorDetails } from "../model/errors.js";
import { renderedAs } from "./json-schema.js";

/**
 * The JSON shapes served (§2), one schema per resource, and the functions that give a record its
 * shape. The OpenAPI document is generated from these schemas, and tests check every response
 * against it. Lists carry every field of the spec's table, an unset optional as null (spec-gaps #4).
 */
const money = z
  .string()
  .regex(/^-?\d+\.\d{4}$/)
  .meta({
    description: "A decimal amount as a string with exactly 4 decimals (§2).",
    examples: ["1149.7500"],
  });
const instant = z.iso.datetime({ precision: 3 }).meta({
  description: "An instant in UTC, milliseconds and a trailing Z (§2).",
  examples: ["2026-11-20T12:00:00.000Z"],
});
/**
 * zod renders the two checks as `allOf` of two patterns, which Prism merges into one pattern that no
 * date matches; the twin is one anchored pattern meaning the same: a valid date, then midnight.
 */
const MIDNIGHT_PATTERN = `${z.regexes.date.source.replace(/\$$/, "")}T00:00:00\\.000Z$`;
const midnight = instant.regex(/T00:00:00\.000Z$/).meta({
  override: renderedAs({
    type: "string",
    format: "date-time",
    pattern: MIDNIGHT_PATTERN,
    description: "A date, served as its midnight instant in UTC (§2).",
    examples: ["2026-10-30T00:00:00.000Z"],
  }),
});

/** §2: four decimals, from the decimal itself, never through a float. */
const toMoney = (d: Decimal): string => d.toFixed(4);
const toInstant = (d: Date): string => d.toISOString();

/** How §2's wire writes each kind of value: the schemas the OpenAPI document and the tests read. */
const WIRE = {
  id: () => z.string(),
  ref: () => z.string(),
  text: () => z.string(),
  email: z.string(),
  instant,
  day: midnight,
  money,
};

/**
 * The same, as codecs from the domain's values (src/model/records.ts): what the serializers below
 * encode records with. Only the domain side is checked (the wire side is what these make).
 */
const FROM_DOMAIN = {
  id: WIRE.id,
  ref: WIRE.ref,
  text: WIRE.text,
  email: WIRE.email,
  instant: z.codec(z.string(), z.date(), { decode: (s) => new Date(s), encode: toInstant }),
  day: z.codec(z.string(), z.date(), { decode: (s) => new Date(s), encode: toInstant }),
  money: z.codec(z.string(), z.instanceof(Decimal), { decode: (s) => new Decimal(s), encode: toMoney }),
};

/** A record on the wire: the model's shape without `organizationId` (a client only ever sees its own). */
const served = <S extends { organizationId: unknown }>({
  organizationId: _,
  ...fields
}: S): Omit<S, "organizationId"> => fields;

/** §2 "the creation response carries a subset": email and phone only when they were sent (spec-gaps #5). */
const createdSubset = <I extends z.ZodType>({
  id,
  type,
  name,
  email,
  phone,
  createdAt,
}: ReturnType<typeof contactShape<I, z.ZodType, z.ZodType>>) => ({
  id,
  type,
  name,
  email: email.unwrap().optional(),
  phone: phone.unwrap().optional(),
  createdAt,
});

/**
 * An encoder, built on its first use: zod builds an object schema in about a millisecond, and every
 * start would pay for kinds its first answers never serve.
 */
function encoder<S extends z.ZodType>(make: () => S): () => S {
  let made: S | undefined;
  return () => (made ??= make());
}

const contactWire = contactShape(WIRE);
export const ContactJson = z
  .strictObject(served(contactWire))
  .meta({ id: "Contact", description: "A contact (§2); unset optional fields are null." });
export const ContactCreatedJson = z.strictObject(createdSubset(contactWire)).meta({
  id: "ContactCreated",
  description:
    "§2's creation subset: id, type, name, createdAt, and email and phone only when they were sent.",
});
export const ProductJson = z
  .strictObject(served(productShape(WIRE)))
  .meta({ id: "Product", description: "A product or service (§2); an unset description is null." });
export const InvoiceJson = z.strictObject(served(invoiceShape(WIRE))).meta({
  id: "Invoice",
  description: "An invoice (§2), read-only; the contact's email is null when it has none.",
});
export const ExpenseJson = z
  .strictObject(served(expenseShape(WIRE)))
  .meta({ id: "Expense", description: "An expense (§2), read-only." });

const ContactWire = encoder(() => z.object(served(contactShape(FROM_DOMAIN))));
const ContactCreatedWire = encoder(() => z.object(createdSubset(contactShape(FROM_DOMAIN))));
const ProductWire = encoder(() => z.object(served(productShape(FROM_DOMAIN))));
const InvoiceWire = encoder(() => z.object(served(invoiceShape(FROM_DOMAIN))));
const ExpenseWire = encoder(() => z.object(served(expenseShape(FROM_DOMAIN))));

const isDetails = (v: unknown): v is ErrorDetails =>
  typeof v === "object" &&
  v !== null &&
  !Array.isArray(v) &&
  Object.values(v).every(
    (messages) =>
      Array.isArray(messages) &&
      messages.length > 0 &&
      messages.every((m) => typeof m === "string" && m !== ""),
  );

/** spec-gaps #36. Not z.record: zod 4.1 refuses an object with an own `constructor` key as a record. */
const ErrorDetailsJson = z.custom<ErrorDetails>(isDetails).meta({
  override: renderedAs({
    type: "object",
    additionalProperties: { type: "array", minItems: 1, items: { type: "string", minLength: 1 } },
    description: "Per-field messages, keyed by the field's path (`name`, `limit`), each a list of messages.",
  }),
});

const ERROR_SCHEMA_IDS: Record<ErrorCode, string> = {
  invalid_request: "InvalidRequestError",
  unauthorized: "UnauthorizedError",
  forbidden: "ForbiddenError",
  not_found: "NotFoundError",
  rate_limited: "RateLimitedError",
  internal_error: "InternalError",
};

/**
 * §7's envelope for one code; the code decides the status (ERROR_STATUS). Only invalid_request
 * carries `details`, naming each offending field.
 */
const errorJson = (code: ErrorCode) => {
  const error = z.strictObject({ code: z.literal(code), message: z.string().min(1) });
  return z
    .strictObject({
      error: code === "invalid_request" ? error.extend({ details: ErrorDetailsJson.optional() }) : error,
    })
    .meta({
      id: ERROR_SCHEMA_IDS[code],
      description: `§7's error envelope with code ${code} (HTTP ${ERROR_STATUS[code]}).`,
    });
};

export const ErrorJson: Record<ErrorCode, ReturnType<typeof errorJson>> = {
  invalid_request: errorJson("invalid_request"),
  unauthorized: errorJson("unauthorized"),
  forbidden: errorJson("forbidden"),
  not_found: errorJson("not_found"),
  rate_limited: errorJson("rate_limited"),
  internal_error: errorJson("internal_error"),
};

export type ContactJson = z.infer<typeof ContactJson>;
export type ContactCreatedJson = z.infer<typeof ContactCreatedJson>;
export type ProductJson = z.infer<typeof ProductJson>;
export type InvoiceJson = z.infer<typeof InvoiceJson>;
export type ExpenseJson = z.infer<typeof ExpenseJson>;

/** A record as served: its domain values encoded, its fields those of its wire schema. */
export const toContact = (c: Contact): ContactJson => z.encode(ContactWire(), c);

/** Which of the optional fields echoed at creation were sent (§2's "subset", spec-gaps #5). */
export interface SentContactFields {
  email?: string | undefined;
  phone?: string | undefined;
}

export const toContactCreated = (c: Contact, sent: SentContactFields): ContactCreatedJson =>
  // Sent or not: JSON leaves out a field whose value is undefined.
  z.encode(ContactCreatedWire(), {
    id: c.id,
    type: c.type,
    name: c.name,
    email: sent.email,
    phone: sent.phone,
    createdAt: c.createdAt,
  });

export const toProduct = (p: Product): ProductJson => z.encode(ProductWire(), p);
export const toInvoice = (i: Invoice): InvoiceJson => z.encode(InvoiceWire(), i);
export const toExpense = (e: Expense): ExpenseJson => z.encode(ExpenseWire(), e);
