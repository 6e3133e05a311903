import { Decimal } from "decimal.js";
import request from "supertest";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { z } from "zod";
import { CONTACT_TYPES, EXPENSE_STATUSES, INVOICE_STATUSES } from "../../model/records.js";
import { ContactJson, ExpenseJson, InvoiceJson, ProductJson } from "../../serialization/resources.js";
import {
  expectData,
  expectInvalid,
  readFixture,
  referencePerTest,
  testReference,
  type FixtureRecord,
  type TestReference,
} from "../../test-support/reference.js";

const DAY = 86_400_000;
const LUMIERE = "org_lumiere";
const BOREAL = "org_boreal";

interface ListSpec {
  name: "contacts" | "products" | "invoices" | "expenses";
  path: string;
  /** The field lists are ordered and cut by (spec-gaps #7, #8). */
  key: "createdAt" | "date";
  schema: z.ZodType;
  filter?: { param: "type" | "status"; values: readonly string[] };
  /** How many records the store holds for an organization. */
  count(ref: TestReference, organizationId: string): number;
  /** Adds records to an organization straight into the store, each with its id and order-key instant. */
  add(ref: TestReference, organizationId: string, records: { id: string; at: Date }[]): void;
}

function template<T>(items: T[], what: string): T {
  const [first] = items;
  if (first === undefined) throw new Error(`no ${what} to copy`);
  return first;
}

const LISTS: ListSpec[] = [
  {
    name: "contacts",
    path: "/api/v1/contacts",
    key: "createdAt",
    schema: ContactJson,
    filter: { param: "type", values: CONTACT_TYPES },
    count: (ref, org) => ref.store.listContacts(org, { limit: 1_000_000 }).length,
    add: (ref, org, records) => {
      const t = template(ref.store.listContacts(org, { limit: 1 }), "contact");
      for (const { id, at } of records)
        ref.store.add({ type: "contact", data: { ...t, id, createdAt: at, updatedAt: at } });
    },
  },
  {
    name: "products",
    path: "/api/v1/products",
    key: "createdAt",
    schema: ProductJson,
    count: (ref, org) => ref.store.listProducts(org, { limit: 1_000_000 }).length,
    add: (ref, org, records) => {
      const t = template(ref.store.listProducts(org, { limit: 1 }), "product");
      for (const { id, at } of records)
        ref.store.add({ type: "product", data: { ...t, id, sku: id, createdAt: at, updatedAt: at } });
    },
  },
  {
    name: "invoices",
    path: "/api/v1/invoices",
    key: "date",
    schema: InvoiceJson,
    filter: { param: "status", values: INVOICE_STATUSES },
    count: (ref, org) => ref.store.listInvoices(org, { limit: 1_000_000 }).length,
    add: (ref, org, records) => {
      const t = template(ref.store.listInvoices(org, { limit: 1 }), "invoice");
      for (const { id, at } of records)
        ref.store.add({ type: "invoice", data: { ...t, id, date: at, dueDate: at, createdAt: at } });
    },
  },
  {
    name: "expenses",
    path: "/api/v1/expenses",
    key: "date",
    schema: ExpenseJson,
    filter: { param: "status", values: EXPENSE_STATUSES },
    count: (ref, org) => ref.store.listExpenses(org, { limit: 1_000_000 }).length,
    add: (ref, org, records) => {
      const t = template(ref.store.listExpenses(org, { limit: 1 }), "expense");
      for (const { id, at } of records)
        ref.store.add({ type: "expense", data: { ...t, id, date: at, createdAt: at } });
    },
  },
];

const fresh = referencePerTest();
let ref: TestReference;
beforeEach(() => {
  ref = fresh.ref;
});

const fixtures = new Map<string, FixtureRecord[]>();
beforeAll(async () => {
  for (const spec of LISTS) fixtures.set(spec.name, await readFixture(spec.name));
});

const keyOf = (spec: ListSpec, record: { [field: string]: unknown }): number => {
  const value = record[spec.key];
  if (typeof value !== "string") throw new Error(`no ${spec.key} on a ${spec.name} record`);
  return Date.parse(value);
};

/**
 * Newest first (spec-gaps #7, DECISIONS.md): by the order key, then createdAt, then the later in the
 * file first (the fixtures are loaded in file order): the order the tests expect, from the files.
 */
