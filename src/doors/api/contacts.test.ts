import fc from "fast-check";
import request from "supertest";
import { beforeEach, describe, expect, it } from "vitest";
import { CONTACT_TYPES } from "../../model/records.js";
import { ContactCreatedJson, ContactJson } from "../../serialization/resources.js";
import { MAX_DETAIL_FIELDS } from "../../validation/validate.js";
import {
  TEST_NOW,
  checkProperty,
  expectData,
  expectInvalid,
  listIds,
  referencePerTest,
  without,
  type TestReference,
} from "../../test-support/reference.js";

const CONTACTS = "/api/v1/contacts";
const OPTIONAL_FIELDS = ["email", "phone", "address", "taxNumberTPS", "taxNumberTVQ"] as const;
const ALL_FIELDS = ["type", "name", ...OPTIONAL_FIELDS] as const;
type Field = (typeof ALL_FIELDS)[number];
type ContactBody = Partial<Record<Field, string>> & { type: string; name: string };

/** §8's limits, in characters (code points, spec-gaps #16). */
const LIMITS = [
  ["name", 200],
  ["phone", 50],
  ["address", 500],
  ["taxNumberTPS", 50],
  ["taxNumberTVQ", 50],
] as const;

const EMOJI = "😀"; // one code point, two UTF-16 units, four UTF-8 bytes

const fresh = referencePerTest();
let ref: TestReference;
beforeEach(() => {
  ref = fresh.ref;
});

const create = (body: unknown, label = "lumiere-full") =>
  request(ref.app)
    .post(CONTACTS)
    .set(ref.auth(label))
    .send(body as object);

async function createdContact(body: unknown) {
  return ContactCreatedJson.parse(expectData(await create(body), 201));
}

async function newestContact(label = "lumiere-full") {
  const res = await request(ref.app).get(`${CONTACTS}?limit=1`).set(ref.auth(label));
  const [first] = expectData(res, 200) as unknown[];
  return ContactJson.parse(first);
}

/** Sends a body that must be refused, naming `field`, and checks nothing was stored. */
async function expectRejected(body: unknown, field: string) {
  const before = await listIds(ref, CONTACTS, "lumiere-full");
  const details = expectInvalid(await create(body), field);
  expect(await listIds(ref, CONTACTS, "lumiere-full")).toEqual(before);
  return details;
}

