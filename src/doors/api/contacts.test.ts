import fc from "fast-check";
import { describe, expect } from "vitest";
import { CONTACT_TYPES } from "../../model/records.js";
import { ContactCreatedJson, ContactJson } from "../../serialization/resources.js";
import {
  EMOJI,
  creationTest,
  oneBroken,
  textArb,
  tooLongArb,
  unknownFieldArb,
} from "../../test-support/creation.js";
import { TEST_NOW, checkProperty, expectData, expectInvalid, listIds } from "../../test-support/reference.js";

// POST /api/v1/contacts: what a creation answers and stores, and the properties over any body.

const CONTACTS = "/api/v1/contacts";
const OPTIONAL_FIELDS = ["email", "phone", "address", "taxNumberTPS", "taxNumberTVQ"] as const;
const ALL_FIELDS = ["type", "name", ...OPTIONAL_FIELDS] as const;
type Field = (typeof ALL_FIELDS)[number];
type ContactBody = Partial<Record<Field, string>> & { type: string; name: string };

const it = creationTest({ path: CONTACTS, created: ContactCreatedJson, listed: ContactJson });

describe("POST /api/v1/contacts: creation", () => {
  it("answers 201 with exactly id, type, name and createdAt when only the required fields are sent", async ({
    h,
  }) => {
    const data = expectData(await h.create({ type: "CLIENT", name: "Café Olimpico" }), 201);
    expect(Object.keys(data as object).sort()).toEqual(["createdAt", "id", "name", "type"]);
    expect(data).toMatchObject({ type: "CLIENT", name: "Café Olimpico", createdAt: TEST_NOW });
    expect(ContactCreatedJson.safeParse(data).success).toBe(true);
  });

  it("answers with exactly id, type, name, email, phone and createdAt when every field is sent", async ({
    h,
  }) => {
    const body = {
      type: "SUPPLIER",
      name: "Quincaillerie Dante",
      email: "info@dante.example",
      phone: "514-555-0111",
      address: "6851 rue Saint-Dominique, Montréal",
      taxNumberTPS: "123456789 RT0001",
      taxNumberTVQ: "1234567890 TQ0001",
    };
    const data = expectData(await h.create(body), 201);
    expect(Object.keys(data as object).sort()).toEqual(["createdAt", "email", "id", "name", "phone", "type"]);
    expect(data).toMatchObject({
      type: body.type,
      name: body.name,
      email: body.email,
      phone: body.phone,
      createdAt: TEST_NOW,
    });
  });

  it.for([
    ["email", { email: "a@example.com" }, ["createdAt", "email", "id", "name", "type"]],
    ["phone", { phone: "555" }, ["createdAt", "id", "name", "phone", "type"]],
    ["address", { address: "1 rue X" }, ["createdAt", "id", "name", "type"]],
  ] as const)(
    "answers with email and phone only when sent (%s sent)",
    async ([_field, extra, keys], { h }) => {
      const data = expectData(await h.create({ type: "BOTH", name: "x", ...extra }), 201);
      expect(Object.keys(data as object).sort()).toEqual(keys);
    },
  );

  it("stamps createdAt with the clock's now", async ({ h }) => {
    h.ref.clock.advance(12_345);
    const created = await h.created({ type: "CLIENT", name: "x" });
    expect(created.createdAt).toBe(h.ref.clock.now().toISOString());
  });

  it("gives each contact its own non-empty id", async ({ h }) => {
    const a = await h.created({ type: "CLIENT", name: "x" });
    const b = await h.created({ type: "CLIENT", name: "x" });
    expect(a.id).not.toBe("");
    expect(a.id).not.toBe(b.id);
  });

  it("lists the new contact first, with every field, null for those not sent and updatedAt = createdAt", async ({
    h,
  }) => {
    const created = await h.created({ type: "CLIENT", name: "Bagels Fairmount", phone: "514-555-0199" });
    expect(await h.newest()).toEqual({
      id: created.id,
      type: "CLIENT",
      name: "Bagels Fairmount",
      email: null,
      phone: "514-555-0199",
      address: null,
      taxNumberTPS: null,
      taxNumberTVQ: null,
      createdAt: TEST_NOW,
      updatedAt: TEST_NOW,
    });
  });

  it("lists every sent field back unchanged", async ({ h }) => {
    const body = {
      type: "BOTH",
      name: "  Leading and trailing spaces kept  ",
      email: "x.y+z@sub.example.org",
      phone: "+1 (514) 555-0100 ext. 12",
      address: "Line 1\nLine 2",
      taxNumberTPS: "TPS",
      taxNumberTVQ: "TVQ",
    };
    const created = await h.created(body);
    expect(await h.newest()).toEqual({
      id: created.id,
      ...body,
      createdAt: TEST_NOW,
      updatedAt: TEST_NOW,
    });
  });

  it.for(CONTACT_TYPES)("accepts type %s", async (type, { h }) => {
    expect(await h.created({ type, name: "x" })).toMatchObject({ type });
  });

  it("adds exactly one contact to the list", async ({ h }) => {
    const before = await listIds(h.ref, CONTACTS, "lumiere-full");
    const created = await h.created({ type: "CLIENT", name: "x" });
    expect(await listIds(h.ref, CONTACTS, "lumiere-full")).toEqual([created.id, ...before]);
  });
});

