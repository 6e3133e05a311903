import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { expectData, expectInvalid, type TestReference } from "../../test-support/reference.js";
import { controlledReference, ctl } from "../../test-support/control.js";
import { seedContact } from "../../test-support/records.js";
import { createSandbox, snapshotOf } from "../../test-support/sandboxes.js";

// POST /__control/records: seeding in bulk, in the fixtures' format, checked by the fixtures' rules,
// all or nothing; on the default state and on a sandbox.

const post = (ref: TestReference, body: object, under = "") => ctl(ref).post(`${under}/records`, body);

const invoice = (organizationId: string, contactId: string, fields: object = {}) => ({
  organizationId,
  invoiceNumber: "SEED-0001",
  date: "2026-11-01T00:00:00.000Z",
  dueDate: "2026-12-01T00:00:00.000Z",
  status: "SENT",
  subtotal: "1000.0000",
  taxableSubtotal: "1000.0000",
  tps: "50.0000",
  tvq: "99.7500",
  total: "1149.7500",
  description: "Seeded invoice",
  contactId,
  ...fields,
});

/** The id of an organization's newest client. */
const firstClient = (ref: TestReference, organizationId: string): string =>
  ref.store.listContacts(organizationId, { limit: 1, type: "CLIENT" })[0]?.id ?? "";

const list = async (ref: TestReference, path: string, auth: { Authorization: string }) =>
  expectData(await request(ref.app).get(`${path}?limit=200`).set(auth), 200) as Record<string, unknown>[];

