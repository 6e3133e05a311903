import type { Reference } from "../../../src/entry/reference.js";
import { toContact } from "../../../src/serialization/resources.js";
import type { PageQuery } from "../../../src/store/store.js";
import {
  CONTACTS,
  errorReply,
  is2xx,
  isList,
  isObject,
  jsonOf,
  type Layer,
  parseJson,
  PRODUCTS,
  tokenByLabel,
  useToken,
  variantsIn,
} from "./harness.js";

const { violation, benign } = variantsIn("isolation");

/** Variants of the isolation between organizations (§1). */

// ---- violations: the kit must fail each one in the spec profile, naming the right check ---------------

// §1: isolation between organizations.

/** Each contact created by an organization is also added to the organizations `to(creator)` names. */
const copyCreatedContacts =
  (to: (creator: string, all: readonly string[]) => readonly string[]) =>
  (reference: Reference): Layer => ({
    response(res, req) {
      const id = (jsonOf(res) as { data?: { id?: unknown } } | undefined)?.data?.id;
      const org = req.token?.organization;
      if (req.method !== "POST" || req.path !== CONTACTS || res.status !== 201 || typeof id !== "string")
        return;
      const created = org === undefined ? undefined : reference.store.contact(org, id);
      if (org === undefined || created === undefined) return;
      const all = reference.store.organizations().map((o) => o.id);
      for (const other of to(org, all))
        reference.store.add({ type: "contact", data: { ...created, organizationId: other } });
    },
  });

export const contactsMirroredToOtherOrg = violation(
  "contacts-mirrored-to-other-org",
  "contacts created by one organization also appear in another's list",
  ["isolation.contacts"],
  copyCreatedContacts((creator, all) => all.filter((o) => o !== creator)),
);

export const productsSharedAcrossOrgs = violation(
  "products-shared-across-orgs",
  "every organization reads the first organization's products",
  ["isolation.products"],
  (reference) => {
    const lumiere = tokenByLabel(reference, "lumiere-full");
    return {
      request(req) {
        if (isList(req) && req.path === PRODUCTS && req.token?.organization === "org_boreal") {
          useToken(req, lumiere);
        }
        return undefined;
      },
    };
  },
);

export const foreignIdReadable = violation(
  "foreign-id-readable",
  "GET /api/v1/contacts/<id> answers any organization's contact",
  ["isolation.foreign-id"],
  (reference) => ({
    request(req) {
      const id = /^\/api\/v1\/contacts\/([^/]+)$/.exec(req.path)?.[1];
      if (req.method !== "GET" || id === undefined || req.token === undefined) return undefined;
      for (const org of reference.store.organizations()) {
        const contact = reference.store.contact(org.id, decodeURIComponent(id));
        if (contact !== undefined) return { status: 200, json: { data: toContact(contact) } };
      }
      return undefined;
    },
  }),
);

// Where the kit is likeliest to look away: one direction of isolation, a reversed filter, byte counts.
export const contactsLeakIntoFirstOrg = violation(
  "contacts-leak-into-first-org",
  "contacts created by org_boreal also appear in org_lumiere's list",
  ["isolation.contacts"],
  copyCreatedContacts((creator) => (creator === "org_boreal" ? ["org_lumiere"] : [])),
);

// §1 on lists the kit creates nothing in: read-only collections, filtered pages.

/**
 * A store listing that forgets the organization: every organization's records, newest first by `key`
 * (ties by id, descending), cut to the page, when `leaks(query)` says so.
 */
