import { defaultSpec } from "../../spec/variant.js";
import type { AddedField, EndpointId, ErrorAnswer, ErrorRole, Spec } from "../../spec/schema.js";

/**
 * The run's spec as the checks read it: every number, code, enumeration, path and scope comes from the
 * loaded spec file (the default file, or a variant given with --spec), through `ctx.spec`. `kitSpec`
 * derives this view from a Spec in one place, under the names the checks used when these were module
 * constants, so that a check reads as before and nothing repeats what the file holds.
 *
 * What stays the kit's own is its reading of points the spec leaves open (ORDER_FIELD: spec-gaps #7,
 * #8) and the structure the file does not vary: which lists there are (its endpoint ids are fixed).
 */

export type ListName = "contacts" | "products" | "invoices" | "expenses";

/** The lists, in §4's order: fixed by the spec file's endpoint ids (listContacts…), not by its values. */
export const LIST_NAMES: readonly ListName[] = ["contacts", "products", "invoices", "expenses"];

const LIST_ENDPOINT: Readonly<Record<ListName, EndpointId>> = {
  contacts: "listContacts",
  products: "listProducts",
  invoices: "listInvoices",
  expenses: "listExpenses",
};

/**
 * The field newest-first order and `before` work on: the kit's reading of spec-gaps #7 and #8 (the
 * spec names no order field), not a value of the spec file.
 */
export const ORDER_FIELD: Readonly<Record<ListName, "createdAt" | "date">> = {
  contacts: "createdAt",
  products: "createdAt",
  invoices: "date",
  expenses: "date",
};

/**
 * spec-gaps #2, the kit's reading: a contact of type BOTH is a client and a supplier, so it may answer
 * either filter. A reading of these three values of §2, not of the file: under a spec whose contact
 * types do not hold all three, it does not apply (the checks that rest on it skip).
 */
const BOTH_READING = { both: "BOTH", parts: ["CLIENT", "SUPPLIER"] } as const;

/** A scope of §5: a value of the spec file's `enums.scopes`. */
export type Scope = string;

export interface ListSpec {
  name: ListName;
  path: string;
  scope: Scope;
  /** The field newest-first order and `before` work on (spec-gaps #7, #8: the kit's reading). */
  orderField: "createdAt" | "date";
  /** The enum filter §4 lists for this endpoint, if any. */
  filter?: { param: string; values: readonly string[] };
}

export interface Endpoint {
  method: "GET" | "POST";
  path: string;
  scope: Scope;
}

export interface KitSpec {
  /** The spec file it derives from (merged, parsed and frozen). */
  file: Spec;
  /** §2 Contact `type`. */
  CONTACT_TYPES: readonly string[];
  /** §2 Product `type`. */
  PRODUCT_TYPES: readonly string[];
  /** §2 Invoice `status`, §3 Invoice status. */
  INVOICE_STATUSES: readonly string[];
  /** §2 Expense `status`, §3 Expense status. */
  EXPENSE_STATUSES: readonly string[];
  /** §5 Scopes, in the spec's order. */
  SCOPES: readonly Scope[];
  LISTS: Readonly<Record<ListName, ListSpec>>;
  /** §4's table, row by row. */
  ENDPOINTS: readonly Endpoint[];
  /**
   * POSTs announced but absent: invoice creation (§1, §4 "Not available") and expense creation (§9).
   * A 501 on them is not a server fault (spec-gaps #24, #33).
   */
  ANNOUNCED_POSTS: readonly string[];
  /** §7 by situation: each one's status and code. */
  ERRORS: Readonly<Record<ErrorRole, ErrorAnswer>>;
  /** Each status of the error table has one code (the file refuses a code with two statuses). */
  ERROR_CODE_OF_STATUS: Readonly<Record<number, string>>;
  /** The closed set of codes (§7): every situation's code, once. */
  ERROR_CODES: readonly string[];
  /** §8 and the body tables of §4. */
  MAX: {
    contactName: number;
    contactPhone: number;
    contactAddress: number;
    contactTaxNumberTPS: number;
    contactTaxNumberTVQ: number;
    productSku: number;
    productName: number;
    productDescription: number;
    pageDefault: number;
    pageMin: number;
    pageMax: number;
  };
  /** §7, §8: the rate limit. */
  RATE: { requests: number; windowMs: number };
  /** §4 CORS: the methods a pre-flight allows. */
  CORS_METHODS: readonly string[];
  /** §4 CORS: the request headers a pre-flight allows, lower case (header names compare so). */
  CORS_HEADERS: readonly string[];
  /** spec-gaps #2's reading (BOTH_READING), when the spec's contact types hold its three values. */
  BOTH: { both: string; parts: readonly [string, string] } | undefined;
  /**
   * Values a valid body sends where any will do: the first of each enumeration (the product type §4
   * says is the default), and another (the second, or the first again when there is one).
   */
  SAMPLE: { contactType: string; otherContactType: string; productType: string; otherProductType: string };
  /** Fields a variant adds to contacts and products (none in the spec as written). */
  FIELDS: Readonly<{
    contact: Readonly<Record<string, AddedField>>;
    product: Readonly<Record<string, AddedField>>;
  }>;
}

