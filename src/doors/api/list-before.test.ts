import { describe, expect } from "vitest";
import { expectData, expectInvalid } from "../../test-support/reference.js";
import {
  LISTS,
  LUMIERE,
  addRecords,
  ids,
  keyOf,
  listTest,
  type ListHarness,
} from "../../test-support/lists.js";

// `before` on every list: a date or a date-time, compared exactly (spec-gaps #8).

const it = listTest;

describe.each(LISTS)("GET $path", (spec) => {
  describe("before (spec-gaps #8)", () => {
    const expectedBefore = (h: ListHarness, cut: number, limit = 200) =>
      ids(h.expectedOrder(spec, LUMIERE, (r) => keyOf(spec, r) < cut)).slice(0, limit);
    const pick = (h: ListHarness, index: number) => {
      const record = h.expectedOrder(spec, LUMIERE)[index];
      if (record === undefined) throw new Error(`no ${spec.name} record ${index}`);
      return record;
    };

    it("keeps only items strictly before a date (midnight UTC)", async ({ h }) => {
      const date = new Date(keyOf(spec, pick(h, 3))).toISOString().slice(0, 10);
      const served = await h.list(spec, `?limit=200&before=${date}`);
      expect(ids(served)).toEqual(expectedBefore(h, Date.parse(`${date}T00:00:00.000Z`)));
      for (const item of served) expect(keyOf(spec, item)).toBeLessThan(Date.parse(`${date}T00:00:00.000Z`));
    });

    it("excludes an item exactly at a date-time `before`", async ({ h }) => {
      const record = pick(h, 4);
      const at = new Date(keyOf(spec, record)).toISOString();
      const served = ids(await h.list(spec, `?limit=200&before=${at}`));
      expect(served).not.toContain(record.id);
      expect(served).toEqual(expectedBefore(h, keyOf(spec, record)));
      // One millisecond later, the item is back.
      const later = new Date(keyOf(spec, record) + 1).toISOString();
      expect(ids(await h.list(spec, `?limit=200&before=${later}`))).toContain(record.id);
    });

    // Served instants are whole milliseconds; a `before` between two of them keeps the earlier one.
    // The item is at midnight, an instant every list may serve (invoice and expense dates are midnights).
    it.for([
      { before: "2026-11-19T00:00:00.0000001Z", kept: true },
      { before: "2026-11-19T00:00:00.0009999999Z", kept: true },
      { before: "2026-11-18T20:00:00.0000001-04:00", kept: true },
      { before: "2026-11-19T00:00:00.000000000Z", kept: false },
      { before: "2026-11-18T23:59:59.9999999Z", kept: false },
    ])(
      "compares $before exactly with an item at 2026-11-19T00:00:00.000Z (kept: $kept)",
      async ({ before, kept }, { h }) => {
        const at = new Date("2026-11-19T00:00:00.000Z");
        addRecords(h.ref, spec, LUMIERE, [{ id: `${spec.name}_submilli`, at }]);
        const served = await h.list(spec, `?limit=200&before=${encodeURIComponent(before)}`);
        expect(ids(served).includes(`${spec.name}_submilli`)).toBe(kept);
        for (const item of served) expect(keyOf(spec, item)).toBeLessThanOrEqual(at.getTime());
      },
    );

    it("reads a date-time with a numeric offset", async ({ h }) => {
      const record = pick(h, 2);
      const utc = keyOf(spec, record);
      // The same instant written at +02:00.
      const local = new Date(utc + 2 * 3_600_000).toISOString().replace("Z", "+02:00");
      const served = ids(await h.list(spec, `?limit=200&before=${encodeURIComponent(local)}`));
      expect(served).toEqual(expectedBefore(h, utc));
    });

    it("combines with limit", async ({ h }) => {
      const cut = keyOf(spec, pick(h, 1));
      expect(ids(await h.list(spec, `?limit=3&before=${new Date(cut).toISOString()}`))).toEqual(
        expectedBefore(h, cut, 3),
      );
    });

    it("answers an empty list before every item", async ({ h }) => {
      expect(await h.list(spec, "?before=2000-01-01")).toEqual([]);
    });

    it("answers every item with a `before` after every item", async ({ h }) => {
      expect(ids(await h.list(spec, "?limit=200&before=2100-01-01"))).toEqual(
        ids(h.expectedOrder(spec, LUMIERE)),
      );
    });

    it.for([
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
    ])("refuses the malformed before %j with 400 naming before", async (value, { h }) => {
      const res = await h.get(`${spec.path}?before=${encodeURIComponent(value)}`);
      expectInvalid(res, "before");
    });

    it("refuses a repeated before", async ({ h }) => {
      const res = await h.get(`${spec.path}?before=2026-01-01&before=2026-02-01`);
      expectInvalid(res, "before");
    });
  });
});

describe("before with sub-millisecond digits on the fixtures", () => {
  it("keeps the invoices dated 2026-10-30T00:00:00.000Z before 2026-10-30T00:00:00.0001Z", async ({ h }) => {
    const res = await h.get("/api/v1/invoices?limit=200&before=2026-10-30T00:00:00.0001Z");
    const dates = (expectData(res, 200) as { date: string }[]).map((i) => i.date);
    expect(dates.filter((d) => d === "2026-10-30T00:00:00.000Z")).toHaveLength(6);
  });
});
