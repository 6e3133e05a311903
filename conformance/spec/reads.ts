import type { SpecDifference } from "../../spec/variant.js";
import type { Spec } from "../../spec/schema.js";
import type { ClauseId } from "./clauses.js";

/**
 * What of the spec file each clause and check rests on, so that `conformance spec-diff A.json B.json`
 * can say which expectations two spec files change: the differences `diffSpecs` finds, mapped to the
 * clauses and checks that read those keys. A check reads what the clauses it cites read, and what its
 * own `reads` adds (a number the clause does not state, an error answer it expects).
 */

/** A key path of the spec file, `*` standing for any one key: `limits.page.max`, `fields.product.*`. */
export type SpecKey = `${Exclude<keyof Spec, "$schema" | "title" | "source">}${"" | `.${string}`}`;

/**
 * What every check reads without saying so: the endpoints' methods and paths (every check addresses
 * them) and the error answers of a missing or refused credential (every check's requests can meet them).
 */
export const EVERY_CHECK_READS: readonly SpecKey[] = ["endpoints.*.method", "endpoints.*.path"];

/** The clauses whose words the spec file holds a value of: §2's and §4's tables, §7, §8. */
export const CLAUSE_READS: Readonly<Partial<Record<ClauseId, readonly SpecKey[]>>> = {
  "§1.4": ["announced", "enums.scopes"],
  "§1.7": ["errors"],
  "§2 Contact.2": ["enums.contactTypes"],
  "§2 Contact.3": ["limits.contact.name"],
  "§2 Contact.5": ["limits.contact.phone"],
  "§2 Contact.6": ["limits.contact.address"],
  "§2 Contact.7": ["limits.contact.taxNumberTPS"],
  "§2 Contact.8": ["limits.contact.taxNumberTVQ"],
  "§2 Product.2": ["limits.product.sku"],
  "§2 Product.3": ["limits.product.name"],
  "§2 Product.4": ["limits.product.description"],
  "§2 Product.5": ["enums.productTypes"],
  "§2 Invoice.5": ["enums.invoiceStatuses"],
  "§2 Expense.3": ["enums.expenseStatuses"],
  "§3 Invoice status.1": ["enums.invoiceStatuses"],
  "§3 Expense status.1": ["enums.expenseStatuses"],
  "§3 Token status.1": ["errors.unauthorized"],
  "§3 Token status.2": ["errors.unauthorized"],
  "§4.1": ["endpoints.*.scope"],
  "§4.4": ["cors"],
  "§4.5": ["endpoints.listContacts", "enums.contactTypes", "limits.page", "fields.contact.*"],
  "§4.6": ["endpoints.createContact", "fields.contact.*"],
  "§4.7": ["endpoints.listProducts", "limits.page", "fields.product.*"],
  "§4.8": ["endpoints.createProduct", "fields.product.*"],
  "§4.9": ["endpoints.listInvoices", "enums.invoiceStatuses", "limits.page"],
  "§4.10": ["endpoints.listExpenses", "enums.expenseStatuses", "limits.page"],
  "§4 Contacts body.1": ["enums.contactTypes", "errors.invalidRequest"],
  "§4 Contacts body.2": ["limits.contact.name", "errors.invalidRequest"],
  "§4 Contacts body.3": ["errors.invalidRequest"],
  "§4 Contacts body.4": ["limits.contact.phone", "errors.invalidRequest"],
  "§4 Contacts body.5": ["limits.contact.address", "errors.invalidRequest"],
  "§4 Contacts body.6": ["limits.contact.taxNumberTPS", "errors.invalidRequest"],
  "§4 Contacts body.7": ["limits.contact.taxNumberTVQ", "errors.invalidRequest"],
  "§4 Products body.1": ["limits.product.sku", "errors.invalidRequest"],
  "§4 Products body.2": ["limits.product.name", "errors.invalidRequest"],
  "§4 Products body.3": ["limits.product.description", "errors.invalidRequest"],
  "§4 Products body.4": ["enums.productTypes", "errors.invalidRequest"],
  "§4 Products body.5": ["errors.invalidRequest"],
  "§4 Products body.6": ["errors.invalidRequest"],
  "§4 Products body.7": ["errors.duplicateSku"],
  "§4 Pagination.1": ["limits.page.default", "limits.page.max"],
  "§4 Pagination.2": ["limits.page.max"],
  "§4 Pagination.4": ["limits.page.min", "limits.page.max", "errors.invalidRequest"],
  "§4 Not available.1": ["announced.createInvoice"],
  "§5.5": ["errors.unauthorized"],
  "§5.6": ["errors.unauthorized", "errors.forbidden"],
  "§5 Scopes.1": ["enums.scopes", "endpoints.listContacts.scope"],
  "§5 Scopes.2": ["enums.scopes", "endpoints.createContact.scope"],
  "§5 Scopes.3": ["enums.scopes", "endpoints.listProducts.scope"],
  "§5 Scopes.4": ["enums.scopes", "endpoints.createProduct.scope"],
  "§5 Scopes.5": ["enums.scopes", "endpoints.listInvoices.scope"],
  "§5 Scopes.6": ["enums.scopes", "announced.createInvoice.scope"],
  "§5 Scopes.7": ["enums.scopes", "endpoints.listExpenses.scope"],
  "§5 Scopes.8": ["enums.scopes", "announced.createExpense.scope"],
  "§7.1": ["errors"],
  "§7.4": ["errors.invalidRequest", "errors.duplicateSku"],
  "§7.5": ["errors.unauthorized"],
  "§7.6": ["errors.forbidden"],
  "§7.7": ["errors.notFound"],
  "§7.8": ["errors.rateLimited", "limits.rate"],
  "§7.9": ["errors.internal"],
  "§8.1": ["limits.rate", "errors.rateLimited"],
  "§8.2": ["limits.page"],
  "§8.3": ["limits.contact.name"],
  "§8.4": ["limits.contact.phone", "limits.contact.taxNumberTPS", "limits.contact.taxNumberTVQ"],
  "§8.5": ["limits.contact.address"],
  "§8.6": ["limits.product.sku"],
  "§8.7": ["limits.product.name"],
  "§8.8": ["limits.product.description"],
  "§8.10": ["limits.rate"],
  "§9.1": ["endpoints.*.path"],
};

