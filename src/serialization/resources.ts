import type { Decimal } from "decimal.js";
import { z } from "zod";
import {
  CONTACT_TYPES,
  EXPENSE_STATUSES,
  INVOICE_STATUSES,
  PRODUCT_TYPES,
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

export const ContactJson = z
  .strictObject({
    id: z.string(),
    type: z.enum(CONTACT_TYPES),
    name: z.string(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    address: z.string().nullable(),
    taxNumberTPS: z.string().nullable(),
    taxNumberTVQ: z.string().nullable(),
    createdAt: instant,
    updatedAt: instant,
  })
  .meta({ id: "Contact", description: "A contact (§2); unset optional fields are null." });

/** §2 "the creation response carries a subset"; email and phone only when they were sent (spec-gaps #5). */
export const ContactCreatedJson = z
  .strictObject({
    id: z.string(),
    type: z.enum(CONTACT_TYPES),
    name: z.string(),
    email: z.string().optional(),
    phone: z.string().optional(),
    createdAt: instant,
  })
  .meta({
    id: "ContactCreated",
    description:
      "§2's creation subset: id, type, name, createdAt, and email and phone only when they were sent.",
  });

export const ProductJson = z
  .strictObject({
    id: z.string(),
    sku: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    type: z.enum(PRODUCT_TYPES),
    unitPrice: money,
    taxable: z.boolean(),
    createdAt: instant,
    updatedAt: instant,
  })
  .meta({ id: "Product", description: "A product or service (§2); an unset description is null." });

export const InvoiceJson = z
  .strictObject({
    id: z.string(),
    invoiceNumber: z.string(),
    date: midnight,
    dueDate: midnight,
    status: z.enum(INVOICE_STATUSES),
    subtotal: money,
    tps: money,
    tvq: money,
    total: money,
    description: z.string(),
    contact: z.strictObject({ id: z.string(), name: z.string(), email: z.string().nullable() }),
    createdAt: instant,
  })
  .meta({
    id: "Invoice",
    description: "An invoice (§2), read-only; the contact's email is null when it has none.",
  });

export const ExpenseJson = z
  .strictObject({
    id: z.string(),
    date: midnight,
    status: z.enum(EXPENSE_STATUSES),
    amount: money,
    tps: money,
    tvq: money,
    total: money,
    description: z.string(),
    contact: z.strictObject({ id: z.string(), name: z.string() }),
    account: z.strictObject({ id: z.string(), code: z.string(), name: z.string() }),
    createdAt: instant,
  })
  .meta({ id: "Expense", description: "An expense (§2), read-only." });

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
const errorJson = (code: ErrorCode) =>
  z
    .strictObject({
      error: z.strictObject({
        code: z.literal(code),
        message: z.string().min(1),
        ...(code === "invalid_request" ? { details: ErrorDetailsJson.optional() } : {}),
      }),
    })
    .meta({
      id: ERROR_SCHEMA_IDS[code],
      description: `§7's error envelope with code ${code} (HTTP ${ERROR_STATUS[code]}).`,
    });

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

/** §2: four decimals, from the decimal itself, never through a float. */
const toMoney = (d: Decimal): string => d.toFixed(4);
const toInstant = (d: Date): string => d.toISOString();

export const toContact = (c: Contact): ContactJson => ({
  id: c.id,
  type: c.type,
  name: c.name,
  email: c.email,
  phone: c.phone,
  address: c.address,
  taxNumberTPS: c.taxNumberTPS,
  taxNumberTVQ: c.taxNumberTVQ,
  createdAt: toInstant(c.createdAt),
  updatedAt: toInstant(c.updatedAt),
});

/** Which of the optional fields echoed at creation were sent (§2's "subset", spec-gaps #5). */
export interface SentContactFields {
  email?: string | undefined;
  phone?: string | undefined;
}

export const toContactCreated = (c: Contact, sent: SentContactFields): ContactCreatedJson => ({
  id: c.id,
  type: c.type,
  name: c.name,
  // Sent or not: JSON leaves out a field whose value is undefined.
  email: sent.email,
  phone: sent.phone,
  createdAt: toInstant(c.createdAt),
});

export const toProduct = (p: Product): ProductJson => ({
  id: p.id,
  sku: p.sku,
  name: p.name,
  description: p.description,
  type: p.type,
  unitPrice: toMoney(p.unitPrice),
  taxable: p.taxable,
  createdAt: toInstant(p.createdAt),
  updatedAt: toInstant(p.updatedAt),
});

export const toInvoice = (i: Invoice): InvoiceJson => ({
  id: i.id,
  invoiceNumber: i.invoiceNumber,
  date: toInstant(i.date),
  dueDate: toInstant(i.dueDate),
  status: i.status,
  subtotal: toMoney(i.subtotal),
  tps: toMoney(i.tps),
  tvq: toMoney(i.tvq),
  total: toMoney(i.total),
  description: i.description,
  contact: { ...i.contact },
  createdAt: toInstant(i.createdAt),
});

export const toExpense = (e: Expense): ExpenseJson => ({
  id: e.id,
  date: toInstant(e.date),
  status: e.status,
  amount: toMoney(e.amount),
  tps: toMoney(e.tps),
  tvq: toMoney(e.tvq),
  total: toMoney(e.total),
  description: e.description,
  contact: { ...e.contact },
  account: { ...e.account },
  createdAt: toInstant(e.createdAt),
});
