import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  CLEAR_INVALID_EMAILS,
  codePointLength,
  contactBodyArb,
  decimalTextArb,
  emailArb,
  expectedMoney,
  contactRuleBreakExamples,
  invalidContactBodyArb,
  invalidEmailArb,
  invalidLimitArb,
  invalidProductBodyArb,
  productRuleBreakExamples,
  limitArb,
  limitBound,
  listQueryArb,
  padTo,
  productBodyArb,
  productJson,
  productJsonText,
  significantDigits,
} from "./arbitraries.js";
import type { JsonObject } from "./assert.js";
import { kitSpec } from "../spec/kit-spec.js";
const { LISTS } = kitSpec();

/**
 * The arbitraries produce what they claim, judged by validators written here from the spec's tables,
 * independently of the generators: a valid body breaks no rule, an invalid one breaks exactly the rule
 * it names.
 */

const MARKER = "cfk-test-abcd";
const RUNS = { numRuns: 300, seed: 7 };

/** The WHATWG HTML definition of a valid e-mail address, the most permissive reading spec-gaps #18 names. */
const WHATWG_EMAIL =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;
/** What every reading accepts: dot-atom local part without odd dots, a letters-only TLD. */
const CLEAR_EMAIL =
  /^[a-z0-9+]+(\.[a-z0-9+]+)*@[a-z0-9]+(-[a-z0-9]+)*(\.[a-z0-9]+(-[a-z0-9]+)*)*\.[a-z]{2,}$/;

type Rule = (v: unknown) => boolean;
const text =
  (max: number): Rule =>
  (v) =>
    typeof v === "string" && v.trim() !== "" && codePointLength(v) <= max;
const oneOf =
  (...values: string[]): Rule =>
  (v) =>
    typeof v === "string" && values.includes(v);

/** The fields of `body` that break §4's body table (required, type, enum, length, format). */
function broken(body: JsonObject, rules: Record<string, { required: boolean; ok: Rule }>): string[] {
  return Object.entries(rules)
    .filter(([field, { required, ok }]) => (field in body ? !ok(body[field]) : required))
    .map(([field]) => field);
}

const CONTACT_RULES = {
  type: { required: true, ok: oneOf("CLIENT", "SUPPLIER", "BOTH") },
  name: { required: true, ok: text(200) },
  email: { required: false, ok: (v: unknown) => typeof v === "string" && WHATWG_EMAIL.test(v) },
  phone: { required: false, ok: text(50) },
  address: { required: false, ok: text(500) },
  taxNumberTPS: { required: false, ok: text(50) },
  taxNumberTVQ: { required: false, ok: text(50) },
};

const PRODUCT_RULES = {
  sku: { required: true, ok: text(100) },
  name: { required: true, ok: text(200) },
  description: { required: false, ok: text(2000) },
  type: { required: false, ok: oneOf("PRODUCT", "SERVICE") },
  unitPrice: { required: true, ok: (v: unknown) => typeof v === "number" && Number.isFinite(v) && v >= 0 },
  taxable: { required: false, ok: (v: unknown) => typeof v === "boolean" },
};

/** No open point in a valid body: no astral characters, no outer whitespace. */
function plainText(s: string): boolean {
  return s.length === codePointLength(s) && s.trim() === s;
}

describe("contact bodies", () => {
  it("valid ones break no rule, carry the marker and stay clear of open points", () => {
    fc.assert(
      fc.property(contactBodyArb(kitSpec(), MARKER), (body) => {
        expect(broken(body, CONTACT_RULES)).toEqual([]);
        expect(body.name.startsWith(MARKER)).toBe(true);
        for (const v of Object.values(body)) expect(plainText(v)).toBe(true);
        if (body.email !== undefined) expect(body.email).toMatch(CLEAR_EMAIL);
      }),
      RUNS,
    );
  });

  it("invalid ones break exactly the rule they name", () => {
    fc.assert(
      fc.property(invalidContactBodyArb(kitSpec(), MARKER), ({ body, field }) => {
        expect(broken(body, CONTACT_RULES)).toEqual([field]);
      }),
      RUNS,
    );
  });

  it("e-mails: generated valid ones are clear, generated invalid ones invalid under every reading", () => {
    fc.assert(
      fc.property(emailArb, (e) => {
        expect(e).toMatch(CLEAR_EMAIL);
        expect(e).toMatch(WHATWG_EMAIL);
      }),
      RUNS,
    );
    fc.assert(
      fc.property(invalidEmailArb, (e) => {
        expect(e).not.toMatch(WHATWG_EMAIL);
      }),
      RUNS,
    );
    for (const e of CLEAR_INVALID_EMAILS) expect(e).not.toMatch(WHATWG_EMAIL);
  });
});

