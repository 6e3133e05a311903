import type { ManifestToken } from "../manifest-schema.js";
import { failureKey } from "../failures.js";
import type { Check, CheckContext, HttpExchange } from "../types.js";
import {
  expectErrorEnvelope,
  expectList,
  expectStatus,
  fail,
  isRecord,
  requestLine,
  snippet,
  type JsonObject,
} from "../support/assert.js";
import {
  createdContact,
  createdProduct,
  dataObject,
  filteredPage,
  firstPage,
  fullToken,
  itemsOf,
  listRequest,
  locate,
  readWhole,
  reader,
  requireCreated,
  validProduct,
} from "../support/data.js";
import { LIST_NAMES, type ListName } from "../spec/kit-spec.js";
import { SECTION } from "../spec/clauses.js";

/**
 * §1: "A token only reaches data of its own organization." Each organization creates a marked record
 * and the other must never see it, in both directions (a leak may run one way only). Records are matched
 * by their marked name or sku, never by id: two organizations may well number their own records alike
 * (spec-gaps #3: ids need only be unique within a list).
 */

type Org = 0 | 1;

async function expectUnseen(
  ctx: CheckContext,
  list: ListName,
  what: string,
  owner: Org,
  match: (item: JsonObject) => boolean,
  created: HttpExchange,
): Promise<void> {
  const reader: Org = owner === 0 ? 1 : 0;
  const located = await locate(ctx, list, fullToken(ctx, reader), match);
  if (located.found !== undefined) {
    fail(`${what}, created by organization ${owner}, is listed to organization ${reader} (§1)`, {
      key: failureKey(`organization ${owner}'s ${list} listed to organization ${reader}`),
      expected: `${what} absent from organization ${reader}'s ${list}`,
      actual: snippet(JSON.stringify(located.found)),
      exchange: located.exchange,
      evidence: [created, located.exchange],
    });
  }
  expectStatus(located.exchange, 200, `GET ${list} with organization ${reader}'s token must answer 200`);
  if (!located.exhaustive) {
    ctx.observe(
      `organization ${reader}'s ${list} not searched to their end`,
      `Organization ${reader}'s ${list} were searched for ${what} on ${located.pages} page(s), not to their end.`,
    );
  }
}

/** A record as a whole, keys sorted: two organizations' lists must never hold the same one. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (isRecord(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "undefined";
}

/** Every read of isolation.lists: each list unfiltered and under each value of its filter. */
function listReads(ctx: CheckContext): Array<{ list: ListName; value: string | undefined }> {
  return LIST_NAMES.flatMap((list) => [
    { list, value: undefined },
    ...(ctx.spec.LISTS[list].filter?.values ?? []).map((value) => ({ list, value })),
  ]);
}

const read = (
  ctx: CheckContext,
  list: ListName,
  value: string | undefined,
  token: ManifestToken,
): Promise<HttpExchange> =>
  value === undefined ? firstPage(ctx, list, token) : filteredPage(ctx, list, value, token);

/**
 * §1, §2: an invoice's or expense's contact is one of the organization's own contacts. Judged only
 * when the token can read the whole contacts list.
 */
async function expectOwnContacts(ctx: CheckContext, org: 0 | 1, token: ManifestToken): Promise<void> {
  if (!token.scopes.includes(ctx.spec.LISTS.contacts.scope)) return;
  const contacts = await readWhole(ctx, "contacts", token);
  if (!contacts.complete) {
    ctx.observe(
      `organization ${org}'s contacts not read to their end`,
      `Organization ${org}'s contacts could not be read to their end, so the contacts of its invoices and expenses were not matched.`,
    );
    return;
  }
  const own = new Set(contacts.items.map((c) => c.id));
  for (const list of ["invoices", "expenses"] as const) {
    const ex = await firstPage(ctx, list, token);
    const foreign = expectList(ex, `${requestLine(ex.request)} must answer 200`).filter(
      (item) => isRecord(item.contact) && !own.has(item.contact.id),
    );
    if (foreign.length > 0) {
      fail(`Organization ${org}'s ${list} name contacts that are not among its own (§1)`, {
        key: failureKey(`organization ${org}'s ${list} name another's contacts`),
        expected: `every contact.id one of organization ${org}'s ${own.size} contacts`,
        actual: foreign
          .slice(0, 5)
          .map((i) => `${JSON.stringify(i.id)} has contact ${snippet(JSON.stringify(i.contact), 120)}`)
          .join("; "),
        exchange: ex,
      });
    }
  }
}

