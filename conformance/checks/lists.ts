import fc from "fast-check";
import type { ManifestToken } from "../manifest-schema.js";
import { failureKey, type Observation } from "../failures.js";
import type { Check, CheckContext, HttpExchange, HttpRequest } from "../types.js";
import {
  answer,
  expectErrorEnvelope,
  expectList,
  expectNot5xx,
  expectRejected,
  fail,
  requestLine,
  snippet,
  statusAndCode,
  type JsonObject,
} from "../support/assert.js";
import {
  DECIMAL,
  invalidLimitArb,
  limitBound,
  listQueryArb,
  type InvalidLimit,
  type ListQuery,
} from "../support/arbitraries.js";
import {
  beforeSupport,
  currentPage,
  filteredPage,
  firstPage,
  fullToken,
  itemsOf,
  listRequest,
  reader,
  tokenHolding,
  usableTokens,
  validContact,
} from "../support/data.js";
import { buildModel, listCommandsArb, type Real } from "../support/list-model.js";
import { expectFiltered, matchesFilter } from "../support/filters.js";
import { checkProperty } from "../support/property.js";
import { orderBreaks } from "../support/shapes.js";
import { LIST_NAMES, ORDER_FIELD, type ListName } from "../spec/kit-spec.js";
import { SECTION } from "../spec/clauses.js";

/** §4 "Pagination" and the query parameters of the endpoint table; §8's page size. */

/** The largest page, as a query string carries it. */
const largestPage = (ctx: CheckContext): string => String(ctx.spec.MAX.pageMax);

/** One filtered read at the largest page, shared by the MUST, PROBE and REFERENCE checks (and isolation). */
const filtered = filteredPage;

/** The request a generated query stands for. */
function queryRequest(ctx: CheckContext, q: ListQuery, token: ManifestToken): HttpRequest {
  const param = ctx.spec.LISTS[q.list].filter?.param ?? "type";
  return listRequest(ctx, q.list, token, {
    ...(q.limit === undefined ? {} : { limit: q.limit }),
    ...(q.filter === undefined ? {} : { [param]: q.filter }),
  });
}

/** What kind of invalid limit a value is (spec-gaps #10), as a failure's key names it. */
function limitClass(ctx: CheckContext, value: string | readonly string[]): string {
  if (typeof value !== "string") return "repeated";
  if (!DECIMAL.test(value)) return "not decimal";
  const n = Number(value);
  if (!Number.isInteger(n)) return "not an integer";
  const { pageMin, pageMax } = ctx.spec.MAX;
  return n < pageMin ? `below ${pageMin}` : n > pageMax ? `above ${pageMax}` : "in range";
}

const orderTime = (list: ListName, item: JsonObject): number => {
  const value = item[ORDER_FIELD[list]];
  return typeof value === "string" ? Date.parse(value) : Number.NaN;
};

interface LimitProbe {
  what: string;
  query: Record<string, string>;
  /** How many items the answer must hold, under every reading the kit accepts (support/filters.ts). */
  least: number;
  most: number;
  says: string;
}

/**
 * Queries whose limit cuts before the filter would show it: limit=1 with a filter value the list's
 * newest item does not have, and limit=1 with a `before` at its newest item (where the target supports
 * `before`). A server that takes the newest n items and then filters answers none. Judged on `whole`,
 * the list's largest page read just before (every item when it holds fewer than 200).
 */
function limitProbes(
  ctx: CheckContext,
  list: ListName,
  whole: readonly JsonObject[],
  before: boolean,
): LimitProbe[] {
  const out: LimitProbe[] = [];
  const newest = whole[0];
  if (newest === undefined) return out;
  const filter = ctx.spec.LISTS[list].filter;
  const value = filter?.values.find(
    (v) =>
      !matchesFilter(ctx.spec, list, v, newest, "either") &&
      whole.some((i) => matchesFilter(ctx.spec, list, v, i, "exact")),
  );
  if (filter !== undefined && value !== undefined) {
    out.push({
      what: `${filter.param} filter`,
      query: { [filter.param]: value, limit: "1" },
      least: 1,
      most: 1,
      says: `with ${filter.param} ${value} (the newest item has another)`,
    });
  }
  const newestTime = orderTime(list, newest);
  const older = whole.find((i) => orderTime(list, i) < newestTime);
  const served = newest[ctx.spec.LISTS[list].orderField];
  // Only where before is supported (spec-gaps #8): an ignored before answers the newest item. In the
  // form the target serves, the one §4's recipe sends.
  if (before && older !== undefined && !Number.isNaN(newestTime) && typeof served === "string") {
    out.push({
      what: "before",
      query: { before: served, limit: "1" },
      least: 1,
      most: 1,
      says: "strictly before the newest item's instant",
    });
  }
  return out;
}

/** A list known to hold more than a page of 200, and a token that reads it. */
interface LongList {
  list: ListName;
  token: ManifestToken;
  held: number;
}

/** A list whose largest first page is full, in either organization: no need to write. */
async function longList(ctx: CheckContext): Promise<LongList | undefined> {
  const tokens = [fullToken(ctx, 0), ctx.tokens.find({ kind: "full", org: 1 })].filter(
    (t): t is ManifestToken => t !== undefined,
  );
  for (const token of tokens) {
    for (const list of LIST_NAMES) {
      const held = itemsOf(await firstPage(ctx, list, token))?.length ?? 0;
      if (held >= ctx.spec.MAX.pageMax) return { list, token, held };
    }
  }
  return undefined;
}

