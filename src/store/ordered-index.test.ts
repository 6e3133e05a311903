import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { OrderedIndex } from "./ordered-index.js";

interface Item {
  id: string;
  at: number;
}

const seed = Number(process.env.FC_SEED ?? 20261122);
// Few distinct keys and ids, so that ties are common and the tie-break is exercised.
const itemArb = fc.record({ id: fc.stringMatching(/^[a-d]{1,3}$/), at: fc.integer({ min: 0, max: 20 }) });
const itemsArb = fc.uniqueArray(itemArb, { selector: (i) => i.id, maxLength: 60 });

/** The obvious model: sort everything, filter, take. */
const model = (items: Item[], limit: number, before?: number) =>
  [...items]
    .sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
    .filter((i) => before === undefined || i.at < before)
    .slice(0, limit);

describe("OrderedIndex", () => {
  it("serves newest first, ties by id descending, in any insertion order", () => {
    fc.assert(
      fc.property(
        itemsArb,
        fc.integer({ min: 1, max: 80 }),
        fc.option(fc.integer({ min: -1, max: 22 }), { nil: undefined }),
        (items, limit, before) => {
          const index = new OrderedIndex<Item>((i) => i.at);
          items.forEach((i) => index.insert(i));
          expect(index.newestFirst(limit, before)).toEqual(model(items, limit, before));
          expect(index.size).toBe(items.length);
        },
      ),
      { seed, numRuns: 300 },
    );
  });

  it("excludes an item exactly at `before`", () => {
    const index = new OrderedIndex<Item>((i) => i.at);
    index.insert({ id: "a", at: 10 });
    index.insert({ id: "b", at: 9 });
    expect(index.newestFirst(10, 10).map((i) => i.id)).toEqual(["b"]);
  });

  it("reads a page without visiting the rest of the collection", () => {
    let keyReads = 0;
    const index = new OrderedIndex<Item>((i) => {
      keyReads += 1;
      return i.at;
    });
    for (let n = 0; n < 100_000; n += 1) index.insert({ id: String(n).padStart(6, "0"), at: n });
    keyReads = 0;
    const page = index.newestFirst(50, 60_000);
    expect(page[0]?.at).toBe(59_999);
    expect(page).toHaveLength(50);
    // A binary search over 100 000 items reads about 17 keys; a scan would read 100 000.
    expect(keyReads).toBeLessThanOrEqual(20);
  });
});