function everyOrganization<T extends { id: string }, Q extends PageQuery>(
  reference: Reference,
  own: (organizationId: string, query: Q) => T[],
  key: (item: T) => number,
  leaks: (query: Q) => boolean,
): (organizationId: string, query: Q) => T[] {
  return (organizationId, query) => {
    if (!leaks(query)) return own(organizationId, query);
    const all = reference.store.organizations().flatMap((o) => own(o.id, query));
    all.sort((a, b) => key(b) - key(a) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
    return all.slice(0, query.limit);
  };
}

/** The store's listing of invoices (or expenses) made to serve every organization's, always. */
const readOnlyListLeaks = (list: "invoices" | "expenses") => (reference: Reference) => {
  const store = reference.store;
  if (list === "invoices")
    store.listInvoices = everyOrganization(
      reference,
      store.listInvoices.bind(store),
      (i) => i.date.getTime(),
      () => true,
    );
  else
    store.listExpenses = everyOrganization(
      reference,
      store.listExpenses.bind(store),
      (e) => e.date.getTime(),
      () => true,
    );
  return [];
};

export const filteredListsForgetOrganization = violation(
  "filtered-lists-forget-organization",
  "a list filtered by type (contacts) or status (invoices, expenses) serves every organization's matching records",
  ["isolation.lists"],
  (reference) => {
    const store = reference.store;
    const contacts = store.listContacts.bind(store);
    const invoices = store.listInvoices.bind(store);
    const expenses = store.listExpenses.bind(store);
    const filteredOnly = (q: { type?: string; status?: string }): boolean =>
      q.type !== undefined || q.status !== undefined;
    store.listContacts = everyOrganization(reference, contacts, (c) => c.createdAt.getTime(), filteredOnly);
    store.listInvoices = everyOrganization(reference, invoices, (i) => i.date.getTime(), filteredOnly);
    store.listExpenses = everyOrganization(reference, expenses, (e) => e.date.getTime(), filteredOnly);
    return [];
  },
);

export const invoicesOfEveryOrganization = violation(
  "invoices-of-every-organization",
  "the invoices list serves every organization's invoices (a read-only collection)",
  ["isolation.lists"],
  readOnlyListLeaks("invoices"),
);

export const expensesOfEveryOrganization = violation(
  "expenses-of-every-organization",
  "the expenses list serves every organization's expenses (a read-only collection)",
  ["isolation.lists"],
  readOnlyListLeaks("expenses"),
);

// No answer carries another organization's data, errors included (issue 16, class 2).
export const duplicateSkuNamesOtherOrg = violation(
  "duplicate-sku-names-other-org",
  "skus are unique across organizations, and the refusal names the product that holds the sku in the other organization",
  ["run.no-foreign-data"],
  (reference) => ({
    readBody: true,
    request(req) {
      const org = req.token?.organization;
      const body = req.body === undefined ? undefined : parseJson(req.body);
      const sku = isObject(body) ? body.sku : undefined;
      if (req.method !== "POST" || req.path !== PRODUCTS || org === undefined || typeof sku !== "string")
        return undefined;
      for (const other of reference.store.organizations()) {
        const taken = other.id === org ? undefined : reference.store.productBySku(other.id, sku);
        if (taken !== undefined)
          return errorReply(400, "invalid_request", `sku ${sku} is already used by "${taken.name}"`);
      }
      return undefined;
    },
  }),
);

// Stateful bugs a fixed check catches in every run (issue 16, class 6).
export const listCacheWithoutOrg = violation(
  "list-cache-without-org",
  "list answers are cached by URL, without the organization, and the cache is emptied by every creation: the same list read right after another organization's gets that organization's records",
  ["isolation.cache"],
  () => {
    const cache = new Map<string, Buffer>();
    return {
      response(res, req) {
        if (req.method === "POST" && is2xx(res)) cache.clear();
        if (!isList(req) || res.status !== 200) return;
        const key = `${req.path}?${req.query.toString()}`;
        const hit = cache.get(key);
        if (hit === undefined) cache.set(key, res.body);
        else res.body = hit;
      },
    };
  },
);

// ---- benign variants: other legal answers to open points; the kit must pass each one -------------------

export const skuUniqueAcrossOrgs = benign(
  "sku-unique-across-orgs",
  "a sku is unique across all organizations (another organization's sku gets 400), spec-gaps #20",
  (reference) => ({
    readBody: true,
    request(req) {
      const org = req.token?.organization;
      if (req.method !== "POST" || req.path !== PRODUCTS || req.body === undefined || org === undefined)
        return undefined;
      const body = parseJson(req.body);
      const sku = isObject(body) ? body.sku : undefined;
      if (typeof sku !== "string" || !req.token?.scopes.includes("products:write")) return undefined;
      const taken = reference.store
        .organizations()
        .some((o) => o.id !== org && reference.store.productBySku(o.id, sku) !== undefined);
      return taken ? errorReply(400, "invalid_request", "sku is already used") : undefined;
    },
  }),
);