/**
 * §8's maximum shows only on a list longer than 200: the kit makes one. Marked contacts go to the
 * second organization when there is one (the checks after this one read the first's lists), spread
 * over every token of it able to create them, so that no token's budget (§8) carries them all.
 */
async function fillList(ctx: CheckContext): Promise<LongList> {
  const token = ctx.tokens.find({ kind: "full", org: 1 }) ?? fullToken(ctx, 0);
  const first = await ctx.http.send(listRequest(ctx, "contacts", token, { limit: largestPage(ctx) }));
  const held = expectList(first, `${requestLine(first.request)} must answer 200`).length;
  if (ctx.options.readOnly) {
    ctx.skip(
      `MUST not verified: no list holds more than ${ctx.spec.MAX.pageMax} items (${token.organization}'s contacts hold ${held}), and --read-only forbids adding the marked contacts that would make one`,
    );
  }
  const writers = usableTokens(ctx).filter(
    (t) =>
      t.organization === token.organization && t.scopes.includes(ctx.spec.file.endpoints.createContact.scope),
  );
  // A few over the maximum: a list of exactly 200 would not show a page too long.
  const target = ctx.spec.MAX.pageMax + 6;
  for (let n = held; n < target; n += 1) {
    const writer = writers[n % writers.length] ?? token;
    const ex = await ctx.http.send({
      method: "POST",
      path: ctx.spec.LISTS.contacts.path,
      auth: writer,
      json: validContact(ctx, `page filler ${n}`),
    });
    if (ex.status !== 201 && ex.status !== 200) {
      ctx.skip(
        `MUST not verified: adding contacts to pass ${ctx.spec.MAX.pageMax} stopped on a ${ex.status} (contacts.create-response reports why)`,
      );
    }
  }
  ctx.observe(
    "added contacts past 200",
    `Added ${target - held} marked contacts to ${token.organization}'s contacts so that the list holds more than ${ctx.spec.MAX.pageMax}.`,
  );
  return { list: "contacts", token, held: target };
}

/** The keys of `details` that name the parameter (`limit`, `query.limit`). */
const detailsName = (details: JsonObject | undefined, name: string): boolean =>
  details !== undefined && Object.keys(details).some((k) => k === name || k.endsWith(`.${name}`));

