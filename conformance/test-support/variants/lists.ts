import type { Reference } from "../../../src/entry/reference.js";
import { toContact } from "../../../src/serialization/resources.js";
import {
  archiveContacts,
  CONTACTS,
  errorReply,
  EXPENSES,
  type Incoming,
  INVOICES,
  is2xx,
  isList,
  LIST_PATHS,
  isObject,
  jsonOf,
  type Layer,
  mapJsonBody,
  PRODUCTS,
  setJson,
  TIMESTAMP,
  variantsIn,
  mapQuery,
  VIRTUAL_START,
} from "./harness.js";

const { violation, benign } = variantsIn("lists");

/** The 400 of a server that refuses unknown query parameters (spec-gaps #11 lets it). */
const unknownParams = (names: readonly string[]) =>
  errorReply(
    400,
    "invalid_request",
    "Unknown query parameters",
    Object.fromEntries(names.map((k) => [k, ["is not a known parameter"]])),
  );

/** Variants of the lists: limits, filters, `before`, order (§4, §8). */

/** The `before` a reversed-filter variant read, by request. */
const asAfter = new WeakMap<Incoming, string>();

/** The query parameters §4 names for each list: anything else is "unknown" (spec-gaps #11). */
const KNOWN_PARAMS: Readonly<Record<string, readonly string[]>> = {
  [CONTACTS]: ["limit", "type", "before"],
  [PRODUCTS]: ["limit", "before"],
  [INVOICES]: ["limit", "status", "before"],
  [EXPENSES]: ["limit", "status", "before"],
};

// ---- violations: the kit must fail each one in the spec profile, naming the right check ---------------

// §4 and §8: lists, filters, limits.
export const limitIgnored = violation(
  "limit-ignored",
  "limit is ignored: lists always hold up to 50 items",
  ["lists.limit-and-filters", "lists.limit-out-of-range"],
  mapQuery((query) => query.delete("limit")),
);

export const limitPlusOne = violation(
  "limit-plus-one",
  "limit=n returns n + 1 items (off by one)",
  ["lists.limit-and-filters"],
  mapQuery((query) => {
    const limit = query.get("limit");
    if (limit !== null && /^[1-9]\d*$/.test(limit) && Number(limit) < 200)
      query.set("limit", String(Number(limit) + 1));
  }),
);

export const typeFilterIgnored = violation(
  "type-filter-ignored",
  "the contacts' type filter is ignored",
  ["lists.type-filter", "lists.limit-and-filters"],
  mapQuery((query, req) => (req.path === CONTACTS ? query.delete("type") : undefined)),
);

export const statusFilterIgnored = violation(
  "status-filter-ignored",
  "the invoices' and expenses' status filter is ignored",
  ["lists.status-filter", "lists.limit-and-filters"],
  mapQuery((query, req) => (req.path === CONTACTS ? undefined : query.delete("status"))),
);

/**
 * Contacts lists asked for more than 200 items answered from the store with up to `cap` of them (a
 * type filter kept), as a server with another page maximum would.
 */
const pagesUpTo =
  (cap: number, archived: number) =>
  (reference: Reference): Layer => {
    if (archived > 0) archiveContacts(reference, "org_lumiere", archived);
    return {
      request(req) {
        const limit = Number(req.query.get("limit"));
        const org = req.token?.organization;
        if (!isList(req) || req.path !== CONTACTS || !(limit > 200) || org === undefined) return undefined;
        if (req.token?.state !== "active" || !req.token.scopes.includes("contacts:read")) return undefined;
        const type = req.query.get("type");
        const items = reference.store
          .listContacts(org, { limit: Math.min(Math.floor(limit), cap) })
          .filter((c) => type === null || c.type === type);
        return { status: 200, json: { data: items.map(toContact) } };
      },
    };
  };

export const pageCap250 = violation(
  "page-cap-250",
  "the page size is capped at 250 instead of 200 (an organization with 274 contacts)",
  ["lists.page-max", "lists.limit-out-of-range"],
  pagesUpTo(250, 250),
);

// §8: the page maximum, shown on a list the kit makes long enough (issue 16, class 4).
export const limitAbove200Served = violation(
  "limit-above-200-served",
  "a limit above 200 is served as asked (limit=1000 answers up to 1000 contacts); no list of the fixtures is long enough to show it",
  ["lists.page-max"],
  pagesUpTo(Number.POSITIVE_INFINITY, 0),
);

// §4: before.
export const beforeInclusive = violation(
  "before-inclusive",
  "before is inclusive: items at exactly that instant are returned",
  ["lists.before"],
  {
    request(req) {
      const before = req.query.get("before");
      if (!isList(req) || before === null || !TIMESTAMP.test(before)) return undefined;
      req.query.set("before", new Date(Date.parse(before) + 1).toISOString());
      return undefined;
    },
  },
);

