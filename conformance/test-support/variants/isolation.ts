import { toContact } from "../../../src/serialization/resources.js";
import {
  CONTACTS,
  errorReply,
  isList,
  isObject,
  jsonOf,
  parseJson,
  PRODUCTS,
  tokenByLabel,
  useToken,
  type Variant,
  wrap,
} from "./harness.js";

/** Variants of the isolation between organizations (§1). */

// ---- violations: the kit must fail each one in the spec profile, naming the right check ---------------

// §1: isolation between organizations.
export const contactsMirroredToOtherOrg: Variant = {
  id: "contacts-mirrored-to-other-org",
  kind: "violation",
  area: "isolation",
  description: "contacts created by one organization also appear in another's list",
  expectFailing: ["isolation.contacts"],
  build: async (env) => {
    const reference = await env.reference();
    return wrap(reference, {
      response(res, req) {
        const id = (jsonOf(res) as { data?: { id?: unknown } } | undefined)?.data?.id;
        if (req.method !== "POST" || req.path !== CONTACTS || res.status !== 201 || typeof id !== "string")
          return;
        const org = req.token?.organization ?? "";
        const created = reference.store.contact(org, id);
        for (const other of reference.store.organizations()) {
          if (created !== undefined && other.id !== org) {
            reference.store.addContact({ ...created, organizationId: other.id });
          }
        }
      },
    });
  },
};

export const productsSharedAcrossOrgs: Variant = {
  id: "products-shared-across-orgs",
  kind: "violation",
  area: "isolation",
  description: "every organization reads the first organization's products",
  expectFailing: ["isolation.products"],
  build: async (env) => {
    const reference = await env.reference();
    const lumiere = tokenByLabel(reference, "lumiere-full");
    return wrap(reference, {
      request(req) {
        if (isList(req) && req.path === PRODUCTS && req.token?.organization === "org_boreal") {
          useToken(req, lumiere);
        }
        return undefined;
      },
    });
  },
};

export const foreignIdReadable: Variant = {
  id: "foreign-id-readable",
  kind: "violation",
  area: "isolation",
  description: "GET /api/v1/contacts/<id> answers any organization's contact",
  expectFailing: ["isolation.foreign-id"],
  build: async (env) => {
    const reference = await env.reference();
    return wrap(reference, {
      request(req) {
        const id = /^\/api\/v1\/contacts\/([^/]+)$/.exec(req.path)?.[1];
        if (req.method !== "GET" || id === undefined || req.token === undefined) return undefined;
        for (const org of reference.store.organizations()) {
          const contact = reference.store.contact(org.id, decodeURIComponent(id));
          if (contact !== undefined) return { status: 200, json: { data: toContact(contact) } };
        }
        return undefined;
      },
    });
  },
};

// Where the kit is likeliest to look away: one direction of isolation, a reversed filter, byte counts.
export const contactsLeakIntoFirstOrg: Variant = {
  id: "contacts-leak-into-first-org",
  kind: "violation",
  area: "isolation",
  description: "contacts created by org_boreal also appear in org_lumiere's list",
  expectFailing: ["isolation.contacts"],
  build: async (env) => {
    const reference = await env.reference();
    return wrap(reference, {
      response(res, req) {
        const id = (jsonOf(res) as { data?: { id?: unknown } } | undefined)?.data?.id;
        if (req.method !== "POST" || req.path !== CONTACTS || res.status !== 201 || typeof id !== "string")
          return;
        const created = reference.store.contact("org_boreal", id);
        if (req.token?.organization === "org_boreal" && created !== undefined) {
          reference.store.addContact({ ...created, organizationId: "org_lumiere" });
        }
      },
    });
  },
};

// ---- benign variants: other legal answers to open points; the kit must pass each one -------------------

export const skuUniqueAcrossOrgs: Variant = {
  id: "sku-unique-across-orgs",
  kind: "benign",
  area: "isolation",
  description:
    "a sku is unique across all organizations (another organization's sku gets 400), spec-gaps #20",
  build: async (env) => {
    const reference = await env.reference();
    return wrap(reference, {
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
    });
  },
};