export const listChecks: readonly Check[] = [
  {
    id: "lists.default-limit",
    section: SECTION.endpoints,
    clause: ["§4 Pagination.1", "§8.2"],
    level: "MUST",
    rule: "A list without limit answers 200 with 50 items when it holds more, and never more than 50",
    // Reads suffice when a list already holds more than 50 items; otherwise marked contacts are added.
    writes: "if-needed",
    async run(ctx) {
      const token = fullToken(ctx);
      const count = async (list: ListName, query: Record<string, string> = {}) => {
        const ex = await ctx.http.send(listRequest(ctx, list, token, query));
        return { ex, items: expectList(ex, `${requestLine(ex.request)} must answer 200 { "data": [...] }`) };
      };
      const checkDefault = async (list: ListName, held: number) => {
        const { ex, items } = await count(list);
        // §4 and §8: the default is 50, so a list holding more must give exactly 50, not 20, not 100.
        const expected = Math.min(held, ctx.spec.MAX.pageDefault);
        if (items.length !== expected) {
          fail(
            `GET ${ctx.spec.LISTS[list].path} without limit must return the default of 50 items (§4, §8)`,
            {
              key: failureKey("default page not 50", list),
              expected: `${expected} items (the list holds ${held >= ctx.spec.MAX.pageMax ? "at least " : ""}${held})`,
              actual: `${items.length} items`,
              exchange: ex,
            },
          );
        }
      };
      let longest: { list: ListName; held: number } | undefined;
      for (const list of LIST_NAMES) {
        const page = await currentPage(ctx, list, token);
        const held = expectList(
          page,
          `${requestLine(page.request)} must answer 200 { "data": [...] }`,
        ).length;
        await checkDefault(list, held);
        if (longest === undefined || held > longest.held) longest = { list, held };
      }
      if (longest !== undefined && longest.held > ctx.spec.MAX.pageDefault) return;
      // No list is long enough for a default above 50 to show: make one, with marked contacts.
      if (ctx.options.readOnly) {
        ctx.skip(
          `no list of organization 0 holds more than ${ctx.spec.MAX.pageDefault} items (the longest, ${longest?.list ?? "none"}, holds ${longest?.held ?? 0}), so a default above 50 cannot show, and --read-only forbids adding some`,
        );
      }
      const held = (await count("contacts", { limit: largestPage(ctx) })).items.length;
      for (let n = held; n <= ctx.spec.MAX.pageDefault; n += 1) {
        const ex = await ctx.http.send({
          method: "POST",
          path: ctx.spec.LISTS.contacts.path,
          auth: token,
          json: validContact(ctx, `filler ${n}`),
        });
        if (ex.status !== 201 && ex.status !== 200) {
          ctx.skip(`could not add contacts to reach 51 (POST answered ${ex.status})`);
        }
      }
      ctx.observe(
        "added contacts past 50",
        `Added ${ctx.spec.MAX.pageDefault + 1 - held} marked contacts so that the contacts list holds more than 50.`,
      );
      await checkDefault("contacts", (await count("contacts", { limit: largestPage(ctx) })).items.length);
    },
  },
  {
    id: "lists.limit-and-filters",
    section: SECTION.endpoints,
    clause: ["§4.5", "§4.7", "§4.9", "§4.10", "§4 Pagination.1"],
    level: "MUST",
    rule: "Any valid query (limit 1..200, the list's filter) answers 200 with at most limit items, each matching the filter",
    async run(ctx) {
      // Any token with the list's scope will do: the load falls on tokens the other checks leave idle.
      const tokenFor = (list: ListName): ManifestToken => tokenHolding(ctx, ctx.spec.LISTS[list].scope);
      await checkProperty(ctx, {
        rule: "A valid list query must answer 200 with at most `limit` items (default 50), each matching the filter",
        arb: listQueryArb(ctx.spec),
        examples: [
          { list: "contacts", limit: "1" },
          { list: "products", limit: largestPage(ctx) },
          { list: "invoices", limit: largestPage(ctx), filter: ctx.spec.INVOICE_STATUSES[0] },
          { list: "contacts", filter: ctx.spec.SAMPLE.otherContactType },
        ],
        show: (q) => requestLine(queryRequest(ctx, q, tokenFor(q.list))),
        classOf: (q) =>
          [q.list, q.limit === undefined ? "" : "limit", q.filter === undefined ? "" : "filter"]
            .filter((part) => part !== "")
            .join(" "),
        predicate: async (q) => {
          const ex = await ctx.http.send(queryRequest(ctx, q, tokenFor(q.list)));
          const line = requestLine(ex.request);
          const items = expectList(ex, `${line} must answer 200`);
          const max = q.limit === undefined ? ctx.spec.MAX.pageDefault : Number(q.limit);
          if (items.length > max) {
            fail(`${line} returned more than ${max} items (§4)`, {
              key: "more items than the limit",
              expected: `at most ${max} items`,
              actual: `${items.length} items`,
              exchange: ex,
            });
          }
          if (q.filter !== undefined)
            expectFiltered(ctx.spec, ex, items, q.list, q.filter, {
              message: `${line} returned items that do not match the filter (§4)`,
              key: "items outside the filter",
            });
        },
      });
    },
  },
  {
    id: "lists.limit-out-of-range",
    section: SECTION.limits,
    clause: ["§8.2", "§4 Pagination.4"],
    level: "MUST",
    rule: "A limit below 1, above 200, not an integer, not decimal or repeated is refused (a 4xx; §4: its answer is not shown) or clamped: never 5xx, never more than 200, never more than a decimal limit",
    gap: 10,
    async run(ctx) {
      const tokenFor = (list: ListName): ManifestToken => tokenHolding(ctx, ctx.spec.LISTS[list].scope);
      const examples: Array<[ListName, InvalidLimit]> = [
        // Every kind of spec-gaps #10, decimal or not (0x10 is 16 to JavaScript, nothing to a decimal parser).
        ...["0", "-1", "201", "1000", "1.5", "abc", "", "0x10", "1e2", "+5"].map(
          (value): [ListName, InvalidLimit] => ["contacts", { value }],
        ),
        ["invoices", { value: ["10", "20"] }],
      ];
      await checkProperty(ctx, {
        rule: "An out-of-range limit must get 400 invalid_request or a clamped page (spec-gaps #10)",
        arb: fc.tuple(fc.constantFrom(...LIST_NAMES), invalidLimitArb(ctx.spec)),
        examples,
        show: ([list, { value }]) => requestLine(listRequest(ctx, list, tokenFor(list), { limit: value })),
        classOf: ([, { value }]) => `limit ${limitClass(ctx, value)}`,
        predicate: async ([list, { value }]) => {
          const ex = await ctx.http.send(listRequest(ctx, list, tokenFor(list), { limit: value }));
          const rule = requestLine(ex.request);
          expectNot5xx(ex, rule);
          if (ex.status === 400) {
            expectErrorEnvelope(ex, ctx.spec.ERRORS.invalidRequest.code, rule);
            return;
          }
          // §4: "Behavior for a limit outside 1 to 200 or not an integer: not shown". Any refusal will
          // do (its envelope is run.error-envelope's); only a page is bounded.
          if (ex.status > 400 && ex.status < 500) return;
          const items = expectList(ex, `${rule} must answer a refusal or a clamped 200`);
          const bound = limitBound(ctx.spec, value);
          if (items.length > bound) {
            fail(`${rule} returned more items than the limit allows once clamped`, {
              key: "more items than the clamped limit",
              expected: `400, or at most ${bound} items`,
              actual: `${items.length} items`,
              exchange: ex,
            });
          }
        },
      });
    },
  },
  {
    id: "lists.page-max",
    section: SECTION.limits,
    clause: ["§8.2", "§4 Pagination.1"],
    level: "MUST",
    rule: "A list holding more than 200 items answers limit=200 with 200, and never more than 200 whatever the limit asked (201, 1000, empty, not a number, with a filter); when no list is that long the kit makes one with marked contacts, and only --read-only leaves the rule unverified",
    gap: 10,
    writes: "if-needed",
    async run(ctx) {
      const long = (await longList(ctx)) ?? (await fillList(ctx));
      const { list, token, held } = long;
      const said = `the list holds at least ${held} items`;
      const full = await ctx.http.send(listRequest(ctx, list, token, { limit: largestPage(ctx) }));
      const page = expectList(full, `${requestLine(full.request)} (${said}) must answer 200`);
      if (page.length !== ctx.spec.MAX.pageMax) {
        fail(`${requestLine(full.request)} (${said}) must answer a page of 200 (§4, §8)`, {
          key: failureKey("limit=200 not 200 items", list),
          expected: `${ctx.spec.MAX.pageMax} items`,
          actual: `${page.length} items`,
          exchange: full,
        });
      }
      const param = ctx.spec.LISTS[list].filter?.param;
      const value = list === "contacts" ? ctx.spec.SAMPLE.contactType : undefined;
      const asks: Array<Record<string, string>> = [
        ...[String(ctx.spec.MAX.pageMax + 1), "1000", "1000000", "", "all", "-1"].map((limit) => ({ limit })),
        ...(param === undefined || value === undefined ? [] : [{ [param]: value, limit: "1000" }]),
      ];
      for (const query of asks) {
        const ex = await ctx.http.send(listRequest(ctx, list, token, query));
        const rule = `${requestLine(ex.request)} (${said})`;
        expectNot5xx(ex, rule);
        if (ex.status === 400) {
          expectErrorEnvelope(ex, ctx.spec.ERRORS.invalidRequest.code, rule);
          continue;
        }
        const items = expectList(ex, `${rule} must answer 400 or at most 200 items`);
        if (items.length > ctx.spec.MAX.pageMax) {
          fail(`${rule} answered more than the page maximum of 200 (§4, §8)`, {
            key: failureKey("more than 200 items", list, `limit ${limitClass(ctx, query.limit ?? "")}`),
            expected: "400, or at most 200 items",
            actual: `${items.length} items`,
            exchange: ex,
          });
        }
      }
    },
  },
  {
    id: "lists.reference-limit",
    section: SECTION.limits,
    clause: ["§8.2", "§4 Pagination.4"],
    level: "REFERENCE",
    rule: "A limit outside 1..200, not an integer or repeated gets 400 invalid_request with details naming limit",
    gap: 10,
    async run(ctx) {
      const token = reader(ctx, "contacts");
      for (const value of ["0", "201", "1.5", "abc", ["10", "20"]] as const) {
        const ex = await ctx.http.send(listRequest(ctx, "contacts", token, { limit: value }));
        const rule = `${requestLine(ex.request)} must be refused, naming limit`;
        const { details } = expectErrorEnvelope(ex, ctx.spec.ERRORS.invalidRequest.code, rule);
        if (ex.status !== 400 || !detailsName(details, "limit")) {
          fail(rule, {
            key: failureKey("limit not named", `limit ${limitClass(ctx, value)}`, `status ${ex.status}`),
            expected: '400 with error.details naming "limit"',
            actual: answer(ex),
            exchange: ex,
          });
        }
      }
    },
  },
  {
    id: "lists.type-filter",
    section: SECTION.endpoints,
    clause: "§4.5",
    level: "MUST",
    rule: "type=CLIENT (SUPPLIER) returns only CLIENT (SUPPLIER) or BOTH contacts; type=BOTH only BOTH",
    async run(ctx) {
      const token = reader(ctx, "contacts");
      for (const value of ctx.spec.CONTACT_TYPES) {
        const ex = await filtered(ctx, "contacts", value, token);
        const items = expectList(ex, `GET /api/v1/contacts?type=${value} must answer 200`);
        expectFiltered(ctx.spec, ex, items, "contacts", value, {
          message: `type=${value} returned other contacts (§4)`,
          key: failureKey("items outside the filter", `type=${value}`),
        });
      }
    },
  },
  {
    id: "lists.type-filter-both",
    section: SECTION.endpoints,
    clause: "§4.5",
    level: "PROBE",
    rule: "Whether type=CLIENT and type=SUPPLIER include the contacts of type BOTH",
    async run(ctx) {
      const reading = ctx.spec.BOTH ?? ctx.skip("the spec's contact types do not hold spec-gaps #2's three");
      const token = reader(ctx, "contacts");
      const both = itemsOf(await filtered(ctx, "contacts", reading.both, token))?.length ?? 0;
      for (const value of reading.parts) {
        const items = itemsOf(await filtered(ctx, "contacts", value, token));
        if (items === undefined) {
          ctx.observe(`type=${value}: no list`, `type=${value} did not answer a list.`);
          continue;
        }
        const included = items.filter((i) => i.type === reading.both).length;
        if (included > 0)
          ctx.observe(
            `type=${value} includes BOTH`,
            `type=${value} includes BOTH contacts (${included} of ${items.length} items).`,
          );
        else if (both > 0)
          ctx.observe(
            `type=${value} leaves out BOTH`,
            `type=${value} leaves out BOTH contacts (type=BOTH lists ${both}).`,
          );
        else
          ctx.observe(
            `type=${value}: no BOTH contact to show it`,
            `type=${value}: organization 0 has no BOTH contact, so it cannot show.`,
          );
      }
    },
  },
  {
    id: "lists.reference-type-filter",
    section: SECTION.endpoints,
    clause: "§4.5",
    level: "REFERENCE",
    rule: "type=CLIENT and type=SUPPLIER return exactly that type, never BOTH",
    async run(ctx) {
      const reading = ctx.spec.BOTH ?? ctx.skip("the spec's contact types do not hold spec-gaps #2's three");
      const token = reader(ctx, "contacts");
      for (const value of reading.parts) {
        const ex = await filtered(ctx, "contacts", value, token);
        expectFiltered(ctx.spec, ex, expectList(ex), "contacts", value, {
          message: `type=${value} returned contacts of another type`,
          key: failureKey("items outside the filter", `type=${value}`),
          reading: "exact",
        });
      }
    },
  },
  {
    id: "lists.status-filter",
    section: SECTION.endpoints,
    clause: ["§4.9", "§4.10"],
    level: "MUST",
    rule: "status=X on invoices and expenses returns only items whose status is X",
    async run(ctx) {
      for (const list of ["invoices", "expenses"] as const) {
        const token = reader(ctx, list);
        for (const value of ctx.spec.LISTS[list].filter?.values ?? []) {
          const ex = await filtered(ctx, list, value, token);
          const items = expectList(ex, `GET ${ctx.spec.LISTS[list].path}?status=${value} must answer 200`);
          expectFiltered(ctx.spec, ex, items, list, value, {
            message: `status=${value} returned ${list} of another status (§4)`,
            key: failureKey("items outside the filter", list, `status=${value}`),
          });
        }
      }
    },
  },
  {
    id: "lists.unknown-filter-value",
    section: SECTION.endpoints,
    clause: ["§4.5", "§4.9"],
    level: "PROBE",
    rule: "What a filter value outside the enum gets (type=VENDOR, type=client, status=CANCELLED, status=paid)",
    async run(ctx) {
      const cases: Array<[ListName, string, string]> = [
        ["contacts", "type", "VENDOR"],
        ["contacts", "type", "client"],
        ["invoices", "status", "CANCELLED"],
        ["invoices", "status", "paid"],
      ];
      for (const [list, param, value] of cases) {
        const ex = await ctx.http.send(
          listRequest(ctx, list, reader(ctx, list), { limit: largestPage(ctx), [param]: value }),
        );
        const items = itemsOf(ex);
        const what = items !== undefined ? `200 with ${items.length} items` : statusAndCode(ex);
        const kind = items === undefined ? what : items.length === 0 ? "200, empty" : "200, with items";
        ctx.observe(
          `${list}?${param}=${value}: ${kind}`,
          `GET ${ctx.spec.LISTS[list].path}?${param}=${value}: ${what}.`,
        );
      }
    },
  },
  {
    id: "lists.filter-before-limit",
    section: SECTION.endpoints,
    clause: ["§4.5", "§4.9", "§4.10", "§4 Pagination.1", "§4 Pagination.2"],
    level: "MUST",
    rule: "A filter (type, status, before) applies before the limit: with limit=n the answer holds n matching items whenever the list holds n, even when the newest n items do not match",
    gap: 8,
    async run(ctx) {
      let tried = 0;
      for (const list of LIST_NAMES) {
        const token = tokenHolding(ctx, ctx.spec.LISTS[list].scope);
        const whole = itemsOf(await currentPage(ctx, list, token)) ?? [];
        const before = (await beforeSupport(ctx, list, token)).kind === "supported";
        for (const probe of limitProbes(ctx, list, whole, before)) {
          tried += 1;
          const ex = await ctx.http.send(listRequest(ctx, list, token, probe.query));
          const items = expectList(ex, `${requestLine(ex.request)} must answer 200`);
          const wrong =
            probe.query.before === undefined
              ? []
              : items.filter((i) => !(orderTime(list, i) < Date.parse(probe.query.before ?? "")));
          if (items.length < probe.least || items.length > probe.most || wrong.length > 0) {
            fail(
              `${requestLine(ex.request)}: the ${probe.what} must select among all the items, then the limit cut (§4)`,
              {
                key: failureKey("filter applied after the limit", list, probe.what),
                expected: `${probe.least === probe.most ? probe.least : `${probe.least} to ${probe.most}`} item(s) ${probe.says}`,
                actual: `${items.length} item(s)${wrong.length > 0 ? `, ${wrong.length} not before it` : ""}`,
                exchange: ex,
              },
            );
          }
        }
      }
      if (tried === 0)
        ctx.skip(
          "no list holds an item the newest ones do not match, so the order of filter and limit cannot show",
        );
    },
  },
  {
    id: "lists.order",
    section: SECTION.endpoints,
    clause: ["§4 Pagination.1", "§4 Pagination.2"],
    level: "SHOULD",
    rule: "Lists come newest first: by date for invoices and expenses, by createdAt for contacts and products, the records the run created among them; and limit=n cuts that order: its page is the first n items of the largest page",
    gap: 7,
    async run(ctx) {
      for (const list of LIST_NAMES) {
        const token = reader(ctx, list);
        // Read now, not at the start: by now contacts and products hold records the run created.
        const ex = await currentPage(ctx, list, token);
        const items = expectList(ex);
        const breaks = orderBreaks(items, ctx.spec.LISTS[list].orderField);
        if (breaks.length > 0) {
          fail(`${list} are not newest first`, {
            key: failureKey("not newest first", list),
            expected: `${ctx.spec.LISTS[list].orderField} never increasing down the list`,
            actual: `${breaks.length} inversion(s): ${breaks.slice(0, 3).join("; ")}`,
            exchange: ex,
          });
        }
        await expectFirstOfOrder(ctx, list, token, ex);
      }
    },
  },
  {
    id: "lists.page-newest",
    section: SECTION.endpoints,
    clause: ["§4 Pagination.1", "§4 Pagination.2"],
    level: "MUST",
    rule: "Where a list takes before, a page cut by limit holds its newest items: no item the page leaves out is newer than its last item, which §4's paging (before = the last item's date) would never reach",
    gap: 7,
    async run(ctx) {
      let judged = 0;
      for (const list of LIST_NAMES) {
        const token = reader(ctx, list);
        const support = await beforeSupport(ctx, list, token);
        if (support.kind !== "supported") continue;
        // The list as it stands now, the records the run created in it: a server that lists them
        // last leaves them out of every page.
        const read = await currentPage(ctx, list, token);
        const whole = itemsOf(read) ?? [];
        if (whole.length < 2) continue;
        judged += 1;
        // The first page of one item, and of half the list: items sharing an instant (the run's own
        // records may) may fall either side of a cut, so a short page shows what a long one hides.
        for (const n of new Set([1, Math.floor(whole.length / 2)])) {
          const ex = await ctx.http.send(listRequest(ctx, list, token, { limit: String(n) }));
          const page = expectList(ex, `${requestLine(ex.request)} must answer 200`);
          const last = page.at(-1);
          const lastTime = last === undefined ? Number.NaN : orderTime(list, last);
          const onPage = new Set(page.map((i) => JSON.stringify(i.id)));
          const unreached = whole.filter(
            (i) => !onPage.has(JSON.stringify(i.id)) && orderTime(list, i) > lastTime,
          );
          if (unreached.length > 0) {
            const field = ctx.spec.LISTS[list].orderField;
            fail(
              `${requestLine(ex.request)} leaves out items newer than its last: paging by §4 never reaches them`,
              {
                key: failureKey("page not the newest items", list),
                expected: `the ${n} newest item(s): none left out with ${field} after the last one's (${String(last?.[field])})`,
                actual: `${unreached.length} newer item(s) left out, e.g. ${unreached
                  .slice(0, 3)
                  .map((i) => `${JSON.stringify(i.id)} ${field} ${JSON.stringify(i[field])}`)
                  .join("; ")}`,
                exchange: ex,
                evidence: [read, ex],
              },
            );
          }
        }
      }
      if (judged === 0)
        ctx.skip(
          "no list takes before (spec-gaps #8) and holds two items, so §4's paging cannot be followed",
        );
    },
  },
  {
    id: "lists.before",
    section: SECTION.endpoints,
    clause: ["§4 Pagination.2", "§4 Pagination.3"],
    level: "MUST",
    rule: "before, where supported, returns only items strictly before it; where ignored, the unfiltered list (feature-detected per list)",
    gap: 8,
    async run(ctx) {
      for (const list of LIST_NAMES) {
        const token = reader(ctx, list);
        const field = ctx.spec.LISTS[list].orderField;
        // The probe sends the served timestamp format: §4's recipe sets before "from the date of the last result".
        const support = await beforeSupport(ctx, list, token);
        if (support.kind === "undecided") {
          ctx.observe(
            `${list}: before undecided`,
            `${list}: whether before is supported cannot be told: ${support.reason}.`,
          );
          continue;
        }
        if (support.kind === "broken" && support.probe.status === 400) {
          // §4: before is "being added to endpoints progressively", and unknown parameters may be refused
          // (spec-gaps #11, PROBE): a list without before yet, on such a server, refuses it like any other.
          const unknown = await ctx.http.send(
            listRequest(ctx, list, token, { limit: largestPage(ctx), cfk_probe: "1" }),
          );
          if (unknown.status === 400) {
            ctx.observe(
              `${list}: before not supported, 400 like an unknown parameter`,
              `${list}: before reads as not supported: it gets 400, and so does an unknown parameter (cfk_probe=1).`,
            );
            continue;
          }
        }
        if (support.kind === "broken") {
          fail(
            `${list}: a before at the oldest item, in the form the target serves, must give only items strictly before it (supported) or the unfiltered list (ignored)`,
            {
              key: failureKey("before neither supported nor ignored", list, `status ${support.probe.status}`),
              expected:
                "items strictly before it (none, when the page held the whole list), or the same items as without before",
              actual: support.reason,
              exchange: support.probe,
            },
          );
        }
        if (support.kind === "ignored") {
          await expectIgnoredMidway(ctx, list, token);
          continue;
        }
        const items = itemsOf(support.plain) ?? [];
        const pivot = items[Math.floor(items.length / 2)]?.[field];
        if (typeof pivot !== "string" || Number.isNaN(Date.parse(pivot))) {
          ctx.observe(
            `${list}: before supported, no item to read before`,
            `${list}: before is supported; no item ${field} to read before.`,
          );
          continue;
        }
        const ex = await ctx.http.send(
          listRequest(ctx, list, token, { limit: largestPage(ctx), before: pivot }),
        );
        const got = expectList(ex, `GET ${ctx.spec.LISTS[list].path}?before=${pivot} must answer 200`);
        const notBefore = got.filter(
          (i) => !(typeof i[field] === "string" && Date.parse(i[field]) < Date.parse(pivot)),
        );
        if (notBefore.length > 0) {
          fail(`${list}: before=${pivot} returned items that are not strictly before it`, {
            key: failureKey("items not strictly before", list),
            expected: `every ${field} < ${pivot}`,
            actual: notBefore
              .slice(0, 5)
              .map((i) => `${JSON.stringify(i.id)} ${field} ${JSON.stringify(i[field])}`)
              .join("; "),
            exchange: ex,
          });
        }
        const older = items.filter(
          (i) => typeof i[field] === "string" && Date.parse(i[field]) < Date.parse(pivot),
        );
        if (older.length > 0 && got.length === 0) {
          fail(`${list}: before=${pivot} returned nothing, though older items exist`, {
            key: failureKey("nothing before, though older items exist", list),
            expected: "the items older than before",
            actual: "an empty list",
            exchange: ex,
          });
        }
        ctx.observe(`${list}: before supported`, `${list}: before is supported.`);
      }
    },
  },
  {
    id: "lists.reference-before",
    section: SECTION.endpoints,
    clause: "§4 Pagination.3",
    level: "REFERENCE",
    rule: "A malformed before gets 400 invalid_request on every list",
    gap: 8,
    async run(ctx) {
      for (const list of LIST_NAMES) {
        const token = reader(ctx, list);
        const ex = await ctx.http.send(listRequest(ctx, list, token, { before: "yesterday" }));
        expectRejected(ctx.spec, ex, `GET ${ctx.spec.LISTS[list].path}?before=yesterday must be refused`);
      }
    },
  },
  {
    id: "lists.pagination-hole",
    section: SECTION.endpoints,
    clause: "§4 Pagination.2",
    level: "PROBE",
    rule: "Whether paging with before = date of the last item loses items sharing that midnight date",
    gap: 9,
    async run(ctx) {
      for (const list of ["invoices", "expenses"] as const) {
        const token = reader(ctx, list);
        const { key, text } = await probeHole(ctx, list, token);
        ctx.observe(key, text);
      }
    },
  },
  {
    id: "lists.unknown-params",
    section: SECTION.endpoints,
    clause: "§4.5",
    level: "PROBE",
    rule: "What unknown query parameters get (foo=bar, a cache-buster _=<n>)",
    gap: 11,
    async run(ctx) {
      const token = reader(ctx, "contacts");
      for (const [param, value] of [
        ["foo", "bar"],
        ["_", "1700000000000"],
      ] as const) {
        const ex = await ctx.http.send(listRequest(ctx, "contacts", token, { limit: "5", [param]: value }));
        const what = ex.status === 200 ? "ignored (200)" : statusAndCode(ex);
        ctx.observe(`?${param}=: ${what}`, `GET /api/v1/contacts?limit=5&${param}=${value}: ${what}.`);
      }
    },
  },
  {
    id: "lists.model",
    section: SECTION.endpoints,
    clause: ["§1.2", "§4.5", "§4.6", "§4.7", "§4.8", "§4 Pagination.1"],
    level: "MUST",
    rule: "Random sequences of creations and reads (filters, limits, before) across two organizations agree with a model of what each holds: only its own records, matching the query, as many as it holds up to the limit, each as sent",
    gap: 8,
    writes: true,
    async run(ctx) {
      const since = ctx.http.history().length;
      const model = await buildModel(ctx);
      const real: Real = { ctx };
      await checkProperty(ctx, {
        rule: "A sequence of creations and reads must agree with the model (§1, §4, §8)",
        arb: listCommandsArb(ctx.spec, ctx.marker, model.orgs),
        numRuns: Math.max(1, Math.min(ctx.options.numRuns, 6)),
        // The target remembers every run (records, a cache): the counterexample is all the check sent.
        stateful: true,
        since,
        show: (cmds) => snippet([...cmds].map(String).join("; "), 900),
        predicate: (cmds) => fc.asyncModelRun(() => ({ model, real }), cmds),
      });
      const created = model.orgs.flatMap((o) => LIST_NAMES.map((l) => model.lists[o][l].created.length));
      ctx.observe("records created", `The sequences created ${created.reduce((a, b) => a + b, 0)} records.`);
    },
  },
];

