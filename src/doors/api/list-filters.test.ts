import request from "supertest";
import { describe, expect } from "vitest";
import { expectData, expectInvalid } from "../../test-support/reference.js";
import { CONTACTS, LISTS, LUMIERE, PRODUCTS, ids, keyOf, listTest } from "../../test-support/lists.js";

// The filters of §4: contacts by type, invoices and expenses by status; none on products.

const it = listTest;

const FILTERED = LISTS.flatMap((spec) =>
  spec.filter === undefined ? [] : [{ spec, path: spec.path, ...spec.filter }],
);

describe.each(FILTERED)("GET $path", ({ spec, param, values }) => {
  describe(`filter ${param}`, () => {
    it.for(values)(`answers only ${param}=%s, every one of them`, async (value, { h }) => {
      const served = await h.list(spec, `?limit=200&${param}=${value}`);
      for (const item of served) expect(item[param]).toBe(value);
      expect(ids(served)).toEqual(ids(h.expectedOrder(spec, LUMIERE, (r) => r[param] === value)));
    });

    it("combines with limit and before", async ({ h }) => {
      const [value] = values;
      const cut = Date.parse("2026-06-01T00:00:00.000Z");
      const expected = ids(
        h.expectedOrder(spec, LUMIERE, (r) => r[param] === value && keyOf(spec, r) < cut),
      ).slice(0, 2);
      expect(ids(await h.list(spec, `?limit=2&before=2026-06-01&${param}=${value}`))).toEqual(expected);
    });

    it.for([values[0]?.toLowerCase(), "UNKNOWN", "", `${values[0]} `, `${values[0]},${values[1]}`])(
      `refuses ${param}=%j with 400 naming ${param}`,
      async (value, { h }) => {
        const res = await h.get(`${spec.path}?${param}=${encodeURIComponent(value ?? "")}`);
        expectInvalid(res, param);
      },
    );

    it(`refuses a repeated ${param}`, async ({ h }) => {
      const res = await h.get(`${spec.path}?${param}=${values[0]}&${param}=${values[1]}`);
      expectInvalid(res, param);
    });
  });
});

describe("contact type filter", () => {
  it("does not count BOTH as CLIENT or SUPPLIER", async ({ h }) => {
    for (const type of ["CLIENT", "SUPPLIER"]) {
      const served = await h.list(CONTACTS, `?limit=200&type=${type}`);
      expect(served.length).toBeGreaterThan(0);
      expect(served.some((c) => c.type === "BOTH")).toBe(false);
    }
    expect((await h.list(CONTACTS, "?limit=200&type=BOTH")).length).toBeGreaterThan(0);
  });

  it("serves a new contact in its own type only", async ({ h }) => {
    const res = await request(h.ref.app)
      .post("/api/v1/contacts")
      .set(h.ref.auth("lumiere-full"))
      .send({ type: "BOTH", name: "Both ways" });
    const { id } = expectData(res, 201) as { id: string };
    expect(ids(await h.list(CONTACTS, "?type=BOTH"))).toContain(id);
    expect(ids(await h.list(CONTACTS, "?limit=200&type=CLIENT"))).not.toContain(id);
    expect(ids(await h.list(CONTACTS, "?limit=200&type=SUPPLIER"))).not.toContain(id);
  });
});

describe("products", () => {
  // §4 defines no filter on products: `type` is an unknown parameter there, ignored like any other.
  it("ignores a type parameter", async ({ h }) => {
    const all = ids(await h.list(PRODUCTS, "?limit=200"));
    expect(ids(await h.list(PRODUCTS, "?limit=200&type=SERVICE"))).toEqual(all);
  });
});