function expectedOrder(
  spec: ListSpec,
  organizationId: string,
  keep: (r: FixtureRecord) => boolean = () => true,
) {
  return (fixtures.get(spec.name) ?? [])
    .map((record, position) => ({ record, position }))
    .filter(({ record }) => record.organizationId === organizationId && keep(record))
    .sort(
      (a, b) =>
        keyOf(spec, b.record) - keyOf(spec, a.record) ||
        Date.parse(b.record.createdAt) - Date.parse(a.record.createdAt) ||
        b.position - a.position,
    )
    .map(({ record }) => record);
}

async function list(spec: ListSpec, query = "", label = "lumiere-full") {
  const res = await request(ref.app).get(`${spec.path}${query}`).set(ref.auth(label));
  return expectData(res, 200) as { id: string; [field: string]: unknown }[];
}

const ids = (items: { id: string }[]) => items.map((i) => i.id);
const older = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => ({
    id: `${prefix}_old${String(i).padStart(4, "0")}`,
    at: new Date(Date.UTC(2020, 0, 1) + i * DAY),
  }));

describe.each(LISTS)("GET $path", (spec) => {
  const count = () => expectedOrder(spec, LUMIERE).length;

  it("serves every record of the organization, newest first, ties by createdAt", async () => {
    expect(count()).toBeGreaterThanOrEqual(8);
    expect(ids(await list(spec, "?limit=200"))).toEqual(ids(expectedOrder(spec, LUMIERE)));
  });

  it("serves records equal on the order key and createdAt last added first, whatever their ids", async () => {
    const at = new Date("2026-11-19T00:00:00.000Z");
    const tied = ["tie_b", "tie_C", "tie_a", "tie_0", "tie_B"];
    spec.add(
      ref,
      LUMIERE,
      tied.map((id) => ({ id, at })),
    );
    const served = ids(await list(spec, "?limit=5"));
    expect(served).toEqual(["tie_B", "tie_0", "tie_a", "tie_C", "tie_b"]);
  });

  describe("limit", () => {
    it("answers at most 50 items by default", async () => {
      spec.add(ref, LUMIERE, older(60, spec.name));
      const all = await list(spec, "?limit=200");
      expect(all.length).toBeGreaterThan(50);
      expect(ids(await list(spec))).toEqual(ids(all).slice(0, 50));
    });

    it("answers 200 items at limit=200 when there are more", async () => {
      spec.add(ref, LUMIERE, older(250, spec.name));
      const served = await list(spec, "?limit=200");
      expect(served).toHaveLength(200);
      expect(new Set(ids(served)).size).toBe(200);
    });

    it.each([1, 2, 7])("answers exactly the first %i items at limit=%i", async (limit) => {
      expect(ids(await list(spec, `?limit=${limit}`))).toEqual(
        ids(expectedOrder(spec, LUMIERE)).slice(0, limit),
      );
    });

    it("answers every item when limit is the count, one below or one above", async () => {
      const n = count();
      const all = ids(expectedOrder(spec, LUMIERE));
      expect(ids(await list(spec, `?limit=${n - 1}`))).toEqual(all.slice(0, n - 1));
      expect(ids(await list(spec, `?limit=${n}`))).toEqual(all);
      expect(ids(await list(spec, `?limit=${n + 1}`))).toEqual(all);
    });

    it.each([
      "limit=0",
      "limit=201",
      "limit=1000",
      "limit=-1",
      "limit=1.5",
      "limit=5.0",
      "limit=abc",
      "limit=050",
      "limit=",
      "limit=1e2",
      "limit=%205",
      "limit=+5",
      "limit=0x10",
      "limit=99999999999999999999",
      "limit=1&limit=2",
      "limit=5&limit=5",
    ])("refuses %s with 400 naming limit (spec-gaps #10)", async (query) => {
      const res = await request(ref.app).get(`${spec.path}?${query}`).set(ref.auth("lumiere-full"));
      expectInvalid(res, "limit");
    });
  });

  it("ignores unknown query parameters (spec-gaps #11)", async () => {
    const plain = ids(await list(spec));
    expect(ids(await list(spec, "?_=1700000000000&foo=bar&page=2&sort=asc&offset=10&Limit=1"))).toEqual(
      plain,
    );
  });

  describe("parameters behind 3 000 others (Node's query-string cap was 1 000)", () => {
    const filler = Array.from({ length: 3000 }, (_, i) => `f${i % 10}`).join("&");
    const behind = (query: string) =>
      request(ref.app).get(`${spec.path}?${filler}&${query}`).set(ref.auth("lumiere-full"));

    it.each([
      ["limit=0", "limit"],
      ["limit=1&limit=2", "limit"],
      ["before=garbage", "before"],
      ...(spec.filter === undefined ? [] : [[`${spec.filter.param}=BOGUS`, spec.filter.param]]),
    ])("still refuses %s naming it", async (query, field) => {
      expectInvalid(await behind(query), field);
    });

    it("still reads limit=1", async () => {
      expect(expectData(await behind("limit=1"), 200)).toHaveLength(1);
    });
  });

  describe("before (spec-gaps #8)", () => {
    const expectedBefore = (cut: number, limit = 200) =>
      ids(expectedOrder(spec, LUMIERE, (r) => keyOf(spec, r) < cut)).slice(0, limit);
    const pick = (index: number) => {
      const record = expectedOrder(spec, LUMIERE)[index];
      if (record === undefined) throw new Error(`no ${spec.name} record ${index}`);
      return record;
    };

    it("keeps only items strictly before a date (midnight UTC)", async () => {
      const date = new Date(keyOf(spec, pick(3))).toISOString().slice(0, 10);
      const served = await list(spec, `?limit=200&before=${date}`);
      expect(ids(served)).toEqual(expectedBefore(Date.parse(`${date}T00:00:00.000Z`)));
      for (const item of served) expect(keyOf(spec, item)).toBeLessThan(Date.parse(`${date}T00:00:00.000Z`));
    });

    it("excludes an item exactly at a date-time `before`", async () => {
      const record = pick(4);
      const at = new Date(keyOf(spec, record)).toISOString();
      const served = ids(await list(spec, `?limit=200&before=${at}`));
      expect(served).not.toContain(record.id);
      expect(served).toEqual(expectedBefore(keyOf(spec, record)));
      // One millisecond later, the item is back.
      const later = new Date(keyOf(spec, record) + 1).toISOString();
      expect(ids(await list(spec, `?limit=200&before=${later}`))).toContain(record.id);
    });

    // Served instants are whole milliseconds; a `before` between two of them keeps the earlier one.
    // The item is at midnight, an instant every list may serve (invoice and expense dates are midnights).
    it.each([
      { before: "2026-11-19T00:00:00.0000001Z", kept: true },
      { before: "2026-11-19T00:00:00.0009999999Z", kept: true },
      { before: "2026-11-18T20:00:00.0000001-04:00", kept: true },
      { before: "2026-11-19T00:00:00.000000000Z", kept: false },
      { before: "2026-11-18T23:59:59.9999999Z", kept: false },
    ])(
      "compares $before exactly with an item at 2026-11-19T00:00:00.000Z (kept: $kept)",
      async ({ before, kept }) => {
        const at = new Date("2026-11-19T00:00:00.000Z");
        spec.add(ref, LUMIERE, [{ id: `${spec.name}_submilli`, at }]);
        const served = await list(spec, `?limit=200&before=${encodeURIComponent(before)}`);
        expect(ids(served).includes(`${spec.name}_submilli`)).toBe(kept);
        for (const item of served) expect(keyOf(spec, item)).toBeLessThanOrEqual(at.getTime());
      },
    );

    it("reads a date-time with a numeric offset", async () => {
      const record = pick(2);
      const utc = keyOf(spec, record);
      // The same instant written at +02:00.
      const local = new Date(utc + 2 * 3_600_000).toISOString().replace("Z", "+02:00");
      const served = ids(await list(spec, `?limit=200&before=${encodeURIComponent(local)}`));
      expect(served).toEqual(expectedBefore(utc));
    });

    it("combines with limit", async () => {
      const cut = keyOf(spec, pick(1));
      expect(ids(await list(spec, `?limit=3&before=${new Date(cut).toISOString()}`))).toEqual(
        expectedBefore(cut, 3),
      );
    });

    it("answers an empty list before every item", async () => {
      expect(await list(spec, "?before=2000-01-01")).toEqual([]);
    });

    it("answers every item with a `before` after every item", async () => {
      expect(ids(await list(spec, "?limit=200&before=2100-01-01"))).toEqual(
        ids(expectedOrder(spec, LUMIERE)),
      );
    });

    it.each([
      "yesterday",
      "2026-02-30",
      "2026-02-29",
      "2026-13-01",
      "2026-1-5",
      "20261030",
      "1761782400000",
      "2026-10-30T12:00:00",
      "2026-10-30T12:00:00.000",
      "2026-10-30T25:00:00Z",
      "2026-10-30T12:00:00+0500",
      "2026-10-30 12:00:00Z",
      "",
      "null",
    ])("refuses the malformed before %j with 400 naming before", async (value) => {
      const res = await request(ref.app)
        .get(`${spec.path}?before=${encodeURIComponent(value)}`)
        .set(ref.auth("lumiere-full"));
      expectInvalid(res, "before");
    });

    it("refuses a repeated before", async () => {
      const res = await request(ref.app)
        .get(`${spec.path}?before=2026-01-01&before=2026-02-01`)
        .set(ref.auth("lumiere-full"));
      expectInvalid(res, "before");
    });
  });

  describe("served records", () => {
    it.each([
      ["lumiere-full", LUMIERE],
      ["boreal-full", BOREAL],
    ])("validate against the strict response schema (%s)", async (label) => {
      const served = await list(spec, "?limit=200", label);
      expect(served.length).toBeGreaterThan(0);
      for (const item of served) {
        const parsed = spec.schema.safeParse(item);
        expect(parsed.success, `${JSON.stringify(item)}: ${parsed.error?.message ?? ""}`).toBe(true);
      }
    });

    it("carry the values of the fixture records", async () => {
      const served = new Map((await list(spec, "?limit=200")).map((item) => [item.id, item]));
      for (const record of expectedOrder(spec, LUMIERE)) {
        const item = served.get(record.id);
        expect(item).toBeDefined();
        for (const [field, value] of Object.entries(record)) {
          if (field in (item ?? {})) expect(item?.[field], `${record.id}.${field}`).toEqual(value);
        }
        // Invoices and expenses serve their references as objects.
        if ("contactId" in record) {
          const contact = fixtures.get("contacts")?.find((c) => c.id === record.contactId);
          expect(item?.contact).toMatchObject({ id: record.contactId, name: contact?.name });
          if (spec.name === "invoices") expect(item?.contact).toMatchObject({ email: contact?.email });
        }
        if ("accountId" in record) expect(item?.account).toMatchObject({ id: record.accountId });
      }
    });
  });

  describe("organization isolation", () => {
    it("serves boreal exactly its own records", async () => {
      expect(ids(await list(spec, "?limit=200", "boreal-full"))).toEqual(ids(expectedOrder(spec, BOREAL)));
    });

    it("never serves one organization's records to the other", async () => {
      const lumiere = new Set(ids(await list(spec, "?limit=200", "lumiere-full")));
      for (const id of ids(await list(spec, "?limit=200", "boreal-full")))
        expect(lumiere.has(id)).toBe(false);
    });
  });

  if (spec.filter !== undefined) {
    const { param, values } = spec.filter;
    describe(`filter ${param}`, () => {
      it.each(values)(`answers only ${param}=%s, every one of them`, async (value) => {
        const served = await list(spec, `?limit=200&${param}=${value}`);
        for (const item of served) expect(item[param]).toBe(value);
        expect(ids(served)).toEqual(ids(expectedOrder(spec, LUMIERE, (r) => r[param] === value)));
      });

      it("combines with limit and before", async () => {
        const [value] = values;
        const cut = Date.parse("2026-06-01T00:00:00.000Z");
        const expected = ids(
          expectedOrder(spec, LUMIERE, (r) => r[param] === value && keyOf(spec, r) < cut),
        ).slice(0, 2);
        expect(ids(await list(spec, `?limit=2&before=2026-06-01&${param}=${value}`))).toEqual(expected);
      });

      it.each([values[0]?.toLowerCase(), "UNKNOWN", "", `${values[0]} `, `${values[0]},${values[1]}`])(
        `refuses ${param}=%j with 400 naming ${param}`,
        async (value) => {
          const res = await request(ref.app)
            .get(`${spec.path}?${param}=${encodeURIComponent(value ?? "")}`)
            .set(ref.auth("lumiere-full"));
          expectInvalid(res, param);
        },
      );

      it(`refuses a repeated ${param}`, async () => {
        const res = await request(ref.app)
          .get(`${spec.path}?${param}=${values[0]}&${param}=${values[1]}`)
          .set(ref.auth("lumiere-full"));
        expectInvalid(res, param);
      });
    });
  }
});

