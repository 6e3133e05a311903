import { describe, expect } from "vitest";
import { ContactCreatedJson, ContactJson } from "../../serialization/resources.js";
import { MAX_DETAIL_FIELDS } from "../../validation/validate.js";
import { creationTest, describeLengthLimits } from "../../test-support/creation.js";
import { expectInvalid, without } from "../../test-support/reference.js";

// POST /api/v1/contacts: the bodies it refuses, each naming its field, with nothing stored.

const CONTACTS = "/api/v1/contacts";
const OPTIONAL_FIELDS = ["email", "phone", "address", "taxNumberTPS", "taxNumberTVQ"] as const;

/** §8's limits, in characters (code points, spec-gaps #16). */
const LIMITS = [
  ["name", 200],
  ["phone", 50],
  ["address", 500],
  ["taxNumberTPS", 50],
  ["taxNumberTVQ", 50],
] as const;

const it = creationTest({ path: CONTACTS, created: ContactCreatedJson, listed: ContactJson });

describe("POST /api/v1/contacts: validation", () => {
  const base = { type: "CLIENT", name: "Boundary" };

  describeLengthLimits(it, LIMITS, () => base, { mixed: true });

  it.for([
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
  ])("refuses the blank name %j", async (name, { h }) => {
    await h.expectRejected({ type: "CLIENT", name }, "name");
  });

  // DECISIONS.md #17: blank optional strings too, so a frontend learns to omit the field.
  it.for(OPTIONAL_FIELDS.flatMap((field) => ["", " ", "\t"].map((value) => ({ field, value }))))(
    "refuses the blank optional $field $value",
    async ({ field, value }, { h }) => {
      await h.expectRejected({ ...base, [field]: value }, field);
    },
  );

  it.for(["type", "name"])("refuses a body without %s", async (field, { h }) => {
    await h.expectRejected(without(base, field), field);
  });

  it("refuses an empty object, naming both required fields", async ({ h }) => {
    const details = await h.expectRejected({}, "type");
    expect(Object.keys(details).sort()).toEqual(["name", "type"]);
  });

  it.for(["client", "Client", "OTHER", "", " CLIENT", "CLIENT ", "CUSTOMER"])(
    "refuses the type %j",
    async (type, { h }) => {
      await h.expectRejected({ type, name: "x" }, "type");
    },
  );

  describe("email (WHATWG valid e-mail address, spec-gaps #18)", () => {
    it.for(["a@example.com", "first.last+tag@sub.example.co", "x_y-z@a-b.example", "a@b", "1@2.3"])(
      "accepts %s",
      async (email, { h }) => {
        expect(await h.created({ ...base, email })).toMatchObject({ email });
      },
    );

    it.for([
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
    ])("refuses %j", async (email, { h }) => {
      await h.expectRejected({ ...base, email }, "email");
    });
  });

  it.for([
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
  ] as const)("refuses %s of the wrong type (%j)", async ([field, value], { h }) => {
    await h.expectRejected({ ...base, [field]: value }, field);
  });

  // Object.prototype's names are where a plain-object lookup of details goes wrong.
  it.for([
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
  ])("refuses the unknown field %j, naming it in details (spec-gaps #12)", async (key, { h }) => {
    await h.expectRejected({ ...base, [key]: "x" }, key);
  });

  it("names every faulty field at once, each with a list of messages", async ({ h }) => {
    const details = await h.expectRejected(
      { type: "X", name: " ", email: "nope", phone: "1".repeat(51), emial: "a@b.c" },
      "type",
    );
    expect(Object.keys(details).sort()).toEqual(["email", "emial", "name", "phone", "type"]);
    for (const messages of Object.values(details)) {
      expect(messages.length).toBeGreaterThan(0);
      for (const m of messages) expect(typeof m).toBe("string");
    }
  });

  it("names at most the first 20 fields of 9 000 unknown ones and counts the rest, in an answer smaller than the body", async ({
    h,
  }) => {
    const body = {
      ...base,
      ...Object.fromEntries(Array.from({ length: 9000 }, (_, i) => [`u${i}`, 1])),
    };
    const sent = JSON.stringify(body).length;
    const res = await h.create(body);
    const details = expectInvalid(res, "u0");
    expect(Object.keys(details)).toHaveLength(MAX_DETAIL_FIELDS);
    expect((res.body as { error: { message: string } }).error.message).toContain(
      `and ${9000 - MAX_DETAIL_FIELDS} more fields`,
    );
    expect(res.text.length).toBeLessThan(sent);
  });

  it("keeps a long unknown field name whole in details and cuts it in the message", async ({ h }) => {
    const key = "k".repeat(5000);
    const res = await h.create({ ...base, [key]: 1 });
    expectInvalid(res, key);
    expect((res.body as { error: { message: string } }).error.message.length).toBeLessThan(300);
  });

  it("refuses a lone surrogate in a name", async ({ h }) => {
    await h.expectRejected({ type: "CLIENT", name: "a\ud800b" }, "name");
  });
});