describe("POST /api/v1/contacts: creation", () => {
  it("answers 201 with exactly id, type, name and createdAt when only the required fields are sent", async () => {
    const data = expectData(await create({ type: "CLIENT", name: "Café Olimpico" }), 201);
    expect(Object.keys(data as object).sort()).toEqual(["createdAt", "id", "name", "type"]);
    expect(data).toMatchObject({ type: "CLIENT", name: "Café Olimpico", createdAt: TEST_NOW });
    expect(ContactCreatedJson.safeParse(data).success).toBe(true);
  });

  it("answers with exactly id, type, name, email, phone and createdAt when every field is sent", async () => {
    const body = {
      type: "SUPPLIER",
      name: "Quincaillerie Dante",
      email: "info@dante.example",
      phone: "514-555-0111",
      address: "6851 rue Saint-Dominique, Montréal",
      taxNumberTPS: "123456789 RT0001",
      taxNumberTVQ: "1234567890 TQ0001",
    };
    const data = expectData(await create(body), 201);
    expect(Object.keys(data as object).sort()).toEqual(["createdAt", "email", "id", "name", "phone", "type"]);
    expect(data).toMatchObject({
      type: body.type,
      name: body.name,
      email: body.email,
      phone: body.phone,
      createdAt: TEST_NOW,
    });
  });

  it.each([
    ["email", { email: "a@example.com" }, ["createdAt", "email", "id", "name", "type"]],
    ["phone", { phone: "555" }, ["createdAt", "id", "name", "phone", "type"]],
    ["address", { address: "1 rue X" }, ["createdAt", "id", "name", "type"]],
  ])("answers with email and phone only when sent (%s sent)", async (_field, extra, keys) => {
    const data = expectData(await create({ type: "BOTH", name: "x", ...extra }), 201);
    expect(Object.keys(data as object).sort()).toEqual(keys);
  });

  it("stamps createdAt with the clock's now", async () => {
    ref.clock.advance(12_345);
    const created = await createdContact({ type: "CLIENT", name: "x" });
    expect(created.createdAt).toBe(ref.clock.now().toISOString());
  });

  it("gives each contact its own non-empty id", async () => {
    const a = await createdContact({ type: "CLIENT", name: "x" });
    const b = await createdContact({ type: "CLIENT", name: "x" });
    expect(a.id).not.toBe("");
    expect(a.id).not.toBe(b.id);
  });

  it("lists the new contact first, with every field, null for those not sent and updatedAt = createdAt", async () => {
    const created = await createdContact({ type: "CLIENT", name: "Bagels Fairmount", phone: "514-555-0199" });
    expect(await newestContact()).toEqual({
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

  it("lists every sent field back unchanged", async () => {
    const body = {
      type: "BOTH",
      name: "  Leading and trailing spaces kept  ",
      email: "x.y+z@sub.example.org",
      phone: "+1 (514) 555-0100 ext. 12",
      address: "Line 1\nLine 2",
      taxNumberTPS: "TPS",
      taxNumberTVQ: "TVQ",
    };
    const created = await createdContact(body);
    expect(await newestContact()).toEqual({
      id: created.id,
      ...body,
      createdAt: TEST_NOW,
      updatedAt: TEST_NOW,
    });
  });

  it.each(CONTACT_TYPES)("accepts type %s", async (type) => {
    expect(await createdContact({ type, name: "x" })).toMatchObject({ type });
  });

  it("adds exactly one contact to the list", async () => {
    const before = await listIds(ref, CONTACTS, "lumiere-full");
    const created = await createdContact({ type: "CLIENT", name: "x" });
    expect(await listIds(ref, CONTACTS, "lumiere-full")).toEqual([created.id, ...before]);
  });
});

describe("POST /api/v1/contacts: validation", () => {
  const base = { type: "CLIENT", name: "Boundary" };

  describe.each(LIMITS)("%s: at most %i characters (spec-gaps #16)", (field, max) => {
    it(`accepts ${max} ASCII characters`, async () => {
      const value = "a".repeat(max);
      await createdContact({ ...base, [field]: value });
      expect((await newestContact())[field]).toBe(value);
    });

    it(`refuses ${max + 1} ASCII characters`, async () => {
      await expectRejected({ ...base, [field]: "a".repeat(max + 1) }, field);
    });

    it(`accepts ${max} astral characters (${max * 2} UTF-16 units)`, async () => {
      const value = EMOJI.repeat(max);
      await createdContact({ ...base, [field]: value });
      expect((await newestContact())[field]).toBe(value);
    });

    it(`refuses ${max + 1} astral characters`, async () => {
      await expectRejected({ ...base, [field]: EMOJI.repeat(max + 1) }, field);
    });

    it(`accepts ${max - 1} ASCII characters and one astral character (${max + 1} UTF-16 units)`, async () => {
      await createdContact({ ...base, [field]: `${"a".repeat(max - 1)}${EMOJI}` });
    });
  });

  it.each([
    "",
    " ",
    "   ",
    "\t",
    "\n",
    "\r\n",
    "\u00a0",
    "\u3000",
    " \t\n ",
    "\u200b",
    "\u0000",
    "\ufeff \u200d",
  ])("refuses the blank name %j", async (name) => {
    await expectRejected({ type: "CLIENT", name }, "name");
  });

  // DECISIONS.md #17: blank optional strings too, so a frontend learns to omit the field.
  it.each(OPTIONAL_FIELDS.flatMap((field) => ["", " ", "\t"].map((value) => ({ field, value }))))(
    "refuses the blank optional $field $value",
    async ({ field, value }) => {
      await expectRejected({ ...base, [field]: value }, field);
    },
  );

  it.each(["type", "name"])("refuses a body without %s", async (field) => {
    await expectRejected(without(base, field), field);
  });

  it("refuses an empty object, naming both required fields", async () => {
    const details = await expectRejected({}, "type");
    expect(Object.keys(details).sort()).toEqual(["name", "type"]);
  });

  it.each(["client", "Client", "OTHER", "", " CLIENT", "CLIENT ", "CUSTOMER"])(
    "refuses the type %j",
    async (type) => {
      await expectRejected({ type, name: "x" }, "type");
    },
  );

  describe("email (WHATWG valid e-mail address, spec-gaps #18)", () => {
    it.each(["a@example.com", "first.last+tag@sub.example.co", "x_y-z@a-b.example", "a@b", "1@2.3"])(
      "accepts %s",
      async (email) => {
        expect(await createdContact({ ...base, email })).toMatchObject({ email });
      },
    );

    it.each([
      "not-an-email",
      "a@",
      "@b.c",
      "a b@c.d",
      '"quoted"@example.com',
      '"a b"@example.com',
      "a@[127.0.0.1]",
      "a@@example.com",
      "a@b..c",
      "a@-b.c",
      "a@b-.c",
      `a@${"b".repeat(64)}.c`,
      "é@example.com",
      "a@bücher.example",
      " a@example.com",
      "a@example.com ",
      "",
    ])("refuses %j", async (email) => {
      await expectRejected({ ...base, email }, "email");
    });
  });

  it.each([
    ["name", 42],
    ["name", null],
    ["name", true],
    ["name", ["x"]],
    ["name", { first: "x" }],
    ["type", 1],
    ["type", null],
    ["type", ["CLIENT"]],
    ["email", null],
    ["email", 5],
    ["email", ["a@example.com"]],
    ["phone", null],
    ["phone", 5145550100],
    ["address", null],
    ["address", { street: "x" }],
    ["taxNumberTPS", null],
    ["taxNumberTPS", 123456789],
    ["taxNumberTVQ", null],
    ["taxNumberTVQ", false],
  ])("refuses %s of the wrong type (%j)", async (field, value) => {
    await expectRejected({ ...base, [field]: value }, field);
  });

  // Object.prototype's names are where a plain-object lookup of details goes wrong.
  it.each([
    "emial",
    "Name",
    "id",
    "createdAt",
    "updatedAt",
    "organizationId",
    "constructor",
    "toString",
    "hasOwnProperty",
    "valueOf",
    "",
  ])("refuses the unknown field %j, naming it in details (spec-gaps #12)", async (key) => {
    await expectRejected({ ...base, [key]: "x" }, key);
  });

  it("names every faulty field at once, each with a list of messages", async () => {
    const details = await expectRejected(
      { type: "X", name: " ", email: "nope", phone: "1".repeat(51), emial: "a@b.c" },
      "type",
    );
    expect(Object.keys(details).sort()).toEqual(["email", "emial", "name", "phone", "type"]);
    for (const messages of Object.values(details)) {
      expect(messages.length).toBeGreaterThan(0);
      for (const m of messages) expect(typeof m).toBe("string");
    }
  });

  it("names at most the first 20 fields of 9 000 unknown ones and counts the rest, in an answer smaller than the body", async () => {
    const body = {
      ...base,
      ...Object.fromEntries(Array.from({ length: 9000 }, (_, i) => [`u${i}`, 1])),
    };
    const sent = JSON.stringify(body).length;
    const res = await create(body);
    const details = expectInvalid(res, "u0");
    expect(Object.keys(details)).toHaveLength(MAX_DETAIL_FIELDS);
    expect((res.body as { error: { message: string } }).error.message).toContain(
      `and ${9000 - MAX_DETAIL_FIELDS} more fields`,
    );
    expect(res.text.length).toBeLessThan(sent);
  });

  it("keeps a long unknown field name whole in details and cuts it in the message", async () => {
    const key = "k".repeat(5000);
    const res = await create({ ...base, [key]: 1 });
    expectInvalid(res, key);
    expect((res.body as { error: { message: string } }).error.message.length).toBeLessThan(300);
  });

  it("refuses a lone surrogate in a name", async () => {
    await expectRejected({ type: "CLIENT", name: "a\ud800b" }, "name");
  });
});

// --- property tests --------------------------------------------------------------------------------

/** A non-blank string of 1..max code points, astral ones included. */
const textArb = (max: number) =>
  // Something a reader would see: white space, zero-width and control characters alone are blank.
  fc
    .string({ unit: "binary", minLength: 1, maxLength: max })
    .filter((s) => /[^\s\p{Z}\p{Cc}\p{Cf}]/u.test(s));

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
const tooLong = (max: number) =>
  fc
    .tuple(fc.integer({ min: max + 1, max: max + 20 }), fc.constantFrom("a", EMOJI, "é"))
    .map(([n, c]) => c.repeat(n));
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
  fc.record({
    field: fc
      .stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,15}$/)
      .filter((k) => k !== "__proto__" && !(ALL_FIELDS as readonly string[]).includes(k)),
    value: fc.jsonValue(),
  }),
);

/** A valid body with exactly one constraint broken, and the field it breaks. */
const invalidContactBodyArb: fc.Arbitrary<{ body: Record<string, unknown>; field: string }> = fc
  .tuple(contactBodyArb, breakageArb)
  .map(([valid, { field, value }]) => {
    const body = value === undefined ? without(valid, field) : { ...valid, [field]: value };
    return { body, field };
  });

describe("POST /api/v1/contacts: properties", () => {
  it("accepts every valid body and lists it back unchanged", async () => {
    await checkProperty(
      fc.asyncProperty(contactBodyArb, async (body) => {
        // A distinct instant per run, so the new contact is the newest whatever its random id.
        ref.clock.advance(1);
        const created = await createdContact(body);
        expect(created).toEqual({
          id: created.id,
          type: body.type,
          name: body.name,
          ...(body.email === undefined ? {} : { email: body.email }),
          ...(body.phone === undefined ? {} : { phone: body.phone }),
          createdAt: ref.clock.now().toISOString(),
        });
        const listed = await newestContact();
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

  it("refuses a body with any one constraint broken, naming that field, and stores nothing", async () => {
    await checkProperty(
      fc.asyncProperty(invalidContactBodyArb, async ({ body, field }) => {
        const before = ref.store.countContacts("org_lumiere");
        expectInvalid(await create(body), field);
        expect(ref.store.countContacts("org_lumiere")).toBe(before);
      }),
    );
  });
});