/**
 * spec-gaps #7 (SHOULD): limit=n answers the first n items of the order the largest page shows
 * (`read`, just before). Ties at the cut may fall either way; an item older than the cut, or one newer
 * than it left out, is a page cut before the list was ordered.
 */
async function expectFirstOfOrder(
  ctx: CheckContext,
  list: ListName,
  token: ManifestToken,
  read: HttpExchange,
): Promise<void> {
  const whole = itemsOf(read) ?? [];
  const n = Math.floor(whole.length / 2);
  const cut = whole[n - 1];
  if (cut === undefined) return;
  const cutTime = orderTime(list, cut);
  const ex = await ctx.http.send(listRequest(ctx, list, token, { limit: String(n) }));
  const page = expectList(ex, `${requestLine(ex.request)} must answer 200`);
  const onPage = new Set(page.map((i) => JSON.stringify(i.id)));
  const older = page.filter((i) => orderTime(list, i) < cutTime);
  const missing = whole.filter((i) => orderTime(list, i) > cutTime && !onPage.has(JSON.stringify(i.id)));
  if (older.length + missing.length > 0) {
    const field = ctx.spec.LISTS[list].orderField;
    fail(`${requestLine(ex.request)} is not the first ${n} items of the list`, {
      key: failureKey("limit not the first items", list),
      expected: `the ${n} newest items (${field} from ${String(cut[field])} on), as the largest page orders them`,
      actual: `${older.length} older item(s) on the page, ${missing.length} newer one(s) left out`,
      exchange: ex,
      evidence: [read, ex],
    });
  }
}