describe("contact type filter", () => {
  it("does not count BOTH as CLIENT or SUPPLIER", async () => {
    const contacts = LISTS[0] as ListSpec;
    for (const type of ["CLIENT", "SUPPLIER"]) {
      const served = await list(contacts, `?limit=200&type=${type}`);
      expect(served.length).toBeGreaterThan(0);
      expect(served.some((c) => c.type === "BOTH")).toBe(false);
    }
    expect((await list(contacts, "?limit=200&type=BOTH")).length).toBeGreaterThan(0);
  });

  it("serves a new contact in its own type only", async () => {
    const res = await request(ref.app)
      .post("/api/v1/contacts")
      .set(ref.auth("lumiere-full"))
      .send({ type: "BOTH", name: "Both ways" });
    const { id } = expectData(res, 201) as { id: string };
    const contacts = LISTS[0] as ListSpec;
    expect(ids(await list(contacts, "?type=BOTH"))).toContain(id);
    expect(ids(await list(contacts, "?limit=200&type=CLIENT"))).not.toContain(id);
    expect(ids(await list(contacts, "?limit=200&type=SUPPLIER"))).not.toContain(id);
  });
});

describe("products", () => {
  // §4 defines no filter on products: `type` is an unknown parameter there, ignored like any other.
  it("ignores a type parameter", async () => {
    const products = LISTS[1] as ListSpec;
    const all = ids(await list(products, "?limit=200"));
    expect(ids(await list(products, "?limit=200&type=SERVICE"))).toEqual(all);
  });
});

