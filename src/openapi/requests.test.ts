import fc from "fast-check";
import request, { type Response } from "supertest";
import { describe, expect } from "vitest";
import { LIMITS } from "../validation/schemas.js";
import { OpenApiValidator, type Verdict } from "../test-support/openapi-validator.js";
import {
  RawNumber,
  checkProperty,
  describeResponse,
  jsonText,
  referenceTest,
  type TestReference,
} from "../test-support/reference.js";
import { buildOpenApiDocument } from "./document.js";

/**
 * The document and the server agree on what a request may be: what the document calls valid (Ajv,
 * strict, reading openapi.json only) the server accepts, and what it calls invalid the server
 * refuses with 400. Requests are drawn from both sides of every rule the document states. The one
 * rule it cannot state, sku uniqueness, is told apart by the test.
 */

const validator = new OpenApiValidator(buildOpenApiDocument());
const it = referenceTest();

const RUNS = 150;
const EMOJI = "😀";

/** Tallies the verdicts, so that a run drawing from one side only fails. */
function tally() {
  const seen = { valid: 0, invalid: 0 };
  return {
    count: (ok: boolean) => (ok ? (seen.valid += 1) : (seen.invalid += 1)),
    expectBothSides: () => {
      expect(seen.valid, "requests the document calls valid").toBeGreaterThan(RUNS / 10);
      expect(seen.invalid, "requests the document calls invalid").toBeGreaterThan(RUNS / 10);
    },
  };
}

/** What was sent, what the document says of it and what the server answered, for a failure's message. */
function explain(sent: string, verdict: Verdict, res: Response): string {
  return `${sent}\nopenapi.json: ${verdict.ok ? "valid" : verdict.problems.join("; ")}\nserver: ${describeResponse(res)}`;
}

/** A body as the document judges it and as the server answers it. */
async function postBoth(ref: TestReference, path: string, text: string) {
  const verdict = validator.acceptsBody("post", path, JSON.parse(text));
  const res = await request(ref.app)
    .post(path)
    .set(ref.auth("lumiere-full"))
    .set("Content-Type", "application/json")
    .send(text);
  return { verdict, res, because: explain(text, verdict, res) };
}

// --- bodies ----------------------------------------------------------------------------------------

const notAString = fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.constant([]), fc.constant({}));

const TEXT_EDGES = [
  "",
  " ",
  "\u200b",
  "\t\n",
  "\u00a0",
  "\u0000",
  "\ud800",
  "a\udc00b",
  "\u202e x",
  "\ufeffa",
];
const lengthEdges = (max: number) =>
  [max - 1, max, max + 1].flatMap((n) => ["a".repeat(n), EMOJI.repeat(n), `${" ".repeat(n - 1)}é`]);

/** Texts around every rule: blank, lone surrogates, lengths at and past the limit in code points. */
const anyText = (max: number) =>
  fc.oneof(
    fc.string({ unit: "grapheme", minLength: 1, maxLength: 12 }),
    fc.string({ unit: "binary", maxLength: 12 }),
    fc.constantFrom(...TEXT_EDGES),
    fc.constantFrom(...lengthEdges(max)),
    notAString,
  );
const goodText = (max: number) => fc.string({ unit: "grapheme", minLength: 1, maxLength: Math.min(max, 30) });
const text = (max: number) =>
  fc.oneof({ weight: 4, arbitrary: goodText(max) }, { weight: 1, arbitrary: anyText(max) });

const EMAIL_EDGES = [
  "a@b",
  "a.b@example.com",
  "a..b@c.d",
  "not-an-email",
  "a@",
  "@b.c",
  "a b@c.d",
  '"q"@example.com',
  "a@[127.0.0.1]",
  "é@example.com",
  "a@-b.c",
  "a@b-.c",
  "",
];
const email = fc.oneof(
  fc.emailAddress(),
  fc.constantFrom(...EMAIL_EDGES),
  fc.string({ maxLength: 10 }),
  notAString,
);

const oneOf = (values: readonly string[]) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...values) },
    { weight: 1, arbitrary: fc.oneof(fc.constantFrom("", "client", "OTHER"), notAString) },
  );

/** Prices at the edges of the rules, drawn among the property's prices too. */
const DRAWN_PRICE_EDGES = [
  "0",
  "-0",
  "-1",
  "-0.0001",
  "0.0001",
  "0.00001",
  "1e2",
  "1E-4",
  "1.5e-5",
  "2.50000",
  "19.99",
];
const PRICE_EDGES = [...DRAWN_PRICE_EDGES, "0.0003", "9999999.9999"];