/**
 * The probe at the oldest item gave the whole list back: before is ignored, or it keeps the items at or
 * after the date (the filter reversed). An item's date from the middle of the list tells them apart.
 */
async function expectIgnoredMidway(ctx: CheckContext, list: ListName, token: ManifestToken): Promise<void> {
  const field = ctx.spec.LISTS[list].orderField;
  // The list as it stands now: the probe that found before ignored may have read it runs ago.
  const items = itemsOf(await currentPage(ctx, list, token)) ?? [];
  const times = items
    .map((i) => (typeof i[field] === "string" ? Date.parse(i[field]) : Number.NaN))
    .filter((t) => !Number.isNaN(t));
  const oldest = Math.min(...times);
  const newest = Math.max(...times);
  if (times.length === 0 || newest - oldest < 2) {
    ctx.observe(
      `${list}: before ignored, unconfirmed`,
      `${list}: before is ignored (the unfiltered list comes back); no two items far enough apart to confirm.`,
    );
    return;
  }
  // An item's own date, as served (§4's recipe sets before from a served date), past the oldest: the
  // one nearest the middle of the list's span.
  const middle = (oldest + newest) / 2;
  const midway = items
    .map((i) => i[field])
    .filter((t): t is string => typeof t === "string" && Date.parse(t) > oldest)
    .reduce<string | undefined>(
      (best, t) =>
        best === undefined || Math.abs(Date.parse(t) - middle) < Math.abs(Date.parse(best) - middle)
          ? t
          : best,
      undefined,
    );
  if (midway === undefined) return;
  const ex = await ctx.http.send(listRequest(ctx, list, token, { limit: largestPage(ctx), before: midway }));
  const got = itemsOf(ex);
  const same = (a: readonly JsonObject[]): string => JSON.stringify(a.map((i) => i.id));
  if (got === undefined || same(got) !== same(items)) {
    fail(`${list}: before must filter strictly before the date or be ignored`, {
      key: failureKey("before ignored early, not midway", list),
      expected: `before=${midway} (an item's ${field} past the oldest): the same ${items.length} items as without before, as the probe at the oldest item read it as ignored`,
      actual:
        got === undefined
          ? answer(ex)
          : `${got.length} items, ${got.filter((i) => typeof i[field] === "string" && Date.parse(i[field]) >= Date.parse(midway)).length} of them at or after before`,
      exchange: ex,
    });
  }
  ctx.observe(
    `${list}: before ignored`,
    `${list}: before is ignored (the unfiltered list comes back, early or midway).`,
  );
}

