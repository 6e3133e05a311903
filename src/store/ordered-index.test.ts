import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { OrderedIndex } from "./ordered-index.js";

interface Item {
  id: string;
  at: number;
  tie: number;
}

const seed = Number(process.env.FC_SEED ?? 20261122);
// Few distinct keys and ties, so that items equal on both are common and insertion order decides.
const itemArb = fc.record({
  id: fc.stringMatching(/^[a-d]{1,3}$/),
  at: fc.integer({ min: 0, max: 20 }),
  tie: fc.integer({ min: 0, max: 2 }),
});
const itemsArb = fc.uniqueArray(itemArb, { selector: (i) => i.id, maxLength: 60 });

/** The obvious model: sort everything (the later inserted first among equals), filter, take. */
const model = (items: Item[], limit: number, before?: number) =>
  items
    .map((item, position) => ({ item, position }))
    .sort((a, b) => b.item.at - a.item.at || b.item.tie - a.item.tie || b.position - a.position)
    .map(({ item }) => item)
    .filter((i) => before === undefined || i.at < before)
    .slice(0, limit);

const indexOf = () =>
  new OrderedIndex<Item>(
    (i) => i.at,
    (i) => i.tie,
  );

describe("OrderedIndex", () => {
  it("serves newest first by key, then tie, then the last inserted, in any insertion order", () => {
    fc.assert(
      fc.property(
        itemsArb,
        fc.integer({ min: 1, max: 80 }),
        fc.option(fc.integer({ min: -1, max: 22 }), { nil: undefined }),
        (items, limit, before) => {
          const index = indexOf();
          items.forEach((i) => index.insert(i));
          expect(index.newestFirst(limit, before)).toEqual(model(items, limit, before));
          expect(index.size).toBe(items.length);
        },
      ),
      { seed, numRuns: 300 },
    );
  });

  it("serves items equal on key and tie last inserted first, whatever their ids", () => {
    const index = indexOf();
    for (const id of ["b", "a", "c"]) index.insert({ id, at: 5, tie: 1 });
    expect(index.newestFirst(10).map((i) => i.id)).toEqual(["c", "a", "b"]);
  });

  it("excludes an item exactly at `before`", () => {
    const index = indexOf();
    index.insert({ id: "a", at: 10, tie: 0 });
    index.insert({ id: "b", at: 9, tie: 0 });
    expect(index.newestFirst(10, 10).map((i) => i.id)).toEqual(["b"]);
  });

  it("reads a page without visiting the rest of the collection", () => {
    let keyReads = 0;
    const index = new OrderedIndex<Item>((i) => {
      keyReads += 1;
      return i.at;
    });
    for (let n = 0; n < 100_000; n += 1) index.insert({ id: String(n).padStart(6, "0"), at: n, tie: 0 });
    keyReads = 0;
    const page = index.newestFirst(50, 60_000);
    expect(page[0]?.at).toBe(59_999);
    expect(page).toHaveLength(50);
    // A binary search over 100 000 items reads about 17 keys; a scan would read 100 000.
    expect(keyReads).toBeLessThanOrEqual(20);
  });
});
