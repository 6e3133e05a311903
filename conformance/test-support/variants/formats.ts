import { createHash } from "node:crypto";
import { Decimal } from "decimal.js";
import {
  archiveContacts,
  CONTACTS,
  EXPENSES,
  isObject,
  type Json,
  jsonOf,
  mapJsonBody,
  mapObjects,
  mapResources,
  mapStrings,
  plain,
  setJson,
  TIMESTAMP,
  type Variant,
  wrap,
} from "./harness.js";

/** Variants of the formats of fields: money, timestamps, dates, statuses, ids (§2). */

const MONEY_FIELDS = ["unitPrice", "subtotal", "amount", "tps", "tvq", "total"];

/** A stable UUID (v5 layout) for an id: the same id always maps to the same UUID. */
function uuidOf(id: string): string {
  const h = createHash("sha1").update(id).digest("hex");
  const variant = ((parseInt(h.slice(16, 18), 16) & 0x3f) | 0x80).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(18, 20)}-${h.slice(20, 32)}`;
}

// ---- violations: the kit must fail each one in the spec profile, naming the right check ---------------

// §2: formats.
export const unitPriceNumber: Variant = {
  id: "unit-price-number",
  kind: "violation",
  area: "formats",
  description: "unitPrice is served as a JSON number instead of a 4-decimal string",
  expectFailing: ["resources.products", "products.created-listed"],
  build: (env) =>
    plain(
      env,
      mapResources((item) =>
        typeof item.unitPrice === "string" ? { ...item, unitPrice: Number(item.unitPrice) } : item,
      ),
    ),
};

export const moneyTwoDecimals: Variant = {
  id: "money-two-decimals",
  kind: "violation",
  area: "formats",
  description: "money is served with 2 decimals instead of 4",
  expectFailing: ["resources.invoices", "resources.expenses", "resources.products"],
  build: (env) =>
    plain(
      env,
      mapResources((item) => {
        const out = { ...item };
        for (const f of MONEY_FIELDS) {
          const v = out[f];
          if (typeof v === "string") out[f] = new Decimal(v).toFixed(2);
        }
        return out;
      }),
    ),
};

export const timestampsWithoutMs: Variant = {
  id: "timestamps-without-ms",
  kind: "violation",
  area: "formats",
  description: "timestamps are served without milliseconds (2025-01-10T18:37:11Z)",
  expectFailing: ["resources.contacts", "resources.invoices", "contacts.create-response"],
  build: (env) =>
    plain(
      env,
      mapJsonBody((body) => mapStrings(body, (s) => (TIMESTAMP.test(s) ? s.replace(/\.\d{3}Z$/, "Z") : s))),
    ),
};

export const timestampsWithOffset: Variant = {
  id: "timestamps-with-offset",
  kind: "violation",
  area: "formats",
  description: "timestamps end in +00:00 instead of Z",
  expectFailing: ["resources.contacts", "resources.products", "resources.invoices", "resources.expenses"],
  build: (env) =>
    plain(
      env,
      mapJsonBody((body) => mapStrings(body, (s) => (TIMESTAMP.test(s) ? s.replace(/Z$/, "+00:00") : s))),
    ),
};

export const invoiceDateNoon: Variant = {
  id: "invoice-date-noon",
  kind: "violation",
  area: "formats",
  description: "invoice dates are at noon instead of midnight",
  expectFailing: ["resources.invoices"],
  build: (env) =>
    plain(
      env,
      mapResources(
        (item) =>
          typeof item.date === "string" && item.invoiceNumber !== undefined
            ? { ...item, date: item.date.replace("T00:00:00.000Z", "T12:00:00.000Z") }
            : item,
        "lists",
      ),
    ),
};

export const invoiceStatusUnknown: Variant = {
  id: "invoice-status-unknown",
  kind: "violation",
  area: "formats",
  description: "voided invoices are served with the status CANCELLED, outside §2's enum",
  expectFailing: ["resources.invoices", "lists.status-filter"],
  build: (env) =>
    plain(
      env,
      mapResources(
        (item) =>
          item.invoiceNumber !== undefined && item.status === "VOIDED"
            ? { ...item, status: "CANCELLED" }
            : item,
        "lists",
      ),
    ),
};

export const expenseWithoutAccount: Variant = {
  id: "expense-without-account",
  kind: "violation",
  area: "formats",
  description: "expenses are served without their account",
  expectFailing: ["resources.expenses"],
  build: (env) =>
    plain(
      env,
      mapResources((item, req) => {
        if (req.path !== EXPENSES) return item;
        const { account: _account, ...rest } = item;
        return rest;
      }, "lists"),
    ),
};

// SHOULD rules: violations only under --strict.
export const totalsOffByACent: Variant = {
  id: "totals-off-by-a-cent",
  kind: "violation",
  area: "formats",
  strict: true,
  description: "invoice totals are one cent more than subtotal + tps + tvq (SHOULD: run with --strict)",
  expectFailing: ["resources.totals"],
  build: (env) =>
    plain(
      env,
      mapResources(
        (item) =>
          item.invoiceNumber !== undefined && typeof item.total === "string"
            ? { ...item, total: new Decimal(item.total).plus("0.01").toFixed(4) }
            : item,
        "lists",
      ),
    ),
};

// What was not sent, and what must not be there (issue 16, class 2).
export const timestampsLocalTime: Variant = {
  id: "timestamps-local-time",
  kind: "violation",
  area: "formats",
  description:
    "createdAt and updatedAt are the server's local time (UTC-5) written with a Z: well-formed, five hours off",
  expectFailing: ["run.created-timestamps"],
  build: (env) =>
    plain(
      env,
      mapResources((item) => {
        const out = { ...item };
        for (const f of ["createdAt", "updatedAt"]) {
          const v = out[f];
          if (typeof v === "string" && TIMESTAMP.test(v))
            out[f] = new Date(Date.parse(v) - 5 * 3_600_000).toISOString();
        }
        return out;
      }),
    ),
};

export const contactsCarryStatus: Variant = {
  id: "contacts-carry-status",
  kind: "violation",
  area: "formats",
  description: 'contacts carry a status ("ACTIVE"), which §3 says they have not',
  expectFailing: ["resources.contacts", "contacts.create-response"],
  build: (env) =>
    plain(
      env,
      mapResources((item, req) => (req.path === CONTACTS ? { ...item, status: "ACTIVE" } : item)),
    ),
};

// ---- benign variants: other legal answers to open points; the kit must pass each one -------------------

export const uuidIds: Variant = {
  id: "uuid-ids",
  kind: "benign",
  area: "formats",
  description: "identifiers are UUIDs (mapped consistently both ways)",
  build: async (env) => {
    const reference = await env.reference();
    const back = new Map<string, string>();
    const toUuid = (id: string): string => {
      const uuid = uuidOf(id);
      back.set(uuid, id);
      return uuid;
    };
    return wrap(reference, {
      request(req) {
        req.path = req.path
          .split("/")
          .map((seg) => back.get(decodeURIComponent(seg)) ?? seg)
          .join("/");
        return undefined;
      },
      response(res) {
        const body = jsonOf(res);
        if (!isObject(body) || !("data" in body)) return;
        const data = mapObjects(body.data, (o) =>
          typeof o.id === "string" ? { ...o, id: toUuid(o.id) } : o,
        );
        setJson(res, { data });
      },
    });
  },
};

export const optionalFieldsAbsent: Variant = {
  id: "optional-fields-absent",
  kind: "benign",
  area: "formats",
  description: "unset optional fields are absent instead of null",
  build: (env) =>
    plain(
      env,
      mapResources(
        (item) =>
          mapObjects(item, (o) =>
            Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null)),
          ) as Json,
      ),
    ),
};

export const sequentialIdsPerOrg: Variant = {
  id: "sequential-ids-per-org",
  kind: "benign",
  area: "formats",
  description:
    'ids are per-organization sequence numbers ("1", "2", …), org_boreal holding 150 archived contacts',
  build: async (env) => {
    const reference = await env.reference();
    archiveContacts(reference, "org_boreal", 150);
    // Numbers are handed out per organization as ids are first served, and read back in paths.
    const numbers = new Map<string, Map<string, string>>();
    const ids = new Map<string, Map<string, string>>();
    const numberOf = (org: string, id: string): string => {
      const byId = numbers.get(org) ?? new Map<string, string>();
      const byNumber = ids.get(org) ?? new Map<string, string>();
      numbers.set(org, byId);
      ids.set(org, byNumber);
      let n = byId.get(id);
      if (n === undefined) {
        n = String(byId.size + 1);
        byId.set(id, n);
        byNumber.set(n, id);
      }
      return n;
    };
    return wrap(reference, {
      request(req) {
        const org = req.token?.organization;
        const byNumber = org === undefined ? undefined : ids.get(org);
        if (byNumber !== undefined) {
          req.path = req.path
            .split("/")
            .map((seg) => byNumber.get(seg) ?? seg)
            .join("/");
        }
        return undefined;
      },
      response(res, req) {
        const org = req.token?.organization;
        const body = jsonOf(res);
        if (org === undefined || !isObject(body) || !("data" in body)) return;
        const data = mapObjects(body.data, (o) =>
          typeof o.id === "string" ? { ...o, id: numberOf(org, o.id) } : o,
        );
        setJson(res, { data });
      },
    });
  },
};