describe("before with sub-millisecond digits on the fixtures", () => {
  it("keeps the invoices dated 2026-10-30T00:00:00.000Z before 2026-10-30T00:00:00.0001Z", async () => {
    const res = await request(ref.app)
      .get("/api/v1/invoices?limit=200&before=2026-10-30T00:00:00.0001Z")
      .set(ref.auth("lumiere-full"));
    const dates = (expectData(res, 200) as { date: string }[]).map((i) => i.date);
    expect(dates.filter((d) => d === "2026-10-30T00:00:00.000Z")).toHaveLength(6);
  });
});

describe("paging with before", () => {
  // Contacts and products have distinct createdAt instants, so paging by the last item loses nothing.
  it.each(LISTS.filter((s) => s.key === "createdAt"))(
    "walks $path page by page without loss",
    async (spec) => {
      const walked: string[] = [];
      let query = "?limit=5";
      for (let page = 0; page < 20; page += 1) {
        const items = await list(spec, query);
        walked.push(...ids(items));
        const last = items.at(-1);
        if (items.length < 5 || last === undefined) break;
        query = `?limit=5&before=${String(last[spec.key])}`;
      }
      expect(walked).toEqual(ids(expectedOrder(spec, LUMIERE)));
    },
  );
});

describe("records created within one millisecond", () => {
  // The clock stands still, so every record below shares one createdAt; the ids sort against the
  // order of creation, so an order by id could not pass for the order of creation.
  let countdown = 0;
  const descendingIds = (prefix: string) => `${prefix}_${String(999 - (countdown += 1)).padStart(4, "0")}`;

  const creations = [
    {
      path: "/api/v1/contacts",
      body: (n: number) => ({ type: "CLIENT", name: `Same ms ${n}` }),
    },
    {
      path: "/api/v1/products",
      body: (n: number) => ({ sku: `SAME-MS-${n}`, name: `Same ms ${n}`, unitPrice: 1 }),
    },
  ];

  it.each(creations)("serves $path newest first in the order of creation", async ({ path, body }) => {
    const reference = await testReference({ ids: descendingIds });
    const created: string[] = [];
    for (let n = 0; n < 5; n += 1) {
      const res = await request(reference.app).post(path).set(reference.auth("lumiere-full")).send(body(n));
      created.push((expectData(res, 201) as { id: string }).id);
    }
    const served = await request(reference.app).get(`${path}?limit=5`).set(reference.auth("lumiere-full"));
    expect(ids(expectData(served, 200) as { id: string }[])).toEqual(created.reverse());
  });

  // The hole of §4's recipe (README, DECISIONS.md #9): `before` is a time, and a page that ends inside
  // a millisecond cannot say where in it to resume.
  it.each(creations)(
    "loses the rest of a millisecond when $path is paged by before",
    async ({ path, body }) => {
      const reference = await testReference({ ids: descendingIds });
      for (let n = 0; n < 4; n += 1) {
        await request(reference.app).post(path).set(reference.auth("lumiere-full")).send(body(n));
      }
      const read = async (query: string) =>
        expectData(
          await request(reference.app).get(`${path}?${query}`).set(reference.auth("lumiere-full")),
          200,
        ) as { id: string; createdAt: string }[];
      const first = await read("limit=2");
      const next = await read(`limit=2&before=${first.at(-1)?.createdAt ?? ""}`);
      const all = await read("limit=200");
      const lost = ids(all).filter((id) => !ids(first).includes(id) && !ids(next).includes(id));
      expect(lost.slice(0, 2)).toEqual(ids(all).slice(2, 4));
    },
  );
});

