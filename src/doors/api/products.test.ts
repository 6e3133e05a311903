import { Decimal } from "decimal.js";
import fc from "fast-check";
import { describe, expect } from "vitest";
import { PRODUCT_TYPES } from "../../model/records.js";
import { ProductJson } from "../../serialization/resources.js";
import {
  EMOJI,
  creationTest,
  type CreationHarness,
  oneBroken,
  textArb,
  tooLongArb,
  minimalProduct as minimal,
  unknownFieldArb,
} from "../../test-support/creation.js";
import {
  RawNumber,
  TEST_NOW,
  checkProperty,
  expectData,
  expectInvalid,
  listIds,
} from "../../test-support/reference.js";

// POST /api/v1/products: what a creation answers and stores, sku uniqueness, and the properties over
// any body.

const PRODUCTS = "/api/v1/products";

const it = creationTest({ path: PRODUCTS, created: ProductJson, listed: ProductJson, rawNumbers: true });
const FIELDS = ["sku", "name", "description", "type", "unitPrice", "taxable"] as const;

/** A new organization without products, and a token for it: a clean slate without a new server. */
function emptyOrganization(h: Pick<CreationHarness<unknown, unknown>, "ref" | "uniqueNumber">): {
  Authorization: string;
} {
  const id = `org_property_${h.uniqueNumber()}`;
  h.ref.store.add({ type: "organization", data: { id, name: id, plan: "BUSINESS" } });
  const { token } = h.ref.tokens.create({
    organizationId: id,
    name: id,
    scopes: ["products:read", "products:write"],
  });
  return { Authorization: `Bearer ${token}` };
}

describe("POST /api/v1/products: creation", () => {
  it("answers 201 with the full product, defaults applied (spec-gaps #6)", async ({ h }) => {
    const sku = h.freshSku();
    const data = expectData(await h.create({ sku, name: "Affiche A2", unitPrice: new RawNumber("25") }), 201);
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

  it("keeps every field sent", async ({ h }) => {
    const sku = h.freshSku();
    const product = await h.created({
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

  it.for(PRODUCT_TYPES)("accepts type %s", async (type, { h }) => {
    expect(await h.created({ ...minimal(h), type })).toMatchObject({ type });
  });

  it.for([true, false])("accepts taxable %s", async (taxable, { h }) => {
    expect(await h.created({ ...minimal(h), taxable })).toMatchObject({ taxable });
  });

  it("lists the new product first, equal to the creation response", async ({ h }) => {
    h.ref.clock.advance(5_000);
    const created = await h.created(minimal(h));
    expect(created.createdAt).toBe(h.ref.clock.now().toISOString());
    expect(created.updatedAt).toBe(created.createdAt);
    expect(await h.newest()).toEqual(created);
  });

  it("adds exactly one product to the list", async ({ h }) => {
    const before = await listIds(h.ref, PRODUCTS, "lumiere-full");
    const created = await h.created(minimal(h));
    expect(await listIds(h.ref, PRODUCTS, "lumiere-full")).toEqual([created.id, ...before]);
  });
});

describe("POST /api/v1/products: sku uniqueness (spec-gaps #20)", () => {
  it("refuses a sku already used in the organization with 400 invalid_request naming sku", async ({ h }) => {
    const sku = h.freshSku();
    await h.created({ ...minimal(h), sku });
    await h.expectRejected({ ...minimal(h), sku, name: "Another" }, "sku");
  });

  it("refuses a sku of a fixture product", async ({ h }) => {
    const [fixture] = h.ref.store.listProducts("org_lumiere", { limit: 1 });
    if (fixture === undefined) throw new Error("no lumiere product in the fixtures");
    await h.expectRejected({ ...minimal(h), sku: fixture.sku }, "sku");
  });

  it("refuses the duplicate even when every other field differs", async ({ h }) => {
    const sku = h.freshSku();
    await h.created({ ...minimal(h), sku });
    await h.expectRejected(
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

  it("accepts the same sku in another organization", async ({ h }) => {
    const sku = h.freshSku();
    await h.created({ ...minimal(h), sku }, "lumiere-full");
    const boreal = await h.created({ ...minimal(h), sku }, "boreal-full");
    expect(boreal.sku).toBe(sku);
  });

  it("accepts in lumiere a sku that boreal's fixtures use", async ({ h }) => {
    const [fixture] = h.ref.store.listProducts("org_boreal", { limit: 1 });
    if (fixture === undefined) throw new Error("no boreal product in the fixtures");
    expect(h.ref.store.productBySku("org_lumiere", fixture.sku)).toBeUndefined();
    await h.created({ ...minimal(h), sku: fixture.sku });
  });

  it.for([
    ["ABC", "abc"],
    ["abc", "ABC"],
    ["Sku-1", "sku-1"],
    ["ABC", " ABC"],
    ["ABC", "ABC "],
    ["É", "e\u0301"],
  ] as const)("treats %j and %j as different skus (exact match)", async ([first, second], { h }) => {
    await h.created({ ...minimal(h), sku: first });
    expect(await h.created({ ...minimal(h), sku: second })).toMatchObject({ sku: second });
  });
});

// --- property tests --------------------------------------------------------------------------------

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
  type?: string;
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
const tooLong = (max: number) => tooLongArb(max, ["a", EMOJI]);
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
  unknownFieldArb(FIELDS),
);

const invalidProductBodyArb = oneBroken(productBodyArb, breakageArb);

describe("POST /api/v1/products: properties", () => {
  it("accepts every valid body and lists it back unchanged", async ({ h }) => {
    await checkProperty(
      fc.asyncProperty(productBodyArb, async (body) => {
        // An empty organization per run: a sku from an earlier run (or a shrink replay) is no duplicate.
        const caller = emptyOrganization(h);
        const created = await h.created({ ...body }, caller);
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
        const listed = await h.newest(caller);
        expect(listed).toEqual(expected);
        expect(new Decimal(listed.unitPrice).equals(new Decimal(body.unitPrice.text))).toBe(true);
      }),
    );
  });

  it("refuses a body with any one constraint broken, naming that field, and stores nothing", async ({
    h,
  }) => {
    await checkProperty(
      fc.asyncProperty(invalidProductBodyArb, async ({ body, field }) => {
        const before = h.ref.store.listProducts("org_lumiere", { limit: 1000 }).length;
        // A fresh sku, unless the sku is what this run breaks.
        const sent = field === "sku" ? body : { ...body, sku: h.freshSku() };
        expectInvalid(await h.create(sent), field);
        expect(h.ref.store.listProducts("org_lumiere", { limit: 1000 })).toHaveLength(before);
      }),
    );
  });

  it("round-trips any price of at most 4 decimals and 16 digits exactly", async ({ h }) => {
    await checkProperty(
      fc.asyncProperty(priceTextArb(16), async (text) => {
        const created = await h.created({ ...minimal(h), unitPrice: new RawNumber(text) });
        expect(created.unitPrice).toBe(new Decimal(text).toFixed(4));
      }),
      100,
    );
  });
});