/** A JSON number's text: decimals from 0 to 6, negatives, exponents; prices < 10^7 (see the validator). */
const priceText = fc.oneof(
  fc
    .tuple(fc.integer({ min: 0, max: 9_999_999 }), fc.integer({ min: 0, max: 6 }), fc.nat())
    .map(([units, decimals, digits]) =>
      decimals === 0 ? String(units) : `${units}.${String(digits).padStart(decimals, "0").slice(-decimals)}`,
    ),
  fc.constantFrom(...DRAWN_PRICE_EDGES),
);
const unitPrice = fc.oneof(
  { weight: 6, arbitrary: priceText.map((t) => new RawNumber(t)) },
  { weight: 1, arbitrary: fc.oneof(fc.constantFrom("10", "", "1.5"), notAString) },
);

/** Keys drawn present or absent; now and then a field the schema does not know. */
function body(fields: Record<string, fc.Arbitrary<unknown>>, required: readonly string[]) {
  return fc
    .tuple(
      fc.record(fields, { requiredKeys: [] }),
      fc.record(Object.fromEntries(required.map((k) => [k, fields[k] ?? fc.constant(null)]))),
      fc.integer({ min: 0, max: 9 }),
      fc.constantFrom("emial", "constructor", "id", "Name"),
    )
    .map(([some, requiredValues, dice, unknownKey]) => {
      // Nine times in ten every required field is there; once in ten a field is missing.
      const result: Record<string, unknown> = dice === 0 ? some : { ...some, ...requiredValues };
      if (dice === 1) result[unknownKey] = "x";
      return result;
    });
}

const contactBody = body(
  {
    type: oneOf(["CLIENT", "SUPPLIER", "BOTH"]),
    name: text(LIMITS.contactName),
    email,
    phone: text(LIMITS.contactPhone),
    address: text(LIMITS.contactAddress),
    taxNumberTPS: text(LIMITS.contactTaxNumber),
    taxNumberTVQ: text(LIMITS.contactTaxNumber),
  },
  ["type", "name"],
);

const productBody = body(
  {
    sku: text(LIMITS.productSku),
    name: text(LIMITS.productName),
    description: text(LIMITS.productDescription),
    type: oneOf(["PRODUCT", "SERVICE"]),
    unitPrice,
    taxable: fc.oneof(
      { weight: 4, arbitrary: fc.boolean() },
      { weight: 1, arbitrary: fc.oneof(fc.constant("true"), notAString) },
    ),
  },
  ["sku", "name", "unitPrice"],
);

describe("request bodies: the document and the server agree", () => {
  it.for([
    ["/api/v1/contacts", contactBody],
    ["/api/v1/products", productBody],
  ] as const)("POST %s: valid by openapi.json is 201, invalid is 400", async ([path, arbitrary], { ref }) => {
    const sides = tally();
    const skus = new Set<unknown>();
    await checkProperty(
      fc.asyncProperty(arbitrary, async (b) => {
        const text = jsonText(b);
        const { verdict, res, because } = await postBoth(ref, path, text);
        // The one rule the document cannot state: a sku already used in the organization.
        const duplicate = path === "/api/v1/products" && skus.has(b.sku);
        sides.count(verdict.ok && !duplicate);
        expect(res.status, because).toBe(verdict.ok && !duplicate ? 201 : 400);
        if (res.status === 201) skus.add(b.sku);
      }),
      RUNS,
    );
    sides.expectBothSides();
  });
});

/** Asks both and returns the verdict, after checking that they agree. */
async function expectSameVerdictOnBody(ref: TestReference, path: string, text: string): Promise<boolean> {
  const { verdict, res, because } = await postBoth(ref, path, text);
  expect(res.status, because).toBe(verdict.ok ? 201 : 400);
  return verdict.ok;
}

describe("request bodies: the document and the server agree on each edge", () => {
  it.for([...TEXT_EDGES, ...lengthEdges(LIMITS.contactPhone)])("contact phone %j", async (phone, { ref }) => {
    await expectSameVerdictOnBody(
      ref,
      "/api/v1/contacts",
      JSON.stringify({ type: "CLIENT", name: "n", phone }),
    );
  });

  it.for(EMAIL_EDGES)("contact email %j", async (email, { ref }) => {
    await expectSameVerdictOnBody(
      ref,
      "/api/v1/contacts",
      JSON.stringify({ type: "CLIENT", name: "n", email }),
    );
  });

  it.for(PRICE_EDGES)("product unitPrice %s", async (price, { ref }) => {
    await expectSameVerdictOnBody(
      ref,
      "/api/v1/products",
      // Each test has its own reference: one sku never meets another.
      jsonText({ sku: "EDGE-1", name: "n", unitPrice: new RawNumber(price) }),
    );
  });
});

