import type { z } from "zod";
import type { AuthContext } from "../doors/api/auth.js";
import type { Accounting } from "../domain/accounting.js";
import type { Scope } from "../model/records.js";
import {
  ContactCreatedJson,
  ContactJson,
  ExpenseJson,
  InvoiceJson,
  ProductJson,
  toContact,
  toContactCreated,
  toExpense,
  toInvoice,
  toProduct,
} from "../serialization/resources.js";
import {
  ContactCreateBody,
  ContactListQuery,
  ExpenseListQuery,
  InvoiceListQuery,
  ProductCreateBody,
  ProductListQuery,
} from "../validation/schemas.js";

type Output<S> = S extends z.ZodType ? z.output<S> : undefined;

/**
 * One row of §4's endpoint table. The route table is data: the router is built from it, and the
 * OpenAPI document to come will be generated from the same schemas.
 */
export interface Route<Q extends z.ZodType | undefined = z.ZodType | undefined, B = z.ZodType | undefined> {
  method: "get" | "post";
  path: string;
  scope: Scope;
  summary: string;
  status: 200 | 201;
  query: Q;
  body: B;
  /** The schema of `data` (an element's, for lists). */
  response: z.ZodType;
  list: boolean;
  handle(input: { query: Output<Q>; body: Output<B>; auth: AuthContext }): unknown;
}

const route = <Q extends z.ZodType | undefined, B extends z.ZodType | undefined>(r: Route<Q, B>) =>
  r as unknown as Route;

export function buildRoutes(accounting: Accounting): Route[] {
  return [
    route({
      method: "get",
      path: "/api/v1/contacts",
      scope: "contacts:read",
      summary: "List contacts, newest first",
      status: 200,
      query: ContactListQuery,
      body: undefined,
      response: ContactJson,
      list: true,
      handle: ({ query, auth }) => accounting.listContacts(auth.organizationId, query).map(toContact),
    }),
    route({
      method: "post",
      path: "/api/v1/contacts",
      scope: "contacts:write",
      summary: "Create a contact",
      status: 201,
      query: undefined,
      body: ContactCreateBody,
      response: ContactCreatedJson,
      list: false,
      handle: ({ body, auth }) => toContactCreated(accounting.createContact(auth.organizationId, body), body),
    }),
    route({
      method: "get",
      path: "/api/v1/products",
      scope: "products:read",
      summary: "List products and services, newest first",
      status: 200,
      query: ProductListQuery,
      body: undefined,
      response: ProductJson,
      list: true,
      handle: ({ query, auth }) => accounting.listProducts(auth.organizationId, query).map(toProduct),
    }),
    route({
      method: "post",
      path: "/api/v1/products",
      scope: "products:write",
      // §4 leaves the status and body open; the common rule "201 for creation" decides (spec-gaps #6).
      summary: "Create a product or service",
      status: 201,
      query: undefined,
      body: ProductCreateBody,
      response: ProductJson,
      list: false,
      handle: ({ body, auth }) => toProduct(accounting.createProduct(auth.organizationId, body)),
    }),
    route({
      method: "get",
      path: "/api/v1/invoices",
      scope: "invoices:read",
      summary: "List invoices, newest date first",
      status: 200,
      query: InvoiceListQuery,
      body: undefined,
      response: InvoiceJson,
      list: true,
      handle: ({ query, auth }) => accounting.listInvoices(auth.organizationId, query).map(toInvoice),
    }),
    route({
      method: "get",
      path: "/api/v1/expenses",
      scope: "expenses:read",
      summary: "List expenses, newest date first",
      status: 200,
      query: ExpenseListQuery,
      body: undefined,
      response: ExpenseJson,
      list: true,
      handle: ({ query, auth }) => accounting.listExpenses(auth.organizationId, query).map(toExpense),
    }),
  ];
}

/**
 * §4 "Not available" and §1, §9: announced or planned, so they get their own message, but they do not
 * exist (spec-gaps #24).
 */
export const ANNOUNCED = [
  { method: "post", path: "/api/v1/invoices", what: "Invoice creation" },
  { method: "post", path: "/api/v1/expenses", what: "Expense creation" },
] as const;
