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
} from "../domain/model.js";
import type { ContactCreateInput } from "../validation/schemas.js";

/**
 * The JSON shapes served (§2), one schema per resource; they are the source for the OpenAPI
 * document to come, and tests check every response against them. Lists carry every field of the
 * spec's table, an unset optional as null (spec-gaps #4).
 */
const money = z.string().regex(/^-?\d+\.\d{4}$/);
const instant = z.iso.datetime({ precision: 3 });
const midnight = instant.regex(/T00:00:00\.000Z$/);

export const ContactJson = z.strictObject({
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
});

/** §2 "the creation response carries a subset"; email and phone only when they were sent (spec-gaps #5). */
export const ContactCreatedJson = z.strictObject({
  id: z.string(),
  type: z.enum(CONTACT_TYPES),
  name: z.string(),
  email: z.string().optional(),
  phone: z.string().optional(),
  createdAt: instant,
});

export const ProductJson = z.strictObject({
  id: z.string(),
  sku: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  type: z.enum(PRODUCT_TYPES),
  unitPrice: money,
  taxable: z.boolean(),
  createdAt: instant,
  updatedAt: instant,
});

export const InvoiceJson = z.strictObject({
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
});

export const ExpenseJson = z.strictObject({
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
});

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

export const toContactCreated = (c: Contact, sent: ContactCreateInput): ContactCreatedJson => ({
  id: c.id,
  type: c.type,
  name: c.name,
  ...(sent.email === undefined ? {} : { email: sent.email }),
  ...(sent.phone === undefined ? {} : { phone: sent.phone }),
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