describe("isolation of created records", () => {
  it.each([
    ["boreal-full", "lumiere-full"],
    ["lumiere-full", "boreal-full"],
  ])("what %s creates never appears in the lists of %s", async (creator, reader) => {
    const contact = await request(ref.app)
      .post("/api/v1/contacts")
      .set(ref.auth(creator))
      .send({ type: "CLIENT", name: "Isolated" });
    const product = await request(ref.app)
      .post("/api/v1/products")
      .set(ref.auth(creator))
      .send({ sku: "ISOLATED-1", name: "Isolated", unitPrice: 1 });
    const contactId = (expectData(contact, 201) as { id: string }).id;
    const productId = (expectData(product, 201) as { id: string }).id;
    const [contacts, products] = [LISTS[0], LISTS[1]] as [ListSpec, ListSpec];
    expect(ids(await list(contacts, "?limit=200", creator))).toContain(contactId);
    expect(ids(await list(products, "?limit=200", creator))).toContain(productId);
    expect(ids(await list(contacts, "?limit=200", reader))).not.toContain(contactId);
    expect(ids(await list(products, "?limit=200", reader))).not.toContain(productId);
    for (const type of CONTACT_TYPES) {
      expect(ids(await list(contacts, `?limit=200&type=${type}`, reader))).not.toContain(contactId);
    }
  });
});

