import { describe, expect } from "vitest";
import { expectData, expectInvalid } from "../../test-support/reference.js";
import {
  LISTS,
  LUMIERE,
  addRecords,
  ids,
  listTest,
  type ListHarness,
  older,
} from "../../test-support/lists.js";

// `limit` on every list, and what the query string may carry beside it (spec-gaps #10, #11).

const it = listTest;

describe.each(LISTS)("GET $path", (spec) => {
  const count = (h: ListHarness) => h.expectedOrder(spec, LUMIERE).length;

  describe("limit", () => {
    it("answers at most 50 items by default", async ({ h }) => {
      addRecords(h.ref, spec, LUMIERE, older(60, spec.name));
      const all = await h.list(spec, "?limit=200");
      expect(all.length).toBeGreaterThan(50);
      expect(ids(await h.list(spec))).toEqual(ids(all).slice(0, 50));
    });

    it("answers 200 items at limit=200 when there are more", async ({ h }) => {
      addRecords(h.ref, spec, LUMIERE, older(250, spec.name));
      const served = await h.list(spec, "?limit=200");
      expect(served).toHaveLength(200);
      expect(new Set(ids(served)).size).toBe(200);
    });

    it.for([1, 2, 7])("answers exactly the first %i items at limit=%i", async (limit, { h }) => {
      expect(ids(await h.list(spec, `?limit=${limit}`))).toEqual(
        ids(h.expectedOrder(spec, LUMIERE)).slice(0, limit),
      );
    });

    it("answers every item when limit is the count, one below or one above", async ({ h }) => {
      const n = count(h);
      const all = ids(h.expectedOrder(spec, LUMIERE));
      expect(ids(await h.list(spec, `?limit=${n - 1}`))).toEqual(all.slice(0, n - 1));
      expect(ids(await h.list(spec, `?limit=${n}`))).toEqual(all);
      expect(ids(await h.list(spec, `?limit=${n + 1}`))).toEqual(all);
    });

    it.for([
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
    ])("refuses %s with 400 naming limit (spec-gaps #10)", async (query, { h }) => {
      const res = await h.get(`${spec.path}?${query}`);
      expectInvalid(res, "limit");
    });
  });

  it("ignores unknown query parameters (spec-gaps #11)", async ({ h }) => {
    const plain = ids(await h.list(spec));
    expect(ids(await h.list(spec, "?_=1700000000000&foo=bar&page=2&sort=asc&offset=10&Limit=1"))).toEqual(
      plain,
    );
  });

  describe("parameters behind 3 000 others (Node's query-string cap was 1 000)", () => {
    const filler = Array.from({ length: 3000 }, (_, i) => `f${i % 10}`).join("&");
    const behind = (h: ListHarness, query: string) => h.get(`${spec.path}?${filler}&${query}`);

    it.for<readonly [string, string]>([
      ["limit=0", "limit"],
      ["limit=1&limit=2", "limit"],
      ["before=garbage", "before"],
      ...(spec.filter === undefined ? [] : [[`${spec.filter.param}=BOGUS`, spec.filter.param] as const]),
    ])("still refuses %s naming it", async ([query, field], { h }) => {
      expectInvalid(await behind(h, query), field);
    });

    it("still reads limit=1", async ({ h }) => {
      expect(expectData(await behind(h, "limit=1"), 200)).toHaveLength(1);
    });
  });
});
