import request from "supertest";
import { describe, expect, it } from "vitest";
import {
  ENDPOINTS,
  describeEndpoint,
  expectData,
  expectError,
  type TestReference,
} from "../../test-support/reference.js";
import { ctl } from "../../test-support/control.js";
import { snapshotOf, threeStates, type TestSandbox } from "../../test-support/sandboxes.js";

// The API and sandboxes: a sandbox is reached through its tokens only, and keeps its own records, token
// states, rate-limit windows, journal and latency.

const ids = async (ref: TestReference, s: TestSandbox, list: string, label = "lumiere-full") => {
  const res = await request(ref.app).get(`${list}?limit=200`).set(s.auth(label));
  return (expectData(res, 200) as { id: string }[]).map((r) => r.id);
};

describe("the API reaches a sandbox through its tokens only", () => {
  it.each(ENDPOINTS.filter((e) => e.method === "get").map((e) => ({ e, name: describeEndpoint(e) })))(
    "$name: each reads its own copy, the same records under other ids",
    async ({ e }) => {
      const { ref, all } = await threeStates();
      const lists = await Promise.all(all.map((s) => ids(ref, s, e.path)));
      expect(lists[1]?.length).toBe(lists[0]?.length);
      expect(lists[2]?.length).toBe(lists[0]?.length);
      expect(new Set(lists.flat()).size).toBe(lists.flat().length);
    },
  );

  it.each(ENDPOINTS.filter((e) => e.method === "post").map((e) => ({ e, name: describeEndpoint(e) })))(
    "$name: a creation lands in that state alone",
    async ({ e }) => {
      const { ref, a, all } = await threeStates();
      const before = all.map((s) => snapshotOf(s.state()).records);
      const body = e.path.endsWith("contacts")
        ? { type: "CLIENT", name: "Only in A" }
        : { sku: "ONLY-A", name: "Only in A", unitPrice: 1 };
      const created = expectData(
        await request(ref.app).post(e.path).set(a.auth("lumiere-full")).send(body),
        201,
      ) as {
        id: string;
      };
      expect(await ids(ref, a, e.path)).toContain(created.id);
      const after = all.map((s) => snapshotOf(s.state()).records);
      expect(after[0]).toBe(before[0]);
      expect(after[2]).toBe(before[2]);
      expect(after[1]).not.toBe(before[1]);
      // The same sku is free in the other worlds (spec-gaps #20 holds per organization, and per world).
      if (!e.path.endsWith("contacts")) {
        for (const s of all.filter((x) => x !== a)) {
          expectData(await request(ref.app).post(e.path).set(s.auth("lumiere-full")).send(body), 201);
        }
      }
    },
  );

  it("answers a sandbox's token states as the default state does: revoked, expired, no scope, no plan", async () => {
    const { ref, a } = await threeStates();
    const get = (label: string) => request(ref.app).get("/api/v1/contacts").set(a.auth(label));
    expectError(await get("lumiere-revoked"), 401, "unauthorized");
    expectError(await get("lumiere-expired"), 401, "unauthorized");
    expectError(await get("lumiere-products-read"), 403, "forbidden");
    expectError(await get("petitpas-full"), 403, "forbidden");
    expectData(await get("lumiere-contacts-read"), 200);
  });

  it("counts each state's requests in its own rate-limit windows", async () => {
    const { ref, a, b, main } = await threeStates({ rateLimit: { limit: 2, windowMs: 60_000 } });
    const get = (s: TestSandbox) => request(ref.app).get("/api/v1/contacts").set(s.auth("lumiere-full"));
    expectData(await get(a), 200);
    expectData(await get(a), 200);
    expectError(await get(a), 429, "rate_limited");
    expectData(await get(b), 200);
    expectData(await get(main), 200);
  });

  it("journals each request in the journal of the state that answered it", async () => {
    const { ref, a, b, main } = await threeStates();
    await request(ref.app).get("/api/v1/invoices").set(a.auth("boreal-full"));
    await request(ref.app).get("/api/v1/expenses").set(b.auth("lumiere-full"));
    await request(ref.app).get("/api/v1/products");
    expect(
      a
        .state()
        .journal.list()
        .map((e) => [e.path, e.token, e.organization]),
    ).toEqual([["/api/v1/invoices", "boreal-full", a.organizations.org_boreal]]);
    expect(
      b
        .state()
        .journal.list()
        .map((e) => e.path),
    ).toEqual(["/api/v1/expenses"]);
    // No token: the default state's, as always.
    expect(
      main
        .state()
        .journal.list()
        .map((e) => [e.path, e.status]),
    ).toEqual([["/api/v1/products", 401]]);
  });

  it("applies a sandbox's own latency, and only to its requests", async () => {
    const { ref, a, main } = await threeStates();
    expect((await ctl(ref).put(`/sandboxes/${a.id}/latency`, { minMs: 150 })).status).toBe(200);
    let started = performance.now();
    expectData(await request(ref.app).get("/api/v1/contacts").set(a.auth("lumiere-full")), 200);
    // A lower bound only: the delay is real time.
    expect(performance.now() - started).toBeGreaterThanOrEqual(145);
    expect(main.state().latency).toBeNull();
    started = performance.now();
    expectData(await request(ref.app).get("/api/v1/contacts").set(main.auth("lumiere-full")), 200);
    expect(a.state().journal.list()[0]?.durationMs).toBeGreaterThanOrEqual(145);
  });
});
