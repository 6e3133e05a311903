import { describe, expect } from "vitest";
import { ProductJson } from "../../serialization/resources.js";
import {
  creationTest,
  describeLengthLimits,
  minimalProduct as minimal,
} from "../../test-support/creation.js";
import { RawNumber, without } from "../../test-support/reference.js";

// POST /api/v1/products: the prices it reads exactly or refuses, and the bodies it refuses, each
// naming its field, with nothing stored.

const PRODUCTS = "/api/v1/products";

const it = creationTest({ path: PRODUCTS, created: ProductJson, listed: ProductJson, rawNumbers: true });
const MAX_PRICE = "999999999999.9999";

/** §8's limits, in characters (code points, spec-gaps #16). */
const LIMITS = [
  ["sku", 100],
  ["name", 200],
  ["description", 2000],
] as const;

describe("POST /api/v1/products: unitPrice (spec-gaps #19)", () => {
  it.for([
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
  ] as const)("accepts %s and answers %s, exactly", async ([text, expected], { h }) => {
    const product = await h.created({ ...minimal(h), unitPrice: new RawNumber(text) });
    expect(product.unitPrice).toBe(expected);
    expect((await h.newest()).unitPrice).toBe(expected);
  });

  it.for([
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
  ] as const)(
    "refuses a price %s (%s) with 400 naming unitPrice, never rounding it",
    async ([_why, text], { h }) => {
      await h.expectRejected({ ...minimal(h), unitPrice: new RawNumber(text) }, "unitPrice");
    },
  );

  it.for([
    ["a string", "10"],
    ["a decimal string", "10.50"],
    ["null", null],
    ["a boolean", true],
    ["an array", [10]],
    ["an object", { amount: 10 }],
  ] as const)("refuses unitPrice as %s", async ([_why, value], { h }) => {
    await h.expectRejected({ ...minimal(h), unitPrice: value }, "unitPrice");
  });

  it("refuses a body without unitPrice", async ({ h }) => {
    await h.expectRejected({ sku: h.freshSku(), name: "x" }, "unitPrice");
  });
});

describe("POST /api/v1/products: validation", () => {
  describeLengthLimits(it, LIMITS, minimal, { ascii: (max, h) => h.uniqueNumber().padEnd(max, "a") });

  it.for([
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
  ] as const)("refuses the blank %s %j", async ([field, value], { h }) => {
    await h.expectRejected({ ...minimal(h), [field]: value }, field);
  });

  it.for(["sku", "name", "unitPrice"])("refuses a body without %s", async (field, { h }) => {
    await h.expectRejected(without(minimal(h), field), field);
  });

  it.for([
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
  ] as const)("refuses %s %j", async ([field, value], { h }) => {
    await h.expectRejected({ ...minimal(h), [field]: value }, field);
  });

  it.for(["price", "unit_price", "Sku", "id", "organizationId", "createdAt", "constructor", "toString"])(
    "refuses the unknown field %j, naming it in details",
    async (key, { h }) => {
      await h.expectRejected({ ...minimal(h), [key]: "x" }, key);
    },
  );

  it("names every faulty field at once", async ({ h }) => {
    const details = await h.expectRejected(
      { sku: "", name: 5, type: "X", unitPrice: new RawNumber("-1"), taxable: "yes", color: "red" },
      "sku",
    );
    expect(Object.keys(details).sort()).toEqual(["color", "name", "sku", "taxable", "type", "unitPrice"]);
  });
});