describe("product bodies", () => {
  it("valid ones break no rule, carry the marker in sku and name, and price within the MUST range", () => {
    fc.assert(
      fc.property(productBodyArb(kitSpec(), MARKER), (draft) => {
        expect(broken(productJson(draft), PRODUCT_RULES)).toEqual([]);
        expect(draft.sku.startsWith(`${MARKER}-`)).toBe(true);
        expect(draft.name.startsWith(MARKER)).toBe(true);
        expect(draft.unitPrice).toMatch(/^(0|[1-9][0-9]*)(\.[0-9]{1,4})?$/);
        expect(significantDigits(draft.unitPrice)).toBeLessThanOrEqual(15);
        // Room for the per-request counter withUniqueSku inserts.
        expect(draft.sku.length).toBeLessThanOrEqual(100 - 12);
      }),
      RUNS,
    );
  });

  it("are written with unitPrice exactly as generated", () => {
    fc.assert(
      fc.property(productBodyArb(kitSpec(), MARKER), (draft) => {
        const raw = productJsonText(draft);
        expect(raw).toContain(`"unitPrice":${draft.unitPrice}`);
        const parsed = JSON.parse(raw) as JsonObject;
        expect(parsed).toEqual({ ...draft, unitPrice: Number(draft.unitPrice) });
      }),
      RUNS,
    );
  });

  it("invalid ones break exactly the rule they name", () => {
    fc.assert(
      fc.property(invalidProductBodyArb(kitSpec(), MARKER), ({ body, field }) => {
        expect(broken(body, PRODUCT_RULES)).toEqual([field]);
      }),
      RUNS,
    );
  });
});

describe("decimals", () => {
  it("decimalTextArb writes plain JSON numbers within its bounds", () => {
    fc.assert(
      fc.property(decimalTextArb({ maxIntDigits: 3, maxDecimals: 2, nonZero: true }), (t) => {
        expect(t).toMatch(/^(0|[1-9][0-9]{0,2})(\.[0-9]{1,2})?$/);
        expect(Number(t)).toBeGreaterThan(0);
        expect(JSON.parse(t)).toBe(Number(t));
      }),
      RUNS,
    );
  });

  it("counts significant digits and renders money with four decimals", () => {
    expect(significantDigits("0")).toBe(1);
    expect(significantDigits("0.0001")).toBe(1);
    expect(significantDigits("100")).toBe(1);
    expect(significantDigits("1234.5")).toBe(5);
    expect(significantDigits("99999999999.9999")).toBe(15);
    expect(expectedMoney("1234.5")).toBe("1234.5000");
    expect(expectedMoney("0")).toBe("0.0000");
    expect(expectedMoney("99999999999.9999")).toBe("99999999999.9999");
    expect(expectedMoney("0.3")).toBe("0.3000");
  });
});