const views = new WeakMap<Spec, KitSpec>();

/** An enumeration's first value: the file refuses an empty one. */
function first(values: readonly string[]): string {
  const [value] = values;
  if (value === undefined) throw new Error("an enumeration of the spec file is empty");
  return value;
}

/** The kit's view of a spec (default: the spec as written), derived once per Spec object. */
export function kitSpec(spec: Spec = defaultSpec()): KitSpec {
  const known = views.get(spec);
  if (known !== undefined) return known;
  const { enums, endpoints, limits, errors } = spec;
  const list = (name: ListName): ListSpec => {
    const e = endpoints[LIST_ENDPOINT[name]];
    return {
      name,
      path: e.path,
      scope: e.scope,
      orderField: ORDER_FIELD[name],
      ...("filter" in e && e.filter !== undefined
        ? { filter: { param: e.filter.param, values: enums[e.filter.values] } }
        : {}),
    };
  };
  const codeOfStatus: Record<number, string> = {};
  for (const { status, code } of Object.values(errors)) codeOfStatus[status] ??= code;
  const view: KitSpec = {
    file: spec,
    CONTACT_TYPES: enums.contactTypes,
    PRODUCT_TYPES: enums.productTypes,
    INVOICE_STATUSES: enums.invoiceStatuses,
    EXPENSE_STATUSES: enums.expenseStatuses,
    SCOPES: enums.scopes,
    LISTS: {
      contacts: list("contacts"),
      products: list("products"),
      invoices: list("invoices"),
      expenses: list("expenses"),
    },
    ENDPOINTS: Object.values(endpoints).map(({ method, path, scope }) => ({ method, path, scope })),
    ANNOUNCED_POSTS: Object.values(spec.announced).map((e) => e.path),
    ERRORS: errors,
    ERROR_CODE_OF_STATUS: codeOfStatus,
    ERROR_CODES: [...new Set(Object.values(errors).map((e) => e.code))],
    MAX: {
      contactName: limits.contact.name,
      contactPhone: limits.contact.phone,
      contactAddress: limits.contact.address,
      contactTaxNumberTPS: limits.contact.taxNumberTPS,
      contactTaxNumberTVQ: limits.contact.taxNumberTVQ,
      productSku: limits.product.sku,
      productName: limits.product.name,
      productDescription: limits.product.description,
      pageDefault: limits.page.default,
      pageMin: limits.page.min,
      pageMax: limits.page.max,
    },
    RATE: { requests: limits.rate.requests, windowMs: limits.rate.windowSeconds * 1000 },
    CORS_METHODS: spec.cors.methods,
    CORS_HEADERS: spec.cors.headers.map((h) => h.toLowerCase()),
    FIELDS: spec.fields,
    BOTH: [BOTH_READING.both, ...BOTH_READING.parts].every((t) => enums.contactTypes.includes(t))
      ? BOTH_READING
      : undefined,
    SAMPLE: {
      contactType: first(enums.contactTypes),
      otherContactType: enums.contactTypes[1] ?? first(enums.contactTypes),
      productType: first(enums.productTypes),
      otherProductType: enums.productTypes[1] ?? first(enums.productTypes),
    },
  };
  views.set(spec, view);
  return view;
}

/**
 * A valid value of each field a spec adds to a resource (`required` only, or every one): what the kit's
 * valid bodies carry, so that a spec with a required added field does not see every creation refused.
 * A string its first enumeration value or "x", a number 1, a boolean true, a decimal 12.5 (served 12.5000).
 */
export function addedValues(
  spec: KitSpec,
  resource: "contact" | "product",
  which: "required" | "all",
): Record<string, string | number | boolean> {
  return Object.fromEntries(
    Object.entries(spec.FIELDS[resource])
      .filter(([, f]) => which === "all" || f.required)
      .map(([name, f]): [string, string | number | boolean] => [
        name,
        f.type === "string"
          ? (f.enum?.[0] ?? "x")
          : f.type === "number"
            ? 1
            : f.type === "boolean"
              ? true
              : 12.5,
      ]),
  );
}
