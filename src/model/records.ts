import type { Decimal } from "decimal.js";

/**
 * The records the domain works on. They carry real types (Date, Decimal); the JSON shapes served to
 * clients live in serialization/, the shapes accepted from clients in validation/.
 */

export const CONTACT_TYPES = ["CLIENT", "SUPPLIER", "BOTH"] as const;
export type ContactType = (typeof CONTACT_TYPES)[number];

export const PRODUCT_TYPES = ["PRODUCT", "SERVICE"] as const;
export type ProductType = (typeof PRODUCT_TYPES)[number];

export const INVOICE_STATUSES = ["DRAFT", "SENT", "PAID", "OVERDUE", "VOIDED"] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

export const EXPENSE_STATUSES = ["DRAFT", "APPROVED", "PAID", "REJECTED"] as const;
export type ExpenseStatus = (typeof EXPENSE_STATUSES)[number];

/** §5 Scopes. The two "coming soon" scopes can be granted but no endpoint accepts them yet. */
export const SCOPES = [
  "contacts:read",
  "contacts:write",
  "products:read",
  "products:write",
  "invoices:read",
  "invoices:write",
  "expenses:read",
  "expenses:write",
] as const;
export type Scope = (typeof SCOPES)[number];

/** Plans decide API access (§7 "the organization's plan is insufficient", spec-gaps #25). */
export const PLANS = ["STARTER", "BUSINESS", "ENTERPRISE"] as const;
export type Plan = (typeof PLANS)[number];
export const planHasApiAccess = (plan: Plan): boolean => plan !== "STARTER";

export interface Organization {
  id: string;
  name: string;
  plan: Plan;
}

export interface Contact {
  id: string;
  organizationId: string;
  type: ContactType;
  name: string;
  email: string | null;
  phone: string | null;
  address: string | null;
  taxNumberTPS: string | null;
  taxNumberTVQ: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface Product {
  id: string;
  organizationId: string;
  sku: string;
  name: string;
  description: string | null;
  type: ProductType;
  unitPrice: Decimal;
  taxable: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export interface LedgerAccount {
  id: string;
  organizationId: string;
  code: string;
  name: string;
}

/** Invoices and expenses keep a snapshot of their contact, as an issued document does. */
export interface Invoice {
  id: string;
  organizationId: string;
  invoiceNumber: string;
  date: Date;
  dueDate: Date;
  status: InvoiceStatus;
  subtotal: Decimal;
  tps: Decimal;
  tvq: Decimal;
  total: Decimal;
  description: string;
  contact: { id: string; name: string; email: string | null };
  createdAt: Date;
}

export interface Expense {
  id: string;
  organizationId: string;
  date: Date;
  status: ExpenseStatus;
  amount: Decimal;
  tps: Decimal;
  tvq: Decimal;
  total: Decimal;
  description: string;
  contact: { id: string; name: string };
  account: { id: string; code: string; name: string };
  createdAt: Date;
}
