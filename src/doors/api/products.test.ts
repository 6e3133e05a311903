import { Decimal } from "decimal.js";
import fc from "fast-check";
import request from "supertest";
import { beforeEach, describe, expect, it } from "vitest";
import { PRODUCT_TYPES } from "../../model/records.js";
import { ProductJson } from "../../serialization/resources.js";
import {
  RawNumber,
  TEST_NOW,
  checkProperty,
  expectData,
  expectInvalid,
  jsonText,
  listIds,
  referencePerTest,
  without,
  type TestReference,
} from "../../test-support/reference.js";

const PRODUCTS = "/api/v1/products";
const FIELDS = ["sku", "name", "description", "type", "unitPrice", "taxable"] as const;
const EMOJI = "😀";
const MAX_PRICE = "999999999999.9999";

/** §8's limits, in characters (code points, spec-gaps #16). */
const LIMITS = [
  ["sku", 100],
  ["name", 200],
  ["description", 2000],
] as const;

const fresh = referencePerTest();
let ref: TestReference;
beforeEach(() => {
  ref = fresh.ref;
});

let skuCounter = 0;
const freshSku = () => `SKU-${(skuCounter += 1)}`;

/** A fixture label, or the headers of a token made at runtime. */
type Caller = string | { Authorization: string };
const headersOf = (who: Caller) => (typeof who === "string" ? ref.auth(who) : who);

/** Sends the body as JSON text, `RawNumber`s as written, so no float ever touches a price. */
const create = (body: Record<string, unknown>, who: Caller = "lumiere-full") =>
  request(ref.app)
    .post(PRODUCTS)
    .set(headersOf(who))
    .set("Content-Type", "application/json")
    .send(jsonText(body));

async function createdProduct(body: Record<string, unknown>, who: Caller = "lumiere-full") {
  return ProductJson.parse(expectData(await create(body, who), 201));
}

async function newestProduct(who: Caller = "lumiere-full") {
  const res = await request(ref.app).get(`${PRODUCTS}?limit=1`).set(headersOf(who));
  const [first] = expectData(res, 200) as unknown[];
  return ProductJson.parse(first);
}

let orgCounter = 0;
/** A new organization without products, and a token for it: a clean slate without a new server. */
function emptyOrganization(): { Authorization: string } {
  const id = `org_property_${(orgCounter += 1)}`;
  ref.store.add({ type: "organization", data: { id, name: id, plan: "BUSINESS" } });
  const { token } = ref.tokens.create({
    organizationId: id,
    name: id,
    scopes: ["products:read", "products:write"],
  });
  return { Authorization: `Bearer ${token}` };
}

/** Sends a body that must be refused, naming `field`, and checks nothing was stored. */
async function expectRejected(body: Record<string, unknown>, field: string) {
  const before = await listIds(ref, PRODUCTS, "lumiere-full");
  const details = expectInvalid(await create(body), field);
  expect(await listIds(ref, PRODUCTS, "lumiere-full")).toEqual(before);
  return details;
}

const minimal = () => ({ sku: freshSku(), name: "Affiche A2", unitPrice: new RawNumber("25") });

