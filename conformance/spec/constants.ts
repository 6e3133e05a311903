/**
 * What the catalogue reads from the spec (accounting-api.md), in one place: the enums of §2 and §5, the
 * endpoint table of §4, the error table of §7 and the limits of §8 (its sections and clauses are in
 * spec/clauses.ts). Checks cite these rather than spelling paths and numbers again, so that a change of
 * the spec is one edit.
 *
 * Written out from the spec, never imported from the reference: the kit judges the reference too, and a
 * mistake in the reference's model must not pass both (constants.test.ts compares the two).
 */

/** §2 Contact `type`. */
export const CONTACT_TYPES = ["CLIENT", "SUPPLIER", "BOTH"] as const;
/** §2 Product `type`. */
export const PRODUCT_TYPES = ["PRODUCT", "SERVICE"] as const;
/** §2 Invoice `status`, §3 Invoice status. */
export const INVOICE_STATUSES = ["DRAFT", "SENT", "PAID", "OVERDUE", "VOIDED"] as const;
/** §2 Expense `status`, §3 Expense status. */
export const EXPENSE_STATUSES = ["DRAFT", "APPROVED", "PAID", "REJECTED"] as const;
/** §5 Scopes, in the spec's order; invoices:write and expenses:write are "coming soon". */
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

export type ListName = "contacts" | "products" | "invoices" | "expenses";

export interface ListSpec {
  name: ListName;
  path: string;
  scope: Scope;
  /** The field newest-first order and `before` work on (spec-gaps #7, #8). */
  orderField: "createdAt" | "date";
  /** The enum filter §4 lists for this endpoint, if any. */
  filter?: { param: "type" | "status"; values: readonly string[] };
}

export const LISTS: Readonly<Record<ListName, ListSpec>> = {
  contacts: {
    name: "contacts",
    path: "/api/v1/contacts",
    scope: "contacts:read",
    orderField: "createdAt",
    filter: { param: "type", values: CONTACT_TYPES },
  },
  products: { name: "products", path: "/api/v1/products", scope: "products:read", orderField: "createdAt" },
  invoices: {
    name: "invoices",
    path: "/api/v1/invoices",
    scope: "invoices:read",
    orderField: "date",
    filter: { param: "status", values: INVOICE_STATUSES },
  },
  expenses: {
    name: "expenses",
    path: "/api/v1/expenses",
    scope: "expenses:read",
    orderField: "date",
    filter: { param: "status", values: EXPENSE_STATUSES },
  },
};

export const LIST_NAMES: readonly ListName[] = ["contacts", "products", "invoices", "expenses"];

export interface Endpoint {
  method: "GET" | "POST";
  path: string;
  scope: Scope;
}

/** §4's table, row by row. */
export const ENDPOINTS: readonly Endpoint[] = [
  { method: "GET", path: LISTS.contacts.path, scope: "contacts:read" },
  { method: "POST", path: LISTS.contacts.path, scope: "contacts:write" },
  { method: "GET", path: LISTS.products.path, scope: "products:read" },
  { method: "POST", path: LISTS.products.path, scope: "products:write" },
  { method: "GET", path: LISTS.invoices.path, scope: "invoices:read" },
  { method: "GET", path: LISTS.expenses.path, scope: "expenses:read" },
];

/**
 * POSTs announced but absent: invoice creation (§1, §4 "Not available") and expense creation, which
 * §9 lists among the planned write access. A 501 on them is not a server fault (spec-gaps #24, #33).
 */
export const ANNOUNCED_POSTS: readonly string[] = [LISTS.invoices.path, LISTS.expenses.path];

/** §7: each HTTP status of the table has one code. */
export const ERROR_CODE_OF_STATUS: Readonly<Record<number, string>> = {
  400: "invalid_request",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  429: "rate_limited",
  500: "internal_error",
};

export const ERROR_CODES: readonly string[] = Object.values(ERROR_CODE_OF_STATUS);

/**
 * §8 and the body tables of §4, written out from the spec rather than imported from the reference's
 * schemas: the kit judges the reference too, and must not inherit a wrong number from it.
 */
export const MAX = {
  contactName: 200,
  contactPhone: 50,
  contactAddress: 500,
  contactTaxNumber: 50,
  productSku: 100,
  productName: 200,
  productDescription: 2000,
  pageDefault: 50,
  pageMax: 200,
} as const;

/** §4 CORS. */
export const CORS_METHODS: readonly string[] = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
export const CORS_HEADERS: readonly string[] = ["authorization", "content-type"];