/**
 * spec-gaps #9: walk the list the way §4 says (limit, then before = date of the last item) with pages
 * one smaller than the first date holding several items, and count what never comes back.
 */
async function probeHole(
  ctx: CheckContext,
  list: "invoices" | "expenses",
  token: ManifestToken,
): Promise<Observation> {
  const support = await beforeSupport(ctx, list, token);
  if (support.kind !== "supported") {
    return {
      key: `${list}: before ${support.kind}, no hole to show`,
      text: `${list}: before is not supported (${support.kind}), so the hole cannot show.`,
    };
  }
  const items = itemsOf(support.plain) ?? [];
  const whole = items.length < ctx.spec.MAX.pageMax;
  const lastDate = items[items.length - 1]?.date;
  const counts = new Map<string, number>();
  for (const i of items) if (typeof i.date === "string") counts.set(i.date, (counts.get(i.date) ?? 0) + 1);
  // The newest date with several items whose items the first page holds in full.
  const target = [...counts].find(([date, n]) => n >= 2 && (whole || date !== lastDate));
  if (target === undefined) {
    return {
      key: `${list}: no date with two items`,
      text: `${list}: no date holds two items on the first page, so the hole cannot show.`,
    };
  }
  const [date, count] = target;
  const limit = String(count - 1);
  const seen = new Set<unknown>();
  let before: string | undefined;
  let link: string | undefined;
  for (let page = 0; page < 25; page += 1) {
    const ex = await ctx.http.send(
      listRequest(ctx, list, token, { limit, ...(before === undefined ? {} : { before }) }),
    );
    link ??= ex.headers.link;
    const got = itemsOf(ex);
    if (got === undefined) {
      return {
        key: `${list}: walk stopped on ${ex.status}`,
        text: `${list}: the walk stopped on a ${ex.status} answer.`,
      };
    }
    for (const i of got) seen.add(i.id);
    const last = got[got.length - 1]?.date;
    if (got.length < count - 1 || typeof last !== "string" || Date.parse(last) < Date.parse(date)) break;
    before = last;
  }
  const lost = items.filter((i) => i.date === date && !seen.has(i.id)).length;
  const linkNote = link === undefined ? "" : ` The answers carry a Link header (${link}).`;
  const key = `${list}: ${lost > 0 ? "items lost" : "nothing lost"}${link === undefined ? "" : ", Link header"}`;
  return lost > 0
    ? {
        key,
        text: `${list}: paging with limit=${limit} and before = date of the last item lost ${lost} of the ${count} items dated ${date}.${linkNote}`,
      }
    : {
        key,
        text: `${list}: paging with limit=${limit} and before = date of the last item returned all ${count} items dated ${date}.${linkNote}`,
      };
}