// --- queries ---------------------------------------------------------------------------------------

const LIMIT_EDGES = ["1", "200", "0", "201", "050", "+5", "5.0", "", "abc", "1e2", "-1", " 5", "2147483648"];
const BEFORE_EDGES = [
  "2026-10-30",
  "2024-02-29",
  "2026-02-29",
  "2026-02-30",
  "2026-13-01",
  "20261030",
  "0000-01-01",
  "2026-10-30T12:00:00Z",
  "2026-10-30T12:00Z",
  "2026-10-30T12:00:00",
  "2026-10-30t12:00:00z",
  "2026-10-30T12:00:00.123456+05:30",
  "2026-10-30T12:00:00+0530",
  "2026-10-30T24:00:00Z",
  "2026-10-30T23:59:60Z",
  "2026-10-30 12:00:00Z",
  "",
];

const limitValue = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 1, max: 200 }).map(String) },
  { weight: 2, arbitrary: fc.constantFrom(...LIMIT_EDGES) },
);
const someDate = fc.date({ min: new Date("1970-01-01"), max: new Date("2100-01-01"), noInvalidDate: true });
const beforeValue = fc.oneof(
  someDate.map((d) => d.toISOString()),
  someDate.map((d) => d.toISOString().slice(0, 10)),
  fc.constantFrom(...BEFORE_EDGES),
);

type Filter = readonly [string, readonly [string, ...string[]]] | undefined;

function query(filter: Filter) {
  const params: Record<string, fc.Arbitrary<string>> = {
    limit: limitValue,
    before: beforeValue,
    utm_source: fc.string(),
  };
  if (filter !== undefined) {
    const [name, values] = filter;
    params[name] = fc.oneof(fc.constantFrom(...values), fc.constantFrom("", "paid", "UNKNOWN"));
  }
  return fc
    .tuple(fc.record(params, { requiredKeys: [] }), fc.constantFrom(undefined, ...Object.keys(params)))
    .map(([values, repeated]) => {
      const search = new URLSearchParams();
      for (const [name, value] of Object.entries(values)) if (value !== undefined) search.append(name, value);
      // Now and then one parameter twice: not a single value, so invalid where the document names it.
      const again = repeated === undefined ? null : search.get(repeated);
      if (repeated !== undefined && again !== null) search.append(repeated, again);
      return search;
    });
}

const LISTS: readonly (readonly [string, Filter])[] = [
  ["/api/v1/contacts", ["type", ["CLIENT", "SUPPLIER", "BOTH"]]],
  ["/api/v1/products", undefined],
  ["/api/v1/invoices", ["status", ["DRAFT", "SENT", "PAID", "OVERDUE", "VOIDED"]]],
  ["/api/v1/expenses", ["status", ["DRAFT", "APPROVED", "PAID", "REJECTED"]]],
];

/** Asks both and returns the verdict, after checking that they agree. */
async function expectSameVerdictOnQuery(
  ref: TestReference,
  path: string,
  search: URLSearchParams,
): Promise<boolean> {
  const verdict = validator.acceptsQuery("get", path, search);
  const url = `${path}?${search.toString()}`;
  const res = await request(ref.app).get(url).set(ref.auth("lumiere-full"));
  const because = explain(url, verdict, res);
  expect(res.status, because).toBe(verdict.ok ? 200 : 400);
  return verdict.ok;
}

describe("list queries: the document and the server agree", () => {
  it.for(LISTS)("GET %s: valid by openapi.json is 200, invalid is 400", async ([path, filter], { ref }) => {
    const sides = tally();
    await checkProperty(
      fc.asyncProperty(query(filter), async (search) => {
        sides.count(await expectSameVerdictOnQuery(ref, path, search));
      }),
      RUNS,
    );
    sides.expectBothSides();
  });

  it.for([
    ...LIMIT_EDGES.map((v) => ["limit", v] as const),
    ...BEFORE_EDGES.map((v) => ["before", v] as const),
  ])("agrees on %s=%j", async ([name, value], { ref }) => {
    await expectSameVerdictOnQuery(ref, "/api/v1/invoices", new URLSearchParams({ [name]: value }));
  });
});
