import request from "supertest";
import { describe, expect } from "vitest";
import { expectData, testReference } from "../../test-support/reference.js";
import { LISTS, LUMIERE, addRecords, ids, listTest, type ListHarness } from "../../test-support/lists.js";

// The order every list serves: newest first, ties and pages included (spec-gaps #7).

const it = listTest;

describe.each(LISTS)("GET $path", (spec) => {
  const count = (h: ListHarness) => h.expectedOrder(spec, LUMIERE).length;

  it("serves every record of the organization, newest first, ties by createdAt", async ({ h }) => {
    expect(count(h)).toBeGreaterThanOrEqual(8);
    expect(ids(await h.list(spec, "?limit=200"))).toEqual(ids(h.expectedOrder(spec, LUMIERE)));
  });

  it("serves records equal on the order key and createdAt last added first, whatever their ids", async ({
    h,
  }) => {
    const at = new Date("2026-11-19T00:00:00.000Z");
    const tied = ["tie_b", "tie_C", "tie_a", "tie_0", "tie_B"];
    addRecords(
      h.ref,
      spec,
      LUMIERE,
      tied.map((id) => ({ id, at })),
    );
    const served = ids(await h.list(spec, "?limit=5"));
    expect(served).toEqual(["tie_B", "tie_0", "tie_a", "tie_C", "tie_b"]);
  });
});

describe("paging with before", () => {
  // Contacts and products have distinct createdAt instants, so paging by the last item loses nothing.
  it.for(LISTS.filter((s) => s.key === "createdAt"))(
    "walks $path page by page without loss",
    async (spec, { h }) => {
      const walked: string[] = [];
      let query = "?limit=5";
      for (let page = 0; page < 20; page += 1) {
        const items = await h.list(spec, query);
        walked.push(...ids(items));
        const last = items.at(-1);
        if (items.length < 5 || last === undefined) break;
        query = `?limit=5&before=${String(last[spec.key])}`;
      }
      expect(walked).toEqual(ids(h.expectedOrder(spec, LUMIERE)));
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