const segments = (path: string): string[] => path.replace(/\[(\d+)\]/g, ".$1").split(".");

/**
 * Whether a difference at `path` touches what `key` names: one is a prefix of the other, segment by
 * segment, `*` matching any one segment (`errors.duplicateSku` is touched by `errors.duplicateSku.code`;
 * `fields.product.*` by `fields.product.currency`).
 */
export function touches(key: SpecKey, path: string): boolean {
  const k = segments(key);
  const p = segments(path);
  const n = Math.min(k.length, p.length);
  for (let i = 0; i < n; i += 1) if (k[i] !== "*" && k[i] !== p[i]) return false;
  return true;
}

/** The differences among `differences` that touch any of `keys`. */
export const touching = (
  keys: readonly SpecKey[],
  differences: readonly SpecDifference[],
): SpecDifference[] => differences.filter((d) => keys.some((k) => touches(k, d.path)));

/** The values the spec holds at `key` (each `*` expanded), by their concrete path. */
export function valuesAt(spec: Spec, key: SpecKey): Array<{ path: string; value: unknown }> {
  const walk = (value: unknown, rest: string[], at: string[]): Array<{ path: string; value: unknown }> => {
    if (rest.length === 0) return [{ path: at.join("."), value }];
    if (typeof value !== "object" || value === null || Array.isArray(value)) return [];
    const [head, ...tail] = rest as [string, ...string[]];
    const entries = Object.entries(value);
    return (head === "*" ? entries : entries.filter(([k]) => k === head)).flatMap(([k, v]) =>
      walk(v, tail, [...at, k]),
    );
  };
  return walk(spec, segments(key), []);
}