// --- property tests --------------------------------------------------------------------------------

/** The WHATWG definition written out independently of the server's regex. */
const labelArb = fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,8}[a-z0-9])?$/);
const emailArb = fc
  .tuple(
    fc.stringMatching(/^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]{1,20}$/),
    fc.array(labelArb, { minLength: 1, maxLength: 3 }),
  )
  .map(([local, labels]) => `${local}@${labels.join(".")}`);

/** Any body §4 promises to accept. */
const contactBodyArb: fc.Arbitrary<ContactBody> = fc.record(
  {
    type: fc.constantFrom(...CONTACT_TYPES),
    name: textArb(200),
    email: emailArb,
    phone: textArb(50),
    address: textArb(500),
    taxNumberTPS: textArb(50),
    taxNumberTVQ: textArb(50),
  },
  { requiredKeys: ["type", "name"] },
);

const blankArb = fc.constantFrom("", " ", "\t", "\n \n", "\u00a0");
const tooLong = (max: number) => tooLongArb(max, ["a", EMOJI, "é"]);
const notAStringArb = fc.oneof(
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.constant([]),
  fc.constant({}),
);

/** One way to break one field: the value to put there (undefined: remove it). */
const breakageArb: fc.Arbitrary<{ field: string; value: unknown }> = fc.oneof(
  fc.record({
    field: fc.constant("type"),
    value: fc.oneof(
      fc.string().filter((s) => !(CONTACT_TYPES as readonly string[]).includes(s)),
      notAStringArb,
      fc.constant(undefined),
    ),
  }),
  fc.record({
    field: fc.constant("name"),
    value: fc.oneof(tooLong(200), blankArb, notAStringArb, fc.constant(undefined)),
  }),
  fc.record({
    field: fc.constant("email"),
    value: fc.oneof(
      fc.string({ maxLength: 30 }).filter((s) => !s.includes("@")),
      emailArb.map((e) => e.replace("@", " @")),
      emailArb.map((e) => `@${e}`),
      notAStringArb,
    ),
  }),
  ...(["phone", "taxNumberTPS", "taxNumberTVQ"] as const).map((field) =>
    fc.record({ field: fc.constant(field), value: fc.oneof(tooLong(50), blankArb, notAStringArb) }),
  ),
  fc.record({ field: fc.constant("address"), value: fc.oneof(tooLong(500), blankArb, notAStringArb) }),
  unknownFieldArb(ALL_FIELDS),
);

const invalidContactBodyArb = oneBroken(contactBodyArb, breakageArb);

describe("POST /api/v1/contacts: properties", () => {
  it("accepts every valid body and lists it back unchanged", async ({ h }) => {
    await checkProperty(
      fc.asyncProperty(contactBodyArb, async (body) => {
        // A distinct instant per run, so the new contact is the newest whatever its random id.
        h.ref.clock.advance(1);
        const created = await h.created(body);
        expect(created).toEqual({
          id: created.id,
          type: body.type,
          name: body.name,
          ...(body.email === undefined ? {} : { email: body.email }),
          ...(body.phone === undefined ? {} : { phone: body.phone }),
          createdAt: h.ref.clock.now().toISOString(),
        });
        const listed = await h.newest();
        expect(listed).toEqual({
          id: created.id,
          type: body.type,
          name: body.name,
          email: body.email ?? null,
          phone: body.phone ?? null,
          address: body.address ?? null,
          taxNumberTPS: body.taxNumberTPS ?? null,
          taxNumberTVQ: body.taxNumberTVQ ?? null,
          createdAt: created.createdAt,
          updatedAt: created.createdAt,
        });
      }),
    );
  });

  it("refuses a body with any one constraint broken, naming that field, and stores nothing", async ({
    h,
  }) => {
    await checkProperty(
      fc.asyncProperty(invalidContactBodyArb, async ({ body, field }) => {
        const before = h.ref.store.countContacts("org_lumiere");
        expectInvalid(await h.create(body), field);
        expect(h.ref.store.countContacts("org_lumiere")).toBe(before);
      }),
    );
  });
});