/** The value of the list's filter its first page holds most: a filtered read then has items to leak. */
function commonValue(ctx: CheckContext, list: ListName, items: readonly JsonObject[]): string | undefined {
  const param = ctx.spec.LISTS[list].filter?.param;
  if (param === undefined) return undefined;
  const counts = new Map<string, number>();
  for (const item of items) {
    const v = item[param];
    if (typeof v === "string") counts.set(v, (counts.get(v) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
}

export const isolationChecks: readonly Check[] = [
  {
    id: "isolation.cache",
    section: SECTION.service,
    clause: "§1.2",
    level: "MUST",
    rule: "The same list request made by one organization, then at once by the other, gets each its own records (a cache keyed without the organization serves the first one's)",
    async run(ctx) {
      const second = fullToken(ctx, 1);
      for (const list of LIST_NAMES) {
        // Organization 0's reads on a token holding just the list's scope, where there is one.
        const first = reader(ctx, list);
        const mine = itemsOf(await firstPage(ctx, list, first)) ?? [];
        const param = ctx.spec.LISTS[list].filter?.param;
        const value = commonValue(ctx, list, mine);
        // An unusual page size: a URL no other check asks for, read twice in a row.
        const queries: Array<Record<string, string>> = [
          { limit: "7" },
          ...(param === undefined || value === undefined ? [] : [{ [param]: value, limit: "7" }]),
        ];
        for (const query of queries) {
          for (const [a, b] of [
            [first, second],
            [second, first],
          ] as const) {
            const before = await ctx.http.send(listRequest(ctx, list, a, query));
            const after = await ctx.http.send(listRequest(ctx, list, b, query));
            const own = new Set(
              expectList(before, `${requestLine(before.request)} must answer 200`).map(canonical),
            );
            const shared = expectList(after, `${requestLine(after.request)} must answer 200`).filter((item) =>
              own.has(canonical(item)),
            );
            if (shared.length > 0) {
              fail(
                `${requestLine(after.request)}, asked by ${b.organization} right after ${a.organization} asked the same, answers ${a.organization}'s ${list} (§1)`,
                {
                  key: failureKey(
                    "the same request answered with the other organization's records",
                    list,
                    param !== undefined && param in query ? "filtered" : "unfiltered",
                  ),
                  expected: `only ${b.organization}'s own ${list}`,
                  actual: `${shared.length} of ${a.organization}'s record(s), e.g. ${snippet(JSON.stringify(shared[0]), 200)}`,
                  exchange: after,
                  evidence: [before, after],
                },
              );
            }
          }
        }
      }
    },
  },
  {
    id: "isolation.lists",
    section: SECTION.service,
    clause: ["§1.2", "§2 Invoice.11", "§2 Expense.9"],
    level: "MUST",
    rule: "Two organizations' lists, each list unfiltered and under each filter value, share no record; every invoice's and expense's contact is one of its organization's contacts",
    async run(ctx) {
      const first = fullToken(ctx, 0);
      // The contacts of invoices and expenses show a leak even without a second organization's token.
      await expectOwnContacts(ctx, 0, first);
      const second = ctx.tokens.find({ kind: "full", org: 1 });
      if (second === undefined) {
        ctx.observe(
          "no second organization",
          "The manifest has no second organization: the lists were not compared.",
        );
        return;
      }
      await expectOwnContacts(ctx, 1, second);
      for (const { list, value } of listReads(ctx)) {
        const mine = await read(ctx, list, value, reader(ctx, list));
        const theirs = await read(ctx, list, value, second);
        const what = `${requestLine(theirs.request)}`;
        const own = new Set(expectList(mine, `${requestLine(mine.request)} must answer 200`).map(canonical));
        const shared = expectList(theirs, `${what} must answer 200`).filter((item) =>
          own.has(canonical(item)),
        );
        if (shared.length > 0) {
          fail(`Organizations 0 and 1 are both served the same ${list} (${what}, §1)`, {
            key: failureKey("a record served to both organizations", list, value ?? "unfiltered"),
            expected: `no record in both organizations' ${list}`,
            actual: `${shared.length} record(s) in both, e.g. ${snippet(JSON.stringify(shared[0]), 200)}`,
            exchange: theirs,
            evidence: [mine, theirs],
          });
        }
      }
    },
  },
  {
    id: "isolation.contacts",
    section: SECTION.service,
    clause: "§1.2",
    level: "MUST",
    rule: "Contacts created with one organization's token never appear in another organization's list (both ways)",
    writes: true,
    async run(ctx) {
      // Skips before creating anything when the manifest has no second organization.
      const second = fullToken(ctx, 1);
      for (const variant of ["minimal", "full"] as const) {
        const { body, exchange } = await createdContact(ctx, variant);
        requireCreated(ctx, exchange, `the ${variant} contact`, "contacts.create-response");
        const name = body.name;
        await expectUnseen(
          ctx,
          "contacts",
          `the contact "${String(name)}"`,
          0,
          (i) => i.name === name,
          exchange,
        );
      }
      const name = `${ctx.marker} isolation contact of organization 1`;
      const ex = await ctx.http.send({
        method: "POST",
        path: ctx.spec.LISTS.contacts.path,
        auth: second,
        json: { type: ctx.spec.SAMPLE.contactType, name },
      });
      requireCreated(ctx, ex, "organization 1's contact", "contacts.create-response");
      await expectUnseen(ctx, "contacts", `the contact "${name}"`, 1, (i) => i.name === name, ex);
    },
  },
  {
    id: "isolation.products",
    section: SECTION.service,
    clause: "§1.2",
    level: "MUST",
    rule: "Products created with one organization's token never appear in another organization's list (both ways)",
    writes: true,
    async run(ctx) {
      // Skips before creating anything when the manifest has no second organization.
      const second = fullToken(ctx, 1);
      const { draft, exchange } = await createdProduct(ctx, "full");
      requireCreated(ctx, exchange, "the product", "products.create");
      await expectUnseen(
        ctx,
        "products",
        `the product with sku "${draft.sku}"`,
        0,
        (item) => item.sku === draft.sku || item.name === draft.name,
        exchange,
      );
      const mine = validProduct(ctx, "isolation-org-1");
      const ex = await ctx.http.send({
        method: "POST",
        path: ctx.spec.LISTS.products.path,
        auth: second,
        json: mine,
      });
      requireCreated(ctx, ex, "organization 1's product", "products.create");
      await expectUnseen(
        ctx,
        "products",
        `the product with sku "${String(mine.sku)}"`,
        1,
        (item) => item.sku === mine.sku || item.name === mine.name,
        ex,
      );
    },
  },
  {
    id: "isolation.foreign-id",
    section: SECTION.service,
    clause: ["§1.2", "§7.7"],
    level: "MUST",
    rule: "Another organization's record, addressed by its id, is not found: 404 (or 405 where no such endpoint exists)",
    gap: 23,
    writes: true,
    async run(ctx) {
      const owner = fullToken(ctx, 0);
      const other = fullToken(ctx, 1);
      const { exchange } = await createdContact(ctx, "minimal");
      requireCreated(ctx, exchange, "the contact", "contacts.create-response");
      const id = dataObject(exchange)?.id;
      if (typeof id !== "string" || id === "") return ctx.skip("the contact creation answered no id");
      const path = `${ctx.spec.LISTS.contacts.path}/${encodeURIComponent(id)}`;
      const own = await ctx.http.send({ method: "GET", path, auth: owner });
      ctx.observe(
        `owner reads by id: ${own.status}`,
        `GET ${ctx.spec.LISTS.contacts.path}/<id> by the owning organization answers ${own.status}.`,
      );
      const foreign = await ctx.http.send({ method: "GET", path, auth: other });
      const rule = "Another organization's contact must be reported as not found (§1)";
      expectStatus(foreign, [404, 405], rule);
      expectErrorEnvelope(
        foreign,
        foreign.status === ctx.spec.ERRORS.notFound.status ? ctx.spec.ERRORS.notFound.code : undefined,
        rule,
      );
    },
  },
];