// Where the kit is likeliest to look away: one direction of isolation, a reversed filter, byte counts.
export const beforeReversed = violation(
  "before-reversed",
  "before returns the items at or after it instead of those strictly before",
  ["lists.before"],
  {
    request(req) {
      if (isList(req) && req.query.has("before")) {
        asAfter.set(req, req.query.get("before") ?? "");
        req.query.delete("before");
        req.query.set("limit", "200");
      }
      return undefined;
    },
    response(res, req) {
      const after = asAfter.get(req);
      const body = jsonOf(res);
      if (after === undefined || res.status !== 200 || !isObject(body) || !Array.isArray(body.data)) return;
      const field = req.path === INVOICES || req.path === EXPENSES ? "date" : "createdAt";
      const kept = body.data.filter(
        (i: unknown) =>
          isObject(i) && typeof i[field] === "string" && Date.parse(i[field]) >= Date.parse(after),
      );
      setJson(res, { data: kept });
    },
  },
);

export const beforeDateOnly = violation(
  "before-date-only",
  'before takes a date only (YYYY-MM-DD) and refuses a date-time with 400; but §4\'s pagination sets before "from the date of the last result", which is served as a date-time (2026-10-30T00:00:00.000Z), so a server supporting before must accept the served format',
  ["lists.before"],
  {
    request(req) {
      const before = req.query.get("before");
      if (!isList(req) || before === null || /^\d{4}-\d{2}-\d{2}$/.test(before) || req.token === undefined) {
        return undefined;
      }
      return errorReply(400, "invalid_request", "before must be a date (YYYY-MM-DD)", {
        before: ["must be a date (YYYY-MM-DD)"],
      });
    },
  },
);

export const defaultLimit100 = violation(
  "default-limit-100",
  "a list without limit holds up to 100 items instead of 50",
  ["lists.default-limit", "lists.limit-and-filters"],
  mapQuery((query) => (query.has("limit") ? undefined : query.set("limit", "100"))),
);

export const limit200Refused = violation(
  "limit-200-refused",
  "limit=200, the largest page, is refused with 400 (off by one)",
  ["lists.limit-and-filters"],
  {
    request: (req) =>
      isList(req) && req.query.get("limit") === "200" && req.token !== undefined
        ? errorReply(400, "invalid_request", "limit must be below 200")
        : undefined,
  },
);

// Stateful bugs a fixed check catches in every run (issue 16, class 6).
export const filterAfterLimit = violation(
  "filter-after-limit",
  "the type and status filters are applied to the page the limit has already cut: type=SUPPLIER&limit=5 keeps the suppliers among the 5 newest contacts",
  ["lists.filter-before-limit"],
  () => {
    const asked = new WeakMap<Incoming, { field: string; value: string }>();
    return {
      request(req) {
        const field = req.query.has("type") ? "type" : req.query.has("status") ? "status" : undefined;
        const value = field === undefined ? null : req.query.get(field);
        if (!isList(req) || field === undefined || value === null) return undefined;
        asked.set(req, { field, value });
        req.query.delete(field);
        return undefined;
      },
      response(res, req) {
        const filter = asked.get(req);
        const body = jsonOf(res);
        if (filter === undefined || res.status !== 200 || !isObject(body) || !Array.isArray(body.data))
          return;
        setJson(res, {
          data: body.data.filter((i: unknown) => isObject(i) && i[filter.field] === filter.value),
        });
      },
    };
  },
);

// Forms of before and of the filters beyond the canonical one (issue 16, class 1).

/** Rewrites `before` before the reference reads it. */
const mapBefore = (fn: (before: string) => string): Layer =>
  mapQuery((query) => {
    const before = query.get("before");
    if (before !== null) query.set("before", fn(before));
  });

export const filterPrefixMatch = violation(
  "filter-prefix-match",
  "a filter value matches the values it begins: type=CLIEN lists the clients, status=PAI the paid invoices (SHOULD since issue 29's audit: run with --strict)",
  ["coverage.filters"],
  mapQuery((query) => {
    for (const [param, values] of [
      ["type", ["CLIENT", "SUPPLIER", "BOTH"]],
      ["status", ["DRAFT", "SENT", "PAID", "OVERDUE", "VOIDED", "APPROVED", "REJECTED"]],
    ] as const) {
      const value = query.get(param);
      const full = value === null || value === "" ? undefined : values.find((v) => v.startsWith(value));
      if (full !== undefined) query.set(param, full);
    }
  }),
  { strict: true },
);

// Pages cut before the list is ordered (issue 29's foreign-go `limit-before-sort`, `new-records-last`).