describe("list queries", () => {
  it("limitArb(kitSpec()) gives every integer from 1 to 200 as text, nothing else", () => {
    fc.assert(
      fc.property(limitArb(kitSpec()), (l) => {
        expect(l).toMatch(/^([1-9][0-9]?|1[0-9]{2}|200)$/);
      }),
      RUNS,
    );
  });

  it("invalidLimitArb(kitSpec()) gives no canonical limit", () => {
    fc.assert(
      fc.property(invalidLimitArb(kitSpec()), ({ value }) => {
        if (typeof value === "string") expect(value).not.toMatch(/^([1-9][0-9]?|1[0-9]{2}|200)$/);
        else expect(value.length).toBeGreaterThan(1);
      }),
      RUNS,
    );
  });

  it("limitBound: clamped to 1..200, non-integers rounded up, anything but decimal notation means 200, repeats their largest", () => {
    expect(limitBound(kitSpec(), "0")).toBe(1);
    expect(limitBound(kitSpec(), "-5")).toBe(1);
    expect(limitBound(kitSpec(), "201")).toBe(200);
    expect(limitBound(kitSpec(), "1000000")).toBe(200);
    expect(limitBound(kitSpec(), "1.5")).toBe(2);
    // Not decimal notation: a target may read these as no limit at all (spec-gaps #10).
    for (const text of ["1e2", "0x10", "0b11", "0o7", "+5", " 5", "5 ", ".5", "5.", "1_0"]) {
      expect(limitBound(kitSpec(), text), text).toBe(200);
    }
    expect(limitBound(kitSpec(), "abc")).toBe(200);
    expect(limitBound(kitSpec(), "")).toBe(200);
    expect(limitBound(kitSpec(), "Infinity")).toBe(200);
    expect(limitBound(kitSpec(), ["10", "20"])).toBe(20);
  });

  it("listQueryArb(kitSpec()) filters only lists that have a filter, with a value of its enum", () => {
    fc.assert(
      fc.property(listQueryArb(kitSpec()), (q) => {
        const filter = LISTS[q.list].filter;
        if (q.filter !== undefined) expect(filter?.values).toContain(q.filter);
        if (filter === undefined) expect(q.filter).toBeUndefined();
        if (q.limit !== undefined) expect(Number(q.limit)).toBeGreaterThanOrEqual(1);
      }),
      RUNS,
    );
  });
});

describe("padTo", () => {
  it("pads to a length in code points, astral fill included", () => {
    expect(padTo("ab", 5)).toBe("abxxx");
    const astral = padTo("ab", 5, "\u{1D400}");
    expect(codePointLength(astral)).toBe(5);
    expect(astral.length).toBe(8);
    expect(() => padTo("abcdef", 5)).toThrow(RangeError);
  });
});

/** The JSON type of a value, as the body tables of §4 name types. */
const jsonType = (v: unknown): string =>
  v === null ? "null" : Array.isArray(v) ? "array" : typeof v === "object" ? "object" : typeof v;

describe("the fixed single-rule breaks (every run, whatever the seed)", () => {
  const contactExamples = contactRuleBreakExamples(kitSpec(), MARKER);
  const productExamples = productRuleBreakExamples(kitSpec(), MARKER, (n) => `${MARKER}-inv-${n}`);

  it.each([
    ["contact", contactExamples, CONTACT_RULES],
    ["product", productExamples, PRODUCT_RULES],
  ] as const)("each %s example breaks exactly the rule it names", (_what, examples, rules) => {
    for (const e of examples) expect(broken(e.body, rules), `${e.field} ${e.why}`).toEqual([e.field]);
  });

  it.each([
    ["contact", contactExamples, CONTACT_RULES],
    ["product", productExamples, PRODUCT_RULES],
  ] as const)(
    "break every field of the %s table every way: missing if required, each other JSON type, one character over its maximum",
    (_what, examples, rules) => {
      for (const [field, { required }] of Object.entries(rules)) {
        const mine = examples.filter((e) => e.field === field);
        if (required)
          expect(
            mine.some((e) => !(field in e.body)),
            `${field} missing`,
          ).toBe(true);
        const types = new Set(mine.filter((e) => field in e.body).map((e) => jsonType(e.body[field])));
        const expected = field === "unitPrice" ? "number" : field === "taxable" ? "boolean" : "string";
        // A string unitPrice is a SHOULD (products.unit-price-string); null only where the field is required.
        const wanted = [
          "string",
          "number",
          "boolean",
          "array",
          "object",
          ...(required ? ["null"] : []),
        ].filter((t) => t !== expected && !(expected === "number" && t === "string"));
        for (const t of wanted) expect(types.has(t), `${field} as ${t}`).toBe(true);
        if (expected === "string" && field !== "type" && field !== "email") {
          expect(
            mine.some((e) => /max \d+/.test(e.why)),
            `${field} over its maximum`,
          ).toBe(true);
        }
      }
    },
  );

  it('include a taxable sent as the string "true"', () => {
    expect(productExamples.some((e) => e.field === "taxable" && e.body.taxable === "true")).toBe(true);
  });
});