describe("POST /api/v1/products: creation", () => {
  it("answers 201 with the full product, defaults applied (spec-gaps #6)", async () => {
    const sku = freshSku();
    const data = expectData(await create({ sku, name: "Affiche A2", unitPrice: new RawNumber("25") }), 201);
    const product = ProductJson.parse(data);
    expect(product).toEqual({
      id: product.id,
      sku,
      name: "Affiche A2",
      description: null,
      type: "PRODUCT",
      unitPrice: "25.0000",
      taxable: true,
      createdAt: TEST_NOW,
      updatedAt: TEST_NOW,
    });
    expect(product.id).not.toBe("");
  });

  it("keeps every field sent", async () => {
    const sku = freshSku();
    const product = await createdProduct({
      sku,
      name: "Séance photo",
      description: "Deux heures en studio",
      type: "SERVICE",
      unitPrice: new RawNumber("350.25"),
      taxable: false,
    });
    expect(product).toMatchObject({
      sku,
      name: "Séance photo",
      description: "Deux heures en studio",
      type: "SERVICE",
      unitPrice: "350.2500",
      taxable: false,
    });
  });

  it.each(PRODUCT_TYPES)("accepts type %s", async (type) => {
    expect(await createdProduct({ ...minimal(), type })).toMatchObject({ type });
  });

  it.each([true, false])("accepts taxable %s", async (taxable) => {
    expect(await createdProduct({ ...minimal(), taxable })).toMatchObject({ taxable });
  });

  it("lists the new product first, equal to the creation response", async () => {
    ref.clock.advance(5_000);
    const created = await createdProduct(minimal());
    expect(created.createdAt).toBe(ref.clock.now().toISOString());
    expect(created.updatedAt).toBe(created.createdAt);
    expect(await newestProduct()).toEqual(created);
  });

  it("adds exactly one product to the list", async () => {
    const before = await listIds(ref, PRODUCTS, "lumiere-full");
    const created = await createdProduct(minimal());
    expect(await listIds(ref, PRODUCTS, "lumiere-full")).toEqual([created.id, ...before]);
  });
});

describe("POST /api/v1/products: unitPrice (spec-gaps #19)", () => {
  it.each([
    ["0", "0.0000"],
    ["0.0001", "0.0001"],
    ["1234.5", "1234.5000"],
    ["1e2", "100.0000"],
    ["1E+2", "100.0000"],
    ["12345e-4", "1.2345"],
    ["0.10", "0.1000"],
    ["19.99", "19.9900"],
    ["0.1", "0.1000"],
    ["0.3", "0.3000"],
    [MAX_PRICE, MAX_PRICE],
    ["999999999999", "999999999999.0000"],
    ["123456789012.3456", "123456789012.3456"],
    ["-0", "0.0000"],
    ["-0.0", "0.0000"],
  ])("accepts %s and answers %s, exactly", async (text, expected) => {
    const product = await createdProduct({ ...minimal(), unitPrice: new RawNumber(text) });
    expect(product.unitPrice).toBe(expected);
    expect((await newestProduct()).unitPrice).toBe(expected);
  });

  it.each([
    ["negative", "-1"],
    ["slightly negative", "-0.0001"],
    ["with 5 decimals", "1.00001"],
    ["with 5 decimals, under a ten-thousandth", "0.00001"],
    ["with 5 decimals, at the top", "999999999999.99991"],
    ["with 5 decimals, written with an exponent", "1e-5"],
    ["tiny, past decimal.js's exponent range", "1e-9000000000000001"],
    ["tiny, past the float range", "1e-400"],
    ["huge, past the float range", "1e400"],
    ["just over the maximum", "1000000000000"],
    ["over the maximum, with 4 decimals", "1000000000000.0000"],
    ["far over the maximum", "1e16"],
  ])("refuses a price %s (%s) with 400 naming unitPrice, never rounding it", async (_why, text) => {
    await expectRejected({ ...minimal(), unitPrice: new RawNumber(text) }, "unitPrice");
  });

  it.each([
    ["a string", "10"],
    ["a decimal string", "10.50"],
    ["null", null],
    ["a boolean", true],
    ["an array", [10]],
    ["an object", { amount: 10 }],
  ])("refuses unitPrice as %s", async (_why, value) => {
    await expectRejected({ ...minimal(), unitPrice: value }, "unitPrice");
  });

  it("refuses a body without unitPrice", async () => {
    await expectRejected({ sku: freshSku(), name: "x" }, "unitPrice");
  });
});