/** The page size a list request asks: its limit when it is one valid decimal, 50 when it gives none. */
function askedLimit(query: URLSearchParams): number | undefined {
  const values = query.getAll("limit");
  if (values.length === 0) return 50;
  const [value] = values;
  return values.length === 1 && value !== undefined && /^[1-9]\d*$/.test(value) && Number(value) <= 200
    ? Number(value)
    : undefined;
}

/**
 * Lists of `paths` whose page is `pick`ed from the largest page (newest first, as the reference orders
 * it) rather than cut by the reference: what a server that cuts before it orders answers.
 */
const pagesPicked =
  (pick: (items: readonly unknown[], limit: number) => unknown[], paths: readonly string[]) => (): Layer => {
    const asked = new WeakMap<Incoming, number>();
    return {
      request(req) {
        const limit = askedLimit(req.query);
        if (!isList(req) || !paths.includes(req.path) || limit === undefined) return undefined;
        asked.set(req, limit);
        req.query.set("limit", "200");
        return undefined;
      },
      response(res, req) {
        const limit = asked.get(req);
        const body = jsonOf(res);
        if (limit === undefined || res.status !== 200 || !isObject(body) || !Array.isArray(body.data)) return;
        setJson(res, { data: pick(body.data, limit) });
      },
    };
  };

export const limitBeforeSort = violation(
  "limit-before-sort",
  "the page is cut in storage order (oldest first), then sorted: limit=n answers the n oldest items newest first, so paging with before from its last item never reaches the newest",
  ["lists.page-newest"],
  pagesPicked((items, limit) => items.slice(-limit), LIST_PATHS),
);

export const expensesOldestFirstCut = violation(
  "expenses-oldest-first-cut",
  "expenses are ordered oldest first and then cut: limit=n answers the n oldest, so paging with before from the last item never reaches the newer ones (a page of the newest n shown oldest first, lists-oldest-first, is only a SHOULD)",
  ["lists.page-newest"],
  pagesPicked((items, limit) => [...items].reverse().slice(0, limit), [EXPENSES]),
);

/** Created during the run (the variants' clock starts after every fixture's date). */
const createdInRun = (item: unknown): boolean =>
  isObject(item) && typeof item.createdAt === "string" && item.createdAt >= VIRTUAL_START;

/** Contacts: the seeded ones first (newest first), then those the run created, oldest first. */
const createdLast = pagesPicked(
  (items, limit) =>
    [...items.filter((i) => !createdInRun(i)), ...items.filter(createdInRun).reverse()].slice(0, limit),
  [CONTACTS],
);

export const newRecordsLast = violation(
  "new-records-last",
  "contacts created through the API are listed after the seeded ones, oldest first, and before is not supported on contacts (SHOULD: run with --strict)",
  ["lists.order"],
  () => [
    mapQuery((query, req) => (req.path === CONTACTS ? query.delete("before") : undefined)),
    createdLast(),
  ],
  { strict: true },
);

export const newRecordsLastBefore = violation(
  "new-records-last-before",
  "contacts created through the API are listed after the seeded ones, where contacts take before: paging by §4 never reaches them",
  ["lists.page-newest"],
  createdLast,
);

// SHOULD rules: violations only under --strict.
export const listsOldestFirst = violation(
  "lists-oldest-first",
  "lists come oldest first (SHOULD: run with --strict)",
  ["lists.order"],
  mapJsonBody(
    (body) =>
      isObject(body) && Array.isArray(body.data) ? { ...body, data: [...body.data].reverse() } : body,
    (res, req) => isList(req) && is2xx(res),
  ),
  { strict: true },
);

// ---- benign variants: other legal answers to open points; the kit must pass each one -------------------

export const limitClamped = benign(
  "limit-clamped",
  "an out-of-range limit is clamped (0 → 1, 1000 → 200, junk → 50, repeated → first) instead of 400",
  mapQuery((query) => {
    const first = query.getAll("limit")[0];
    if (first === undefined) return;
    const n = Number(first);
    query.set(
      "limit",
      String(first.trim() === "" || !Number.isFinite(n) ? 50 : Math.min(200, Math.max(1, Math.floor(n)))),
    );
  }),
);

export const limitNonDecimalAsAbsent = benign(
  "limit-non-decimal-as-absent",
  "a limit that is not decimal notation (0x10, 1e2, +5, abc) reads as no limit at all: the default page of 50; a decimal one outside 1..200 gets 400",
  mapQuery((query) => {
    const values = query.getAll("limit");
    if (values.length === 1 && !/^-?\d+(\.\d+)?$/.test(values[0] ?? "")) query.delete("limit");
  }),
);

export const beforeNotSupported = benign(
  "before-not-supported",
  "before is not supported (ignored)",
  mapQuery((query) => query.delete("before")),
);

