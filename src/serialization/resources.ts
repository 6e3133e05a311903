import { Decimal } from "decimal.js";
import { z } from "zod";
import type { AddedField, EnumName, Spec } from "../../spec/index.js";
import {
  contactShape,
  expenseShape,
  invoiceShape,
  productShape,
  type AddedValues,
  type Contact,
  type Expense,
  type Invoice,
  type Product,
} from "../model/records.js";
import { defaultErrors, type ErrorDetails, type ErrorRole, type ErrorTable } from "../model/errors.js";
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
  // The value the state holds, whatever spec it serves (a variant's added contact type included).
  choice: () => z.string(),
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

/** The document's name of each situation's envelope (components.schemas). */
const ERROR_SCHEMA_IDS: Record<ErrorRole, string> = {
  invalidRequest: "InvalidRequestError",
  unauthorized: "UnauthorizedError",
  forbidden: "ForbiddenError",
  notFound: "NotFoundError",
  rateLimited: "RateLimitedError",
  internal: "InternalError",
  duplicateSku: "DuplicateSkuError",
};

/**
 * §7's envelope for one situation, with the status and code a table gives it. Only invalidRequest
 * (and duplicateSku, which names the sku) carries `details`, naming each offending field.
 */
export const errorSchemaId = (role: ErrorRole): string => ERROR_SCHEMA_IDS[role];

/**
 * §7's envelope of one code of a table, named after the first situation that answers with it; it
 * carries `details` when a situation naming fields (invalidRequest, duplicateSku) answers with it.
 * `named`: its id goes into zod's registry, which holds each id once (the default table's only).
 */
export const errorJson = (code: string, table: ErrorTable, named: boolean) => {
  const roles = (Object.keys(table) as ErrorRole[]).filter((role) => table[role].code === code);
  const first = roles[0] ?? "internal";
  const error = z.strictObject({ code: z.literal(code), message: z.string().min(1) });
  const withDetails = roles.some((role) => role === "invalidRequest" || role === "duplicateSku");
  return z
    .strictObject({ error: withDetails ? error.extend({ details: ErrorDetailsJson.optional() }) : error })
    .meta(
      Object.assign(named ? { id: ERROR_SCHEMA_IDS[first] } : {}, {
        description: `§7's error envelope with code ${code} (HTTP ${table[first].status}).`,
      }),
    );
};

/** The default table's envelopes by code (the default document's, the tests'). */
export const ErrorJson: Readonly<Record<string, ReturnType<typeof errorJson>>> = Object.fromEntries(
  [...new Set(Object.values(defaultErrors()).map((e) => e.code))].map((code) => [
    code,
    errorJson(code, defaultErrors(), true),
  ]),
);

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

// --- a spec's wire: its enumerations and added fields ------------------------------------------------

/** An added field as served: its type (a decimal as §2's money), null on a record without it (spec-gaps #4). */
function addedJson(field: AddedField): z.ZodType {
  const base =
    field.type === "boolean"
      ? z.boolean()
      : field.type === "number"
        ? z.number()
        : field.type === "decimal"
          ? money
          : field.enum === undefined
            ? z.string()
            : z.enum(field.enum);
  return field.description === undefined ? base : base.meta({ description: field.description });
}

const addedShape = (fields: Readonly<Record<string, AddedField>>, nullable: boolean) =>
  Object.fromEntries(
    Object.entries(fields).map(([name, f]) => [
      name,
      nullable ? addedJson(f).nullable() : addedJson(f).optional(),
    ]),
  );

/** An added value as served: a decimal at 4 decimals like §2's money. */
const addedValueJson = (value: AddedValues[string]): string | number | boolean =>
  value instanceof Decimal ? toMoney(value) : value;

/** The added fields of a record, every one of `fields` (null when it has none), in the file's order. */
function addedOf(
  fields: Readonly<Record<string, AddedField>>,
  values: AddedValues | undefined,
  absentAs: "null" | "left out",
): Record<string, string | number | boolean | null> {
  const out: Record<string, string | number | boolean | null> = {};
  for (const name of Object.keys(fields)) {
    const value = values?.[name];
    if (value !== undefined) out[name] = addedValueJson(value);
    else if (absentAs === "null") out[name] = null;
  }
  return out;
}

/** What a spec serves: the response schemas (for the document) and the serializers (for the door). */
export interface Wire {
  schemas: {
    contact: z.ZodType;
    contactCreated: z.ZodType;
    product: z.ZodType;
    invoice: z.ZodType;
    expense: z.ZodType;
  };
  toContact(c: Contact): unknown;
  toContactCreated(c: Contact, sent: SentContactFields): unknown;
  toProduct(p: Product): unknown;
  toInvoice(i: Invoice): unknown;
  toExpense(e: Expense): unknown;
}

/**
 * A spec's wire: the default one's schemas and serializers above when its enumerations and fields are
 * the default file's; otherwise the same shapes with the spec's enumerations and its added fields.
 */
export function wireOf(spec: Spec, isDefault: boolean): Wire {
  if (isDefault) {
    return {
      schemas: {
        contact: ContactJson,
        contactCreated: ContactCreatedJson,
        product: ProductJson,
        invoice: InvoiceJson,
        expense: ExpenseJson,
      },
      toContact,
      toContactCreated,
      toProduct,
      toInvoice,
      toExpense,
    };
  }
  const leaves = Object.assign({}, WIRE, { choice: (name: EnumName) => z.enum(spec.enums[name]) });
  const contactWire = contactShape(leaves);
  const { contact: contactFields, product: productFields } = spec.fields;
  return {
    schemas: {
      contact: z
        .strictObject(Object.assign({}, served(contactWire), addedShape(contactFields, true)))
        .meta({ description: "A contact (§2); unset optional fields are null." }),
      contactCreated: z
        .strictObject(Object.assign({}, createdSubset(contactWire), addedShape(contactFields, false)))
        .meta({
          description:
            "§2's creation subset: id, type, name, createdAt, and email, phone and each added field only when they were sent.",
        }),
      product: z
        .strictObject(Object.assign({}, served(productShape(leaves)), addedShape(productFields, true)))
        .meta({ description: "A product or service (§2); unset optional fields are null." }),
      invoice: z.strictObject(served(invoiceShape(leaves))).meta({
        description: "An invoice (§2), read-only; the contact's email is null when it has none.",
      }),
      expense: z
        .strictObject(served(expenseShape(leaves)))
        .meta({ description: "An expense (§2), read-only." }),
    },
    // The built-in fields first, then the added ones in the file's order.
    toContact: (c) => Object.assign(toContact(c), addedOf(contactFields, c.added, "null")),
    toContactCreated: (c, sent) =>
      Object.assign(toContactCreated(c, sent), addedOf(contactFields, c.added, "left out")),
    toProduct: (p) => Object.assign(toProduct(p), addedOf(productFields, p.added, "null")),
    toInvoice,
    toExpense,
  };
}