describe("POST /api/v1/products: validation", () => {
  describe.each(LIMITS)("%s: at most %i characters (spec-gaps #16)", (field, max) => {
    it(`accepts ${max} ASCII characters`, async () => {
      const value = `${(skuCounter += 1)}`.padEnd(max, "a");
      await createdProduct({ ...minimal(), [field]: value });
      expect((await newestProduct())[field]).toBe(value);
    });

    it(`refuses ${max + 1} ASCII characters`, async () => {
      await expectRejected({ ...minimal(), [field]: "a".repeat(max + 1) }, field);
    });

    it(`accepts ${max} astral characters (${max * 2} UTF-16 units)`, async () => {
      const value = EMOJI.repeat(max);
      await createdProduct({ ...minimal(), [field]: value });
      expect((await newestProduct())[field]).toBe(value);
    });

    it(`refuses ${max + 1} astral characters`, async () => {
      await expectRejected({ ...minimal(), [field]: EMOJI.repeat(max + 1) }, field);
    });
  });

  it.each([
    ["sku", ""],
    ["sku", " "],
    ["sku", "\t\n"],
    ["sku", "\u00a0"],
    ["name", ""],
    ["name", "  "],
    ["name", "\r\n"],
    // DECISIONS.md #17: an optional string may be omitted, not blank.
    ["description", ""],
    ["description", "   "],
  ])("refuses the blank %s %j", async (field, value) => {
    await expectRejected({ ...minimal(), [field]: value }, field);
  });

  it.each(["sku", "name", "unitPrice"])("refuses a body without %s", async (field) => {
    await expectRejected(without(minimal(), field), field);
  });

  it.each([
    ["sku", 123],
    ["sku", null],
    ["name", 42],
    ["name", null],
    ["name", ["x"]],
    ["description", null],
    ["description", 7],
    ["type", null],
    ["type", "product"],
    ["type", "GOODS"],
    ["type", 1],
    ["taxable", "true"],
    ["taxable", "false"],
    ["taxable", 1],
    ["taxable", 0],
    ["taxable", null],
  ])("refuses %s %j", async (field, value) => {
    await expectRejected({ ...minimal(), [field]: value }, field);
  });

  it.each(["price", "unit_price", "Sku", "id", "organizationId", "createdAt", "constructor", "toString"])(
    "refuses the unknown field %j, naming it in details",
    async (key) => {
      await expectRejected({ ...minimal(), [key]: "x" }, key);
    },
  );

  it("names every faulty field at once", async () => {
    const details = await expectRejected(
      { sku: "", name: 5, type: "X", unitPrice: new RawNumber("-1"), taxable: "yes", color: "red" },
      "sku",
    );
    expect(Object.keys(details).sort()).toEqual(["color", "name", "sku", "taxable", "type", "unitPrice"]);
  });
});

describe("POST /api/v1/products: sku uniqueness (spec-gaps #20)", () => {
  it("refuses a sku already used in the organization with 400 invalid_request naming sku", async () => {
    const sku = freshSku();
    await createdProduct({ ...minimal(), sku });
    await expectRejected({ ...minimal(), sku, name: "Another" }, "sku");
  });

  it("refuses a sku of a fixture product", async () => {
    const [fixture] = ref.store.listProducts("org_lumiere", { limit: 1 });
    if (fixture === undefined) throw new Error("no lumiere product in the fixtures");
    await expectRejected({ ...minimal(), sku: fixture.sku }, "sku");
  });

  it("refuses the duplicate even when every other field differs", async () => {
    const sku = freshSku();
    await createdProduct({ ...minimal(), sku });
    await expectRejected(
      {
        sku,
        name: "Other",
        description: "d",
        type: "SERVICE",
        unitPrice: new RawNumber("1"),
        taxable: false,
      },
      "sku",
    );
  });

  it("accepts the same sku in another organization", async () => {
    const sku = freshSku();
    await createdProduct({ ...minimal(), sku }, "lumiere-full");
    const boreal = await createdProduct({ ...minimal(), sku }, "boreal-full");
    expect(boreal.sku).toBe(sku);
  });

  it("accepts in lumiere a sku that boreal's fixtures use", async () => {
    const [fixture] = ref.store.listProducts("org_boreal", { limit: 1 });
    if (fixture === undefined) throw new Error("no boreal product in the fixtures");
    expect(ref.store.productBySku("org_lumiere", fixture.sku)).toBeUndefined();
    await createdProduct({ ...minimal(), sku: fixture.sku });
  });

  it.each([
    ["ABC", "abc"],
    ["abc", "ABC"],
    ["Sku-1", "sku-1"],
    ["ABC", " ABC"],
    ["ABC", "ABC "],
    ["É", "e\u0301"],
  ])("treats %j and %j as different skus (exact match)", async (first, second) => {
    await createdProduct({ ...minimal(), sku: first });
    expect(await createdProduct({ ...minimal(), sku: second })).toMatchObject({ sku: second });
  });
});