export const typeFilterIncludesBoth = benign(
  "type-filter-includes-both",
  "type=CLIENT and type=SUPPLIER include the contacts of type BOTH",
  () => {
    const asked = new WeakMap<Incoming, { type: string; limit: number }>();
    return {
      request(req) {
        const type = req.query.get("type");
        const limit = req.query.getAll("limit");
        const valid = limit.length === 0 || (limit.length === 1 && /^[1-9]\d*$/.test(limit[0] ?? ""));
        if (!isList(req) || req.path !== CONTACTS || (type !== "CLIENT" && type !== "SUPPLIER") || !valid) {
          return undefined;
        }
        // The reference reads the exact type only: read the largest page, keep the type and BOTH, cut.
        asked.set(req, { type, limit: Math.min(200, Number(limit[0] ?? 50)) });
        req.query.delete("type");
        req.query.set("limit", "200");
        return undefined;
      },
      response(res, req) {
        const wanted = asked.get(req);
        const body = jsonOf(res);
        if (wanted === undefined || res.status !== 200 || !isObject(body) || !Array.isArray(body.data))
          return;
        const kept = body.data.filter(
          (i: unknown) => isObject(i) && (i.type === wanted.type || i.type === "BOTH"),
        );
        setJson(res, { data: kept.slice(0, wanted.limit) });
      },
    };
  },
);

export const beforeLenientForms = benign(
  "before-lenient-forms",
  "before is read by a lenient parser: a space for T, lower-case t and z, the basic format and a time without zone (as UTC) are all taken",
  mapBefore((b) => {
    const basic = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(b);
    const text =
      basic === null ? b : `${basic[1]}-${basic[2]}-${basic[3]}T${basic[4]}:${basic[5]}:${basic[6]}Z`;
    const iso = text.replace(" ", "T").replace(/t/, "T").replace(/z$/, "Z");
    return /T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(iso) ? `${iso}Z` : iso;
  }),
);

export const limitParsedLeniently = benign(
  "limit-parsed-leniently",
  "limit is read by its leading digits (parseInt): 050 is 50, +5 and ' 5' are 5, 5abc is 5",
  mapQuery((query) => {
    const values = query.getAll("limit");
    const n = values.length === 1 ? Number.parseInt(values[0] ?? "", 10) : Number.NaN;
    if (n >= 1 && n <= 200) query.set("limit", String(n));
  }),
);

export const beforeRollingOutStrictParams = benign(
  "before-rolling-out-strict-params",
  'before exists on invoices and expenses only so far (§4 "added progressively"), and unknown query parameters get 400',
  {
    request(req) {
      if (!isList(req) || req.token === undefined) return undefined;
      const known = (KNOWN_PARAMS[req.path] ?? []).filter(
        (k) => k !== "before" || req.path === INVOICES || req.path === EXPENSES,
      );
      const unknown = [...req.query.keys()].filter((k) => !known.includes(k));
      return unknown.length === 0 ? undefined : unknownParams(unknown);
    },
  },
);

// Forms of before other than the one served: open since spec-gaps #8 was revised (issue 29). They were
// violations of coverage.before while every ISO 8601 form was a MUST.
export const beforeIgnoresOffset = benign(
  "before-ignores-offset",
  "before's zone offset is dropped: 2026-10-30T05:30:00+05:30 is read as 05:30 UTC, five and a half hours late; the served form is read right",
  mapBefore((b) => b.replace(/[+-]\d{2}:\d{2}$/, "Z")),
);

export const beforeDateInLocalTime = benign(
  "before-date-in-local-time",
  "a before given as a date alone is read as midnight in the server's zone (UTC-5), not UTC; the served form is read right",
  mapBefore((b) => (/^\d{4}-\d{2}-\d{2}$/.test(b) ? `${b}T05:00:00.000Z` : b)),
);

export const beforeServedFormOnly = benign(
  "before-served-form-only",
  "before takes only the form the lists serve (2026-10-30T00:00:00.000Z): a date alone, an offset, no fraction or any other form gets 400",
  {
    request(req) {
      const before = req.query.get("before");
      if (!isList(req) || before === null || TIMESTAMP.test(before) || req.token === undefined)
        return undefined;
      return errorReply(400, "invalid_request", "before must be a timestamp as the lists serve it", {
        before: ["must be YYYY-MM-DDTHH:mm:ss.sssZ"],
      });
    },
  },
);

export const beforeUnreadableEmptyPage = benign(
  "before-unreadable-empty-page",
  "a before its parser cannot read (another ISO form, the basic format, trailing junk, an empty value) is read as an instant before every item: an empty page",
  {
    request(req) {
      const before = req.query.get("before");
      if (!isList(req) || before === null || TIMESTAMP.test(before) || req.token === undefined)
        return undefined;
      return { status: 200, json: { data: [] } };
    },
  },
);
