import fc from "fast-check";
import request from "supertest";
import { describe, expect, it } from "vitest";
import {
  checkProperty,
  expectData,
  expectError,
  expectInvalid,
  type TestReference,
} from "../../test-support/reference.js";
import { api, controlledReference, createContact, ctl } from "../../test-support/control.js";

// A reset: the state back to the fixtures, over HTTP (the door) and in process (`ref.control`).

const ORGS = ["org_lumiere", "org_boreal"] as const;
const LABEL = { org_lumiere: "lumiere-full", org_boreal: "boreal-full" } as const;

const ids = async (ref: TestReference, label: string, list: string) =>
  (expectData(await api(ref, label, `/api/v1/${list}?limit=200`), 200) as { id: string }[]).map((r) => r.id);

/** Everything a reset promises to put back, read from outside and inside. */
async function snapshot(ref: TestReference) {
  const lists: Record<string, string[]> = {};
  for (const org of ORGS) {
    for (const list of ["contacts", "products", "invoices", "expenses"]) {
      lists[`${org} ${list}`] = await ids(ref, LABEL[org], list);
    }
  }
  const tokens = ref.store
    .organizations()
    .map((o) => ref.tokens.list(o.id).map((t) => ({ id: t.id, name: t.name, status: t.status })));
  return { lists, tokens, faults: ref.control.faults() };
}
describe("POST /__control/reset", () => {
  /** Changes every part of the state a reset covers. */
  async function dirty(ref: TestReference) {
    expectData(await createContact(ref, "lumiere-full", "Created in org_lumiere"), 201);
    expectData(await createContact(ref, "boreal-full", "Created in org_boreal"), 201);
    ref.tokens.revoke(ref.tokenId("lumiere-contacts-read"));
    const created = ref.tokens.create({
      organizationId: "org_lumiere",
      name: "made",
      scopes: ["contacts:read"],
    });
    ref.control.addFault({ method: "POST", path: "/api/v1/products", status: 500, times: 5 });
    return created.token;
  }

  it("puts records, tokens and their usage, faults and the journal back to the fixtures", async () => {
    const ref = await controlledReference();
    const fresh = await snapshot(ref);
    const made = await dirty(ref);
    expect(await snapshot(ref)).not.toEqual(fresh);

    const res = await ctl(ref).post("/reset");
    expect(res.status).toBe(200);
    expect((res.body as { organizations: string[] }).organizations).toEqual(
      ref.store.organizations().map((o) => o.id),
    );
    expect(ref.control.journal()).toEqual([]);
    expect(await snapshot(ref)).toEqual(fresh);
    expect(ref.tokens.get(ref.tokenId("lumiere-full"))?.requestCount).toBe(4); // the four reads of the snapshot after the reset
    expectError(
      await request(ref.app).get("/api/v1/contacts").set("Authorization", `Bearer ${made}`),
      401,
      "unauthorized",
    );
  });

  it("puts the clock back as it started, and the latency", async () => {
    const ref = await controlledReference({ latency: { minMs: 0, maxMs: 1 } });
    ref.control.setClock({ advance: "P3D", frozen: true });
    ref.state.latency = { minMs: 5, maxMs: 9 };
    await ctl(ref).post("/reset");
    expect(ref.control.clock()).toEqual({ now: "2026-11-20T12:00:00.000Z", frozen: false, offsetMs: 0 });
    expect(ref.state.latency).toEqual({ minMs: 0, maxMs: 1 });
  });

  it("of one organization leaves the clock, which every organization shares", async () => {
    const ref = await controlledReference();
    ref.control.setClock({ advance: "P3D" });
    ref.control.reset({ organization: "org_lumiere" });
    expect(ref.control.clock().now).toBe("2026-11-23T12:00:00.000Z");
  });

  it("zeroes the usage of the fixture tokens, which keep their ids", async () => {
    const ref = await controlledReference();
    const id = ref.tokenId("lumiere-full");
    await api(ref, "lumiere-full");
    expect(ref.tokens.get(id)?.requestCount).toBe(1);
    ref.control.reset();
    expect(ref.tokenId("lumiere-full")).toBe(id);
    expect(ref.tokens.get(id)).toMatchObject({ requestCount: 0, lastUsedAt: null, status: "Active" });
  });

  it("gives a rate-limited token its quota back", async () => {
    const ref = await controlledReference({ rateLimit: { limit: 2, windowMs: 60_000 } });
    await api(ref, "lumiere-full");
    await api(ref, "lumiere-full");
    expectError(await api(ref, "lumiere-full"), 429, "rate_limited");
    await ctl(ref).post("/reset");
    expectData(await api(ref, "lumiere-full"), 200);
  });

  it("with { organization } resets that organization only", async () => {
    const ref = await controlledReference();
    const fresh = await snapshot(ref);
    await dirty(ref);
    ref.control.addFault({ organization: "org_lumiere", status: 500 });
    const res = await ctl(ref).post("/reset", { organization: "org_lumiere" });
    expect(res.status).toBe(200);
    const after = await snapshot(ref);
    expect(after.lists["org_lumiere contacts"]).toEqual(fresh.lists["org_lumiere contacts"]);
    expect(after.tokens[0]).toEqual(fresh.tokens[0]);
    expect(after.lists["org_boreal contacts"]).toHaveLength(
      (fresh.lists["org_boreal contacts"]?.length ?? 0) + 1,
    );
    // The fault aimed at org_lumiere went with it; the one aimed at every organization stays.
    expect(after.faults.map((f) => f.path)).toEqual(["/api/v1/products"]);
  });

  it("refuses an unknown organization or field with 400 and changes nothing", async () => {
    const ref = await controlledReference();
    await createContact(ref, "lumiere-full", "Kept");
    const before = await snapshot(ref);
    expectInvalid(await ctl(ref).post("/reset", { organization: "org_nowhere" }), "organization");
    expectInvalid(await ctl(ref).post("/reset", { organisation: "org_lumiere" }), "organisation");
    expect(() => ref.control.reset({ organization: "org_nowhere" })).toThrow(/organization/);
    expect(await snapshot(ref)).toEqual(before);
  });

  it("after any sequence of creates, gives the lists of a fresh start", async () => {
    const ref = await controlledReference();
    const fresh = await snapshot(ref);
    const create = fc.record({
      org: fc.constantFrom(...ORGS),
      kind: fc.constantFrom("contacts", "products"),
      name: fc.string({ minLength: 1, maxLength: 20 }).filter((s) => s.trim() !== ""),
    });
    let n = 0;
    await checkProperty(
      fc.asyncProperty(fc.array(create, { maxLength: 8 }), fc.boolean(), async (creates, inProcess) => {
        for (const c of creates) {
          n += 1;
          const body =
            c.kind === "contacts"
              ? { type: "SUPPLIER", name: `x${c.name}` }
              : { sku: `SKU-${n}`, name: `x${c.name}`, unitPrice: 1 };
          const res = await request(ref.app).post(`/api/v1/${c.kind}`).set(ref.auth(LABEL[c.org])).send(body);
          expect(res.status).toBe(201);
        }
        if (inProcess) ref.control.reset();
        else expect((await ctl(ref).post("/reset")).status).toBe(200);
        const after = await snapshot(ref);
        expect(after.lists).toEqual(fresh.lists);
        expect(after.tokens).toEqual(fresh.tokens);
      }),
      20,
    );
  });
});