describe("money and dates", () => {
  const money = /^\d+\.\d{4}$/;
  const midnight = /^\d{4}-\d{2}-\d{2}T00:00:00\.000Z$/;

  it.each([
    ["lumiere-full", "/api/v1/invoices", "subtotal"],
    ["boreal-full", "/api/v1/invoices", "subtotal"],
    ["lumiere-full", "/api/v1/expenses", "amount"],
    ["boreal-full", "/api/v1/expenses", "amount"],
  ])(
    "%s %s: total = %s + tps + tvq, every amount a 4-decimal string, dates at midnight",
    async (label, path, base) => {
      const res = await request(ref.app).get(`${path}?limit=200`).set(ref.auth(label));
      const items = expectData(res, 200) as Record<string, unknown>[];
      expect(items.length).toBeGreaterThan(0);
      for (const item of items) {
        for (const field of [base, "tps", "tvq", "total"]) expect(item[field]).toMatch(money);
        const sum = new Decimal(String(item[base])).plus(String(item.tps)).plus(String(item.tvq));
        expect(new Decimal(String(item.total)).equals(sum), `${String(item.id)}: total`).toBe(true);
        expect(item.date).toMatch(midnight);
        if (path.endsWith("invoices")) expect(item.dueDate).toMatch(midnight);
      }
    },
  );

  it("serves product prices as 4-decimal strings", async () => {
    const res = await request(ref.app).get("/api/v1/products?limit=200").set(ref.auth("lumiere-full"));
    for (const item of expectData(res, 200) as { unitPrice: unknown }[])
      expect(item.unitPrice).toMatch(money);
  });

  it("serves timestamps in UTC with milliseconds and a Z", async () => {
    for (const spec of LISTS) {
      for (const item of await list(spec, "?limit=200")) {
        expect(item.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      }
    }
  });
});
