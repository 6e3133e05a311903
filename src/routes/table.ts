import { z } from "zod";
import type { Scope } from "../model/records.js";
import {
  ContactCreatedJson,
  ContactJson,
  ExpenseJson,
  InvoiceJson,
  ProductJson,
} from "../serialization/resources.js";
import {
  ContactCreateBody,
  ContactListQuery,
  ExpenseListQuery,
  InvoiceListQuery,
  ProductCreateBody,
  ProductListQuery,
} from "../validation/schemas.js";

/**
 * §4's endpoint table as data: what each endpoint is (method, path, scope, success status, the
 * schemas of its query, body and `data`), with no code. The API door binds each row to its handler
 * (src/doors/api/handlers.ts), the OpenAPI document is generated from it (src/openapi/), and the
 * announced endpoints are rows too, answered 404 until they exist.
 */

/** What a GET reads of its body: nothing. */
export const NO_BODY = z.undefined();
/** What a POST reads of its query string: nothing (unknown parameters are ignored, spec-gaps #11). */
export const NO_QUERY = z.object({});

export interface Endpoint {
  readonly method: "get" | "post";
  readonly path: string;
  readonly scope: Scope;
  readonly summary: string;
  readonly status: 200 | 201;
  readonly query: z.ZodObject;
  readonly body: z.ZodType;
  /** The schema of `data`, or of each of its items for a list. */
  readonly response: z.ZodType;
  readonly list: boolean;
  readonly announced?: false;
}

/** §1, §4 "Not available", §9: announced or planned, not yet there (spec-gaps #24). */
export interface AnnouncedEndpoint {
  readonly method: "post";
  readonly path: string;
  /** What it will do, for its 404 message and its documentation. */
  readonly what: string;
  readonly announced: true;
}

/** Keyed by operation id (the OpenAPI document's `operationId`). */
export const API_TABLE = {
  listContacts: {
    method: "get",
    path: "/api/v1/contacts",
    scope: "contacts:read",
    summary: "List contacts, newest first",
    status: 200,
    query: ContactListQuery,
    body: NO_BODY,
    response: ContactJson,
    list: true,
  },
  createContact: {
    method: "post",
    path: "/api/v1/contacts",
    scope: "contacts:write",
    summary: "Create a contact",
    status: 201,
    query: NO_QUERY,
    body: ContactCreateBody,
    response: ContactCreatedJson,
    list: false,
  },
  listProducts: {
    method: "get",
    path: "/api/v1/products",
    scope: "products:read",
    summary: "List products and services, newest first",
    status: 200,
    query: ProductListQuery,
    body: NO_BODY,
    response: ProductJson,
    list: true,
  },
  createProduct: {
    method: "post",
    path: "/api/v1/products",
    scope: "products:write",
    summary: "Create a product or service",
    // §4 leaves the status and body open; the common rule "201 for creation" decides (spec-gaps #6).
    status: 201,
    query: NO_QUERY,
    body: ProductCreateBody,
    response: ProductJson,
    list: false,
  },
  listInvoices: {
    method: "get",
    path: "/api/v1/invoices",
    scope: "invoices:read",
    summary: "List invoices, newest date first",
    status: 200,
    query: InvoiceListQuery,
    body: NO_BODY,
    response: InvoiceJson,
    list: true,
  },
  listExpenses: {
    method: "get",
    path: "/api/v1/expenses",
    scope: "expenses:read",
    summary: "List expenses, newest date first",
    status: 200,
    query: ExpenseListQuery,
    body: NO_BODY,
    response: ExpenseJson,
    list: true,
  },
  createInvoice: { method: "post", path: "/api/v1/invoices", what: "Invoice creation", announced: true },
  createExpense: { method: "post", path: "/api/v1/expenses", what: "Expense creation", announced: true },
} as const satisfies Record<string, Endpoint | AnnouncedEndpoint>;

export type ApiTable = typeof API_TABLE;
export type OperationId = keyof ApiTable;
/** The operations that exist (each bound to a handler by the API door). */
export type AvailableId = {
  [K in OperationId]: ApiTable[K] extends AnnouncedEndpoint ? never : K;
}[OperationId];

export interface TableRow {
  operationId: string;
  row: Endpoint | AnnouncedEndpoint;
}

/** The table's rows in order, for readers that take every row alike (the router, the document). */
export const TABLE_ROWS: readonly TableRow[] = Object.entries(API_TABLE).map(([operationId, row]) => ({
  operationId,
  row,
}));
