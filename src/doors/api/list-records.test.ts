import { Decimal } from "decimal.js";
import request from "supertest";
import { describe, expect } from "vitest";
import { CONTACT_TYPES } from "../../model/records.js";
import { expectData } from "../../test-support/reference.js";
import { BOREAL, CONTACTS, LISTS, LUMIERE, PRODUCTS, ids, listTest } from "../../test-support/lists.js";

// What the lists serve: the fixtures' values in the shapes of §2, each organization its own alone.

const it = listTest;

describe.each(LISTS)("GET $path", (spec) => {
  describe("served records", () => {
    it.for([
      ["lumiere-full", LUMIERE],
      ["boreal-full", BOREAL],
    ] as const)("validate against the strict response schema (%s)", async ([label], { h }) => {
      const served = await h.list(spec, "?limit=200", label);
      expect(served.length).toBeGreaterThan(0);
      for (const item of served) {
        const parsed = spec.schema.safeParse(item);
        expect(parsed.success, `${JSON.stringify(item)}: ${parsed.error?.message ?? ""}`).toBe(true);
      }
    });

    it("carry the values of the fixture records", async ({ h }) => {
      const served = new Map((await h.list(spec, "?limit=200")).map((item) => [item.id, item]));
      for (const record of h.expectedOrder(spec, LUMIERE)) {
        const item = served.get(record.id);
        expect(item).toBeDefined();
        for (const [field, value] of Object.entries(record)) {
          if (field in (item ?? {})) expect(item?.[field], `${record.id}.${field}`).toEqual(value);
        }
        // Invoices and expenses serve their references as objects.
        if ("contactId" in record) {
          const contact = h.fixtures("contacts").find((c) => c.id === record.contactId);
          expect(item?.contact).toMatchObject({ id: record.contactId, name: contact?.name });
          if (spec.name === "invoices") expect(item?.contact).toMatchObject({ email: contact?.email });
        }
        if ("accountId" in record) expect(item?.account).toMatchObject({ id: record.accountId });
      }
    });
  });

  describe("organization isolation", () => {
    it("serves boreal exactly its own records", async ({ h }) => {
      expect(ids(await h.list(spec, "?limit=200", "boreal-full"))).toEqual(
        ids(h.expectedOrder(spec, BOREAL)),
      );
    });

    it("never serves one organization's records to the other", async ({ h }) => {
      const lumiere = new Set(ids(await h.list(spec, "?limit=200", "lumiere-full")));
      for (const id of ids(await h.list(spec, "?limit=200", "boreal-full")))
        expect(lumiere.has(id)).toBe(false);
    });
  });
});

describe("isolation of created records", () => {
  it.for([
    ["boreal-full", "lumiere-full"],
    ["lumiere-full", "boreal-full"],
  ] as const)("what %s creates never appears in the lists of %s", async ([creator, reader], { h }) => {
    const contact = await request(h.ref.app)
      .post("/api/v1/contacts")
      .set(h.ref.auth(creator))
      .send({ type: "CLIENT", name: "Isolated" });
    const product = await request(h.ref.app)
      .post("/api/v1/products")
      .set(h.ref.auth(creator))
      .send({ sku: "ISOLATED-1", name: "Isolated", unitPrice: 1 });
    const contactId = (expectData(contact, 201) as { id: string }).id;
    const productId = (expectData(product, 201) as { id: string }).id;
    expect(ids(await h.list(CONTACTS, "?limit=200", creator))).toContain(contactId);
    expect(ids(await h.list(PRODUCTS, "?limit=200", creator))).toContain(productId);
    expect(ids(await h.list(CONTACTS, "?limit=200", reader))).not.toContain(contactId);
    expect(ids(await h.list(PRODUCTS, "?limit=200", reader))).not.toContain(productId);
    for (const type of CONTACT_TYPES) {
      expect(ids(await h.list(CONTACTS, `?limit=200&type=${type}`, reader))).not.toContain(contactId);
    }
  });
});

describe("money and dates", () => {
  const money = /^\d+\.\d{4}$/;
  const midnight = /^\d{4}-\d{2}-\d{2}T00:00:00\.000Z$/;

  it.for([
    ["lumiere-full", "/api/v1/invoices", "subtotal"],
    ["boreal-full", "/api/v1/invoices", "subtotal"],
    ["lumiere-full", "/api/v1/expenses", "amount"],
    ["boreal-full", "/api/v1/expenses", "amount"],
  ] as const)(
    "%s %s: total = %s + tps + tvq, every amount a 4-decimal string, dates at midnight",
    async ([label, path, base], { h }) => {
      const res = await h.get(`${path}?limit=200`, label);
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

  it("serves product prices as 4-decimal strings", async ({ h }) => {
    const res = await h.get("/api/v1/products?limit=200");
    for (const item of expectData(res, 200) as { unitPrice: unknown }[])
      expect(item.unitPrice).toMatch(money);
  });

  it("serves timestamps in UTC with milliseconds and a Z", async ({ h }) => {
    for (const spec of LISTS) {
      for (const item of await h.list(spec, "?limit=200")) {
        expect(item.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      }
    }
  });
});