// --- property tests --------------------------------------------------------------------------------

const textArb = (max: number) =>
  // Something a reader would see: white space, zero-width and control characters alone are blank.
  fc
    .string({ unit: "binary", minLength: 1, maxLength: max })
    .filter((s) => /[^\s\p{Z}\p{Cc}\p{Cf}]/u.test(s));

/** The largest scaled integer for `decimals` decimals that stays within the documented maximum. */
const scaledMax = (decimals: number, digits: number) =>
  [10n ** BigInt(digits) - 1n, 10n ** BigInt(12 + decimals) - 1n].reduce((a, b) => (a < b ? a : b));

/** `n / 10^decimals` written in plain decimal notation, without a float. */
function plainText(n: bigint, decimals: number): string {
  if (decimals === 0) return n.toString();
  const digits = n.toString().padStart(decimals + 1, "0");
  return `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
}

/**
 * A decimal of at most 4 decimals and at most `digits` digits, within the maximum, as JSON number
 * text: plain, with trailing zeros, or with an exponent.
 */
const priceTextArb = (digits: number) =>
  fc
    .integer({ min: 0, max: 4 })
    .chain((decimals) =>
      fc.tuple(
        fc.constant(decimals),
        fc.bigInt({ min: 0n, max: scaledMax(decimals, digits) }),
        fc.constantFrom("plain", "exponent", "upper-exponent", "trailing-zero"),
      ),
    )
    .map(([decimals, n, form]) => {
      switch (form) {
        case "exponent":
          return `${n}e-${decimals}`;
        case "upper-exponent":
          return `${n}E-${decimals}`;
        case "trailing-zero":
          return decimals === 0 || decimals === 4 ? plainText(n, decimals) : `${plainText(n, decimals)}0`;
        default:
          return plainText(n, decimals);
      }
    });

interface ProductBody {
  sku: string;
  name: string;
  description?: string;
  type?: "PRODUCT" | "SERVICE";
  unitPrice: RawNumber;
  taxable?: boolean;
}

/** Any body §4 promises to accept; unitPrice with ≤ 15 significant digits (spec-gaps #19). */
const productBodyArb: fc.Arbitrary<ProductBody> = fc.record(
  {
    sku: textArb(100),
    name: textArb(200),
    description: textArb(2000),
    type: fc.constantFrom(...PRODUCT_TYPES),
    unitPrice: priceTextArb(15).map((text) => new RawNumber(text)),
    taxable: fc.boolean(),
  },
  { requiredKeys: ["sku", "name", "unitPrice"] },
);

const blankArb = fc.constantFrom("", " ", "\t", "\u00a0");
const tooLong = (max: number) =>
  fc
    .tuple(fc.integer({ min: max + 1, max: max + 20 }), fc.constantFrom("a", EMOJI))
    .map(([n, c]) => c.repeat(n));
const notAStringArb = fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.constant([]));

const invalidPriceArb = fc.oneof(
  priceTextArb(15)
    .filter((t) => !new Decimal(t).isZero())
    .map((t) => new RawNumber(`-${t}`)),
  fc
    .tuple(fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.integer({ min: 1, max: 9 }).map(String))
    .map(([n, last]) => new RawNumber(`${n}.0000${last}`)),
  fc.bigInt({ min: 10n ** 12n, max: 10n ** 20n }).map((n) => new RawNumber(n.toString())),
  priceTextArb(15),
  fc.constantFrom(null, true, [1]),
);

const breakageArb: fc.Arbitrary<{ field: string; value: unknown }> = fc.oneof(
  fc.record({
    field: fc.constant("sku"),
    value: fc.oneof(tooLong(100), blankArb, notAStringArb, fc.constant(undefined)),
  }),
  fc.record({
    field: fc.constant("name"),
    value: fc.oneof(tooLong(200), blankArb, notAStringArb, fc.constant(undefined)),
  }),
  fc.record({ field: fc.constant("description"), value: fc.oneof(tooLong(2000), blankArb, notAStringArb) }),
  fc.record({
    field: fc.constant("type"),
    value: fc.oneof(
      fc.string().filter((s) => !(PRODUCT_TYPES as readonly string[]).includes(s)),
      notAStringArb,
    ),
  }),
  fc.record({ field: fc.constant("unitPrice"), value: fc.oneof(invalidPriceArb, fc.constant(undefined)) }),
  fc.record({ field: fc.constant("taxable"), value: fc.oneof(fc.string(), fc.integer(), fc.constant(null)) }),
  fc.record({
    field: fc
      .stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,15}$/)
      .filter((k) => k !== "__proto__" && !(FIELDS as readonly string[]).includes(k)),
    value: fc.jsonValue(),
  }),
);

/** A valid body with exactly one constraint broken, and the field it breaks. */
const invalidProductBodyArb = fc.tuple(productBodyArb, breakageArb).map(([valid, { field, value }]) => {
  const body = value === undefined ? without(valid, field) : { ...valid, [field]: value };
  return { body, field };
});

describe("POST /api/v1/products: properties", () => {
  it("accepts every valid body and lists it back unchanged", async () => {
    await checkProperty(
      fc.asyncProperty(productBodyArb, async (body) => {
        // An empty organization per run: a sku from an earlier run (or a shrink replay) is no duplicate.
        const caller = emptyOrganization();
        const created = await createdProduct({ ...body }, caller);
        const expected = {
          id: created.id,
          sku: body.sku,
          name: body.name,
          description: body.description ?? null,
          type: body.type ?? "PRODUCT",
          unitPrice: new Decimal(body.unitPrice.text).toFixed(4),
          taxable: body.taxable ?? true,
          createdAt: TEST_NOW,
          updatedAt: TEST_NOW,
        };
        expect(created).toEqual(expected);
        const listed = await newestProduct(caller);
        expect(listed).toEqual(expected);
        expect(new Decimal(listed.unitPrice).equals(new Decimal(body.unitPrice.text))).toBe(true);
      }),
    );
  });

  it("refuses a body with any one constraint broken, naming that field, and stores nothing", async () => {
    await checkProperty(
      fc.asyncProperty(invalidProductBodyArb, async ({ body, field }) => {
        const before = ref.store.listProducts("org_lumiere", { limit: 1000 }).length;
        // A fresh sku, unless the sku is what this run breaks.
        const sent = field === "sku" ? body : { ...body, sku: freshSku() };
        expectInvalid(await create(sent), field);
        expect(ref.store.listProducts("org_lumiere", { limit: 1000 })).toHaveLength(before);
      }),
    );
  });

  it("round-trips any price of at most 4 decimals and 16 digits exactly", async () => {
    await checkProperty(
      fc.asyncProperty(priceTextArb(16), async (text) => {
        const created = await createdProduct({ ...minimal(), unitPrice: new RawNumber(text) });
        expect(created.unitPrice).toBe(new Decimal(text).toFixed(4));
      }),
      100,
    );
  });
});
