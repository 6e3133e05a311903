import { z } from "zod";
import type { AnnouncedId, EndpointId, Spec } from "../../spec/index.js";
import type { Scope } from "../model/records.js";
import type { Wire } from "../serialization/resources.js";
import { createBodies, listQueries } from "../validation/schemas.js";

/**
 * §4's endpoint table as data: what each endpoint is (method, path, scope, success status, the
 * schemas of its query, body and `data`), with no code. Its paths, scopes, filters and schemas are a
 * spec's (`apiTable(spec)`, built once per spec by `compileSpec`); what is here is what the spec file
 * does not hold: summaries, success statuses, which rows are lists. The API door binds each row to its
 * handler (src/doors/api/handlers.ts), the OpenAPI document is generated from it (src/openapi/), and the
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
  /** A list's enumeration filter: its query parameter (the spec's `filter.param`). */
  readonly filterParam?: string | undefined;
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

/** Keyed by operation id (the OpenAPI document's `operationId`, the spec file's endpoint id). */
type Bodies = ReturnType<typeof createBodies>;
export type ApiTable = Readonly<
  Record<EndpointId, Endpoint> &
    Record<AnnouncedId, AnnouncedEndpoint> & {
      createContact: Endpoint & { body: Bodies["createContact"] };
      createProduct: Endpoint & { body: Bodies["createProduct"] };
    }
>;
/** The operations that exist (each bound to a handler by the API door). */
export type AvailableId = EndpointId;

/** What the code says of each row, beside what the spec file says. */
const ROWS: Record<EndpointId, { summary: string; status: 200 | 201; list: boolean }> = {
  listContacts: { summary: "List contacts, newest first", status: 200, list: true },
  createContact: { summary: "Create a contact", status: 201, list: false },
  listProducts: { summary: "List products and services, newest first", status: 200, list: true },
  // §4 leaves the status and body open; the common rule "201 for creation" decides (spec-gaps #6).
  createProduct: { summary: "Create a product or service", status: 201, list: false },
  listInvoices: { summary: "List invoices, newest date first", status: 200, list: true },
  listExpenses: { summary: "List expenses, newest date first", status: 200, list: true },
};
const ANNOUNCED: Record<AnnouncedId, string> = {
  createInvoice: "Invoice creation",
  createExpense: "Expense creation",
};

/** A spec's table: its paths, scopes and filters, its request schemas, and `wire`'s response schemas. */
export function apiTable(spec: Spec, wire: Wire): ApiTable {
  const bodies = createBodies(spec);
  const queries = listQueries(spec);
  const row = <B extends z.ZodType>(
    id: EndpointId,
    parts: { query: z.ZodObject; body: B; response: z.ZodType },
  ): Endpoint & { body: B } => {
    const e = spec.endpoints[id];
    const filter = "filter" in e ? e.filter : undefined;
    return {
      method: e.method === "GET" ? "get" : "post",
      path: e.path,
      scope: e.scope,
      ...ROWS[id],
      ...parts,
      ...(filter === undefined ? {} : { filterParam: filter.param }),
    };
  };
  const announced = (id: AnnouncedId): AnnouncedEndpoint => ({
    method: "post",
    path: spec.announced[id].path,
    what: ANNOUNCED[id],
    announced: true,
  });
  const s = wire.schemas;
  return {
    listContacts: row("listContacts", { query: queries.listContacts, body: NO_BODY, response: s.contact }),
    createContact: row("createContact", {
      query: NO_QUERY,
      body: bodies.createContact,
      response: s.contactCreated,
    }),
    listProducts: row("listProducts", { query: queries.listProducts, body: NO_BODY, response: s.product }),
    createProduct: row("createProduct", { query: NO_QUERY, body: bodies.createProduct, response: s.product }),
    listInvoices: row("listInvoices", { query: queries.listInvoices, body: NO_BODY, response: s.invoice }),
    listExpenses: row("listExpenses", { query: queries.listExpenses, body: NO_BODY, response: s.expense }),
    createInvoice: announced("createInvoice"),
    createExpense: announced("createExpense"),
  };
}

export interface TableRow {
  operationId: string;
  row: Endpoint | AnnouncedEndpoint;
}

/** A table's rows in order, for readers that take every row alike (the router, the document). */
export const rowsOf = (table: ApiTable): readonly TableRow[] =>
  Object.entries(table).map(([operationId, row]) => ({ operationId, row }));
