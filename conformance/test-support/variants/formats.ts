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
  setJson,
  TIMESTAMP,
  variantsIn,
} from "./harness.js";

const { violation, benign } = variantsIn("formats");

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
export const unitPriceNumber = violation(
  "unit-price-number",
  "unitPrice is served as a JSON number instead of a 4-decimal string",
  ["resources.products", "products.created-listed"],
  mapResources((item) =>
    typeof item.unitPrice === "string" ? { ...item, unitPrice: Number(item.unitPrice) } : item,
  ),
);

export const moneyTwoDecimals = violation(
  "money-two-decimals",
  "money is served with 2 decimals instead of 4",
  ["resources.invoices", "resources.expenses", "resources.products"],
  mapResources((item) => {
    const out = { ...item };
    for (const f of MONEY_FIELDS) {
      const v = out[f];
      if (typeof v === "string") out[f] = new Decimal(v).toFixed(2);
    }
    return out;
  }),
);

export const timestampsWithoutMs = violation(
  "timestamps-without-ms",
  "timestamps are served without milliseconds (2025-01-10T18:37:11Z)",
  ["resources.contacts", "resources.invoices", "contacts.create-response"],
  mapJsonBody((body) => mapStrings(body, (s) => (TIMESTAMP.test(s) ? s.replace(/\.\d{3}Z$/, "Z") : s))),
);

export const timestampsWithOffset = violation(
  "timestamps-with-offset",
  "timestamps end in +00:00 instead of Z",
  ["resources.contacts", "resources.products", "resources.invoices", "resources.expenses"],
  mapJsonBody((body) => mapStrings(body, (s) => (TIMESTAMP.test(s) ? s.replace(/Z$/, "+00:00") : s))),
);

export const invoiceDateNoon = violation(
  "invoice-date-noon",
  "invoice dates are at noon instead of midnight",
  ["resources.invoices"],
  mapResources(
    (item) =>
      typeof item.date === "string" && item.invoiceNumber !== undefined
        ? { ...item, date: item.date.replace("T00:00:00.000Z", "T12:00:00.000Z") }
        : item,
    "lists",
  ),
);

export const invoiceStatusUnknown = violation(
  "invoice-status-unknown",
  "voided invoices are served with the status CANCELLED, outside §2's enum",
  ["resources.invoices", "lists.status-filter"],
  mapResources(
    (item) =>
      item.invoiceNumber !== undefined && item.status === "VOIDED" ? { ...item, status: "CANCELLED" } : item,
    "lists",
  ),
);

export const expenseWithoutAccount = violation(
  "expense-without-account",
  "expenses are served without their account",
  ["resources.expenses"],
  mapResources((item, req) => {
    if (req.path !== EXPENSES) return item;
    const { account: _account, ...rest } = item;
    return rest;
  }, "lists"),
);

// SHOULD rules: violations only under --strict.
export const totalsOffByACent = violation(
  "totals-off-by-a-cent",
  "invoice totals are one cent more than subtotal + tps + tvq (SHOULD: run with --strict)",
  ["resources.totals"],
  mapResources(
    (item) =>
      item.invoiceNumber !== undefined && typeof item.total === "string"
        ? { ...item, total: new Decimal(item.total).plus("0.01").toFixed(4) }
        : item,
    "lists",
  ),
  { strict: true },
);

// What was not sent, and what must not be there (issue 16, class 2).
export const timestampsLocalTime = violation(
  "timestamps-local-time",
  "createdAt and updatedAt are the server's local time (UTC-5) written with a Z: well-formed, five hours off",
  ["run.created-timestamps"],
  mapResources((item) => {
    const out = { ...item };
    for (const f of ["createdAt", "updatedAt"]) {
      const v = out[f];
      if (typeof v === "string" && TIMESTAMP.test(v))
        out[f] = new Date(Date.parse(v) - 5 * 3_600_000).toISOString();
    }
    return out;
  }),
);

export const contactsCarryStatus = violation(
  "contacts-carry-status",
  'contacts carry a status ("ACTIVE"), which §3 says they have not',
  ["resources.contacts", "contacts.create-response"],
  mapResources((item, req) => (req.path === CONTACTS ? { ...item, status: "ACTIVE" } : item)),
);

// ---- benign variants: other legal answers to open points; the kit must pass each one -------------------

export const uuidIds = benign("uuid-ids", "identifiers are UUIDs (mapped consistently both ways)", () => {
  const back = new Map<string, string>();
  const toUuid = (id: string): string => {
    const uuid = uuidOf(id);
    back.set(uuid, id);
    return uuid;
  };
  return {
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
      const data = mapObjects(body.data, (o) => (typeof o.id === "string" ? { ...o, id: toUuid(o.id) } : o));
      setJson(res, { data });
    },
  };
});

export const optionalFieldsAbsent = benign(
  "optional-fields-absent",
  "unset optional fields are absent instead of null",
  mapResources(
    (item) =>
      mapObjects(item, (o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null))) as Json,
  ),
);

export const sequentialIdsPerOrg = benign(
  "sequential-ids-per-org",
  'ids are per-organization sequence numbers ("1", "2", …), org_boreal holding 150 archived contacts',
  (reference) => {
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
    return {
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
    };
  },
);