describe("POST /__control/records", () => {
  it("adds contacts, products, accounts, invoices and expenses at once, referring to each other", async () => {
    const ref = await controlledReference();
    const res = await post(ref, {
      contacts: [seedContact("org_lumiere", { id: "con_seeded1", name: "Seeded client" })],
      products: [
        {
          organizationId: "org_lumiere",
          sku: "SEED-1",
          name: "Seeded product",
          description: null,
          type: "SERVICE",
          unitPrice: "12.5000",
          taxable: true,
        },
      ],
      accounts: [{ id: "acc_seeded1", organizationId: "org_lumiere", code: "5999", name: "Seeded account" }],
      invoices: [invoice("org_lumiere", "con_seeded1")],
      expenses: [
        {
          organizationId: "org_lumiere",
          date: "2026-11-02T00:00:00.000Z",
          status: "APPROVED",
          amount: "100.0000",
          taxableAmount: "0.0000",
          tps: "0.0000",
          tvq: "0.0000",
          total: "100.0000",
          description: "Seeded expense",
          contactId: "con_seeded1",
          accountId: "acc_seeded1",
        },
      ],
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({
      added: { contacts: 1, products: 1, accounts: 1, invoices: 1, expenses: 1 },
      ids: { contacts: ["con_seeded1"], accounts: ["acc_seeded1"] },
    });
    const auth = ref.auth("lumiere-full");
    expect((await list(ref, "/api/v1/contacts", auth))[0]).toMatchObject({
      id: "con_seeded1",
      createdAt: "2026-11-20T12:00:00.000Z",
      updatedAt: "2026-11-20T12:00:00.000Z",
    });
    expect(await list(ref, "/api/v1/products", auth)).toContainEqual(
      expect.objectContaining({ sku: "SEED-1", unitPrice: "12.5000" }),
    );
    expect(await list(ref, "/api/v1/invoices", auth)).toContainEqual(
      expect.objectContaining({
        invoiceNumber: "SEED-0001",
        contact: { id: "con_seeded1", name: "Seeded client", email: null },
      }),
    );
    expect(await list(ref, "/api/v1/expenses", auth)).toContainEqual(
      expect.objectContaining({ account: { id: "acc_seeded1", code: "5999", name: "Seeded account" } }),
    );
  });

  it("adds a thousand contacts in one call, past the API's 100 a minute", async () => {
    const ref = await controlledReference({ rateLimit: { limit: 100, windowMs: 60_000 } });
    const contacts = Array.from({ length: 1000 }, (_, i) =>
      seedContact("org_boreal", {
        name: `Bulk ${i}`,
        createdAt: new Date(Date.UTC(2026, 10, 19, 0, 0, i)).toISOString(),
      }),
    );
    expect((await post(ref, { contacts })).status).toBe(201);
    expect(ref.store.countContacts("org_boreal")).toBeGreaterThanOrEqual(1000);
    expect((await list(ref, "/api/v1/contacts", ref.auth("boreal-full")))[0]).toMatchObject({
      name: "Bulk 999",
    });
  });

  it("refers to the state's own records: a fixture contact for an invoice", async () => {
    const ref = await controlledReference();
    const client = ref.store.listContacts("org_lumiere", { limit: 200, type: "CLIENT" })[0];
    expect((await post(ref, { invoices: [invoice("org_lumiere", client?.id ?? "")] })).status).toBe(201);
  });

  it.each([
    [
      "a sku the organization already has",
      (ref: TestReference) => ({
        products: [
          {
            organizationId: "org_lumiere",
            sku: ref.store.listProducts("org_lumiere", { limit: 1 })[0]?.sku,
            name: "Dup",
            description: null,
            type: "PRODUCT",
            unitPrice: "1.0000",
            taxable: false,
          },
        ],
      }),
      "products.0.sku",
      "duplicate sku",
    ],
    [
      "a wrong tps",
      (ref: TestReference) => ({
        invoices: [invoice("org_lumiere", firstClient(ref, "org_lumiere"), { tps: "49.0000" })],
      }),
      "invoices.0.tps",
      "expected 50.0000 (5 % of taxable 1000.0000), found 49.0000",
    ],
    [
      "a contact of another organization",
      (ref: TestReference) => ({
        invoices: [invoice("org_lumiere", firstClient(ref, "org_boreal"))],
      }),
      "invoices.0.contactId",
      'belongs to organization "org_boreal"',
    ],
    [
      "an unknown organization",
      () => ({ contacts: [seedContact("org_nowhere")] }),
      "contacts.0.organizationId",
      "not in the state's organizations",
    ],
    [
      "an unknown contact",
      () => ({ invoices: [invoice("org_lumiere", "con_nobody")] }),
      "invoices.0.contactId",
      'no contact with id "con_nobody" in contacts or the state',
    ],
    [
      "a date that is not midnight",
      (ref: TestReference) => ({
        invoices: [
          invoice("org_lumiere", firstClient(ref, "org_lumiere"), {
            date: "2026-11-01T10:00:00.000Z",
          }),
        ],
      }),
      "invoices.0.date",
      "midnight",
    ],
    [
      "an id the state already has",
      (ref: TestReference) => ({
        contacts: [
          seedContact("org_lumiere", { id: ref.store.listContacts("org_lumiere", { limit: 1 })[0]?.id }),
        ],
      }),
      "contacts.0.id",
      "already used by one of the state's records",
    ],
  ])(
    "refuses %s with 400 naming the record's field, and adds nothing of the call",
    async (_why, body, field, says) => {
      const ref = await controlledReference();
      const before = snapshotOf(ref.state).records;
      // A valid record first: all or nothing.
      const payload = body(ref) as Record<string, unknown[]>;
      const withValid = {
        ...payload,
        contacts: [seedContact("org_lumiere", { name: "Valid one" }), ...(payload.contacts ?? [])],
      };
      const res = await post(ref, withValid);
      const details = expectInvalid(res, field.replace(/^contacts\.0/, "contacts.1"));
      expect(Object.values(details).flat().join(" ")).toContain(says);
      expect(snapshotOf(ref.state).records).toBe(before);
    },
  );

  it.each([
    [{}, "contacts"],
    [{ contacts: [{ organizationId: "org_lumiere", type: "CLIENT", name: "x" }] }, "contacts.0.email"],
    [{ contacts: [seedContact("org_lumiere", { emial: "a@b.c" })] }, "contacts.0.emial"],
    [
      {
        products: [
          {
            organizationId: "org_lumiere",
            sku: "X",
            name: "x",
            description: null,
            type: "PRODUCT",
            unitPrice: 1,
            taxable: true,
          },
        ],
      },
      "products.0.unitPrice",
    ],
    [{ organizations: [] }, "organizations"],
  ])("refuses %j with 400 naming %s", async (body, field) => {
    const ref = await controlledReference();
    expectInvalid(await post(ref, body), field);
  });

  it("refuses more than 10 000 records a call", async () => {
    const ref = await controlledReference();
    const contacts = Array.from({ length: 10_001 }, () => seedContact("org_lumiere"));
    expectInvalid(await post(ref, { contacts }), "contacts");
  });

  it("on a sandbox, takes its organization ids or the fixtures' (mapped to its own) and adds to it alone", async () => {
    const ref = await controlledReference();
    const a = await createSandbox(ref);
    const b = await createSandbox(ref);
    const before = snapshotOf(ref.state).records;
    const beforeB = snapshotOf(b.state()).records;
    // Another sandbox's organization is no organization of this one.
    expectInvalid(
      await post(ref, { contacts: [seedContact(b.organizations.org_lumiere ?? "")] }, `/sandboxes/${a.id}`),
      "contacts.0.organizationId",
    );
    const res = await post(
      ref,
      {
        contacts: [
          seedContact(a.organizations.org_lumiere ?? "", { name: "In A" }),
          seedContact("org_lumiere", { name: "In A too" }),
          seedContact("org_boreal", { name: "In A's Boreal" }),
        ],
      },
      `/sandboxes/${a.id}`,
    );
    expect(res.status, res.text).toBe(201);
    const names = (await list(ref, "/api/v1/contacts", a.auth("lumiere-full"))).map((c) => c.name);
    expect(names).toEqual(expect.arrayContaining(["In A", "In A too"]));
    expect(names).not.toContain("In A's Boreal");
    expect((await list(ref, "/api/v1/contacts", a.auth("boreal-full"))).map((c) => c.name)).toContain(
      "In A's Boreal",
    );
    expect(snapshotOf(ref.state).records).toBe(before);
    expect(snapshotOf(b.state()).records).toBe(beforeB);
    // A reset of the sandbox drops them, as any record made since its creation.
    await ctl(ref).post(`/sandboxes/${a.id}/reset`, {});
    expect((await list(ref, "/api/v1/contacts", a.auth("lumiere-full"))).map((c) => c.name)).not.toContain(
      "In A",
    );
  });

  it("keeps what it added with --data, as a creation through the API", async () => {
    const dir = await mkdtemp(join(tmpdir(), "acct-records-"));
    try {
      const ref = await controlledReference({ dataDir: dir });
      expect((await post(ref, { contacts: [seedContact("org_lumiere", { id: "con_kept1" })] })).status).toBe(
        201,
      );
      await ref.close();
      const again = await controlledReference({ dataDir: dir });
      expect(again.store.contact("org_lumiere", "con_kept1")?.name).toBe("Seeded contact");
      await again.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
