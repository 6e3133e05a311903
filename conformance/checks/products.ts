import { Decimal } from "decimal.js";
import type { ManifestToken } from "../manifest-schema.js";
import { failureKey } from "../failures.js";
import type { Check, CheckContext, HttpExchange } from "../types.js";
import {
  expectDataObject,
  expectErrorEnvelope,
  expectError,
  expectRejected,
  expectStatus,
  expectSuccess,
  fail,
  is2xx,
  outcome,
  snippet,
  type JsonObject,
} from "../support/assert.js";
import {
  expectedMoney,
  invalidProductBodyArb,
  productJsonText,
  productRuleBreakExamples,
  padTo,
  productBodyArb,
  describeInvalid,
  type ProductDraft,
} from "../support/arbitraries.js";
import {
  createdProduct,
  dataObject,
  fullToken,
  itemsOf,
  listRequest,
  locate,
  postProduct,
  requireCreated,
  requireListed,
  tokenHolding,
  unique,
  withUniqueSku,
  type ProductVariant,
} from "../support/data.js";
import { checkProperty, writeRuns } from "../support/property.js";
import { memoSlot, onceSlot } from "../support/shared.js";
import {
  absentOptionals,
  listedProductProblems,
  recordFields,
  problemsKey,
  problemsText,
  type FieldProblem,
} from "../support/shapes.js";
import { INVALID, ruleCheck, updatedAtCheck, type RuleRow } from "../support/rows.js";
import { SECTION, clauseRange } from "../spec/clauses.js";

/** POST /api/v1/products: §4's body table and sku rule, §2's money, §8's lengths (spec-gaps #6, #19, #20). */

interface ListedProduct {
  item: JsonObject;
  draft: ProductDraft;
  exchange: HttpExchange;
  created: HttpExchange;
}

interface PriceExperiment {
  text: string;
  ex: HttpExchange;
  /** What the target stored, when it accepted: from the creation answer, else the list. */
  stored: unknown;
}

/** Each reference product as organization 0's list shows it. */
const LISTED = memoSlot<ProductVariant, ListedProduct>("products as listed");
/** products.unit-price-precision and products.reference-decimals, by the unitPrice's JSON text. */
const PRICES = memoSlot<string, PriceExperiment>("prices sent");
/** products.blank-strings and products.reference-blank: each blank field's answer, by what it is. */
const BLANK = onceSlot<Record<string, HttpExchange>>("the blank fields");

/**
 * §2 bounds unitPrice only below (>= 0); an implementation may document a maximum. Values from here up
 * may be refused with 400 without failing a check (the refusal is observed); smaller ones must pass.
 */
const TOLERATED_MAXIMUM = new Decimal(1_000_000);

/** Any JSON posted to products, by default with organization 0's full token. */
const postJson = (
  ctx: CheckContext,
  json: unknown,
  token: ManifestToken = fullToken(ctx),
): Promise<HttpExchange> =>
  ctx.http.send({ method: "POST", path: ctx.spec.LISTS.products.path, auth: token, json });

const listedProduct = (ctx: CheckContext, variant: ProductVariant): Promise<ListedProduct> =>
  ctx.shared.get(LISTED).get(variant, async () => {
    const { draft, exchange } = await createdProduct(ctx, variant);
    requireCreated(ctx, exchange, `the ${variant} product`, "products.create");
    return { ...(await listedBySku(ctx, draft.sku, exchange)), draft, created: exchange };
  });

/** spec-gaps #6: a product's values are read through the list, the creation answer being open. */
const listedBySku = (
  ctx: CheckContext,
  sku: string,
  created?: HttpExchange,
): Promise<{ item: JsonObject; exchange: HttpExchange }> =>
  requireListed(ctx, "products", (item) => item.sku === sku, `The product ${sku}`, created);

/** The listed product against what was sent; a failure replays the creation, then the list read. */
function expectListedAsSent(
  ctx: CheckContext,
  draft: ProductDraft,
  item: JsonObject,
  ex: HttpExchange,
  created: HttpExchange | undefined,
): void {
  const problems = listedProductProblems(ctx.spec, draft, item);
  if (problems.length > 0) {
    fail(`The product ${draft.sku} is listed otherwise than it was sent`, {
      key: failureKey("listed otherwise", problemsKey(problems)),
      expected: `the values sent (unitPrice ${draft.unitPrice} as "${expectedMoney(draft.unitPrice)}"), §4's defaults for the others`,
      actual: problemsText(problems),
      exchange: ex,
      evidence: [created, ex],
    });
  }
}

/**
 * Creates a product and checks its values through the list (MUST, spec-gaps #6 and #19). A refusal of a
 * price at or above TOLERATED_MAXIMUM is observed, not failed.
 */
async function expectRoundTrip(ctx: CheckContext, draft: ProductDraft): Promise<void> {
  const ex = await postProduct(ctx, fullToken(ctx), draft);
  if (ex.status === 400 && new Decimal(draft.unitPrice).greaterThanOrEqualTo(TOLERATED_MAXIMUM)) {
    expectErrorEnvelope(ex, ctx.spec.ERRORS.invalidRequest.code);
    ctx.observe(
      `unitPrice from ${TOLERATED_MAXIMUM.toFixed()} refused`,
      `unitPrice ${draft.unitPrice} is refused (400): the target has a maximum below it.`,
    );
    return;
  }
  expectSuccess(ex, `POST ${ctx.spec.LISTS.products.path} with a valid body must succeed (§4)`);
  expectDataObject(ex, `POST ${ctx.spec.LISTS.products.path} must answer { "data": {...} }`);
  const { item, exchange } = await listedBySku(ctx, draft.sku, ex);
  expectListedAsSent(ctx, draft, item, exchange, ex);
}

/** §8: a product accepted at its boundaries is kept whole, as the list shows it. */
async function expectKeptIntact(
  ctx: CheckContext,
  draft: ProductDraft,
  what: string,
  /** What `what` names, without the run's values: the failure's key. */
  kind: string,
): Promise<void> {
  const created = await postProduct(ctx, fullToken(ctx), draft);
  expectSuccess(created, `${what} must be accepted (§8)`);
  const { item, exchange } = await listedBySku(ctx, draft.sku, created);
  const problems = listedProductProblems(ctx.spec, draft, item);
  if (problems.length > 0) {
    fail(`${what}: accepted, but not kept intact (§8)`, {
      key: failureKey(kind, problemsKey(problems)),
      expected: "every field read back as sent",
      actual: problems.map((p) => snippet(p.text, 300)).join("; "),
      exchange,
      evidence: [created, exchange],
    });
  }
}

function priceExperiment(ctx: CheckContext, text: string): Promise<PriceExperiment> {
  return ctx.shared.get(PRICES).get(text, async () => {
    const draft: ProductDraft = {
      sku: unique(ctx, "price"),
      name: `${ctx.marker} price ${text}`,
      unitPrice: text,
    };
    const ex = await postProduct(ctx, fullToken(ctx), draft);
    if (!is2xx(ex)) return { text, ex, stored: undefined };
    const answered = dataObject(ex)?.unitPrice;
    const located =
      answered === undefined
        ? await locate(ctx, "products", fullToken(ctx), (i) => i.sku === draft.sku)
        : undefined;
    const stored = answered ?? located?.found?.unitPrice;
    return { text, ex, stored };
  });
}

function blankExperiment(ctx: CheckContext): Promise<Record<string, HttpExchange>> {
  // A blank sku or name cannot carry the marker: the other field does.
  return ctx.shared.get(BLANK).get(async () => ({
    "an empty sku": await postJson(ctx, { sku: "", name: `${ctx.marker} blank sku`, unitPrice: 1 }),
    "a whitespace-only sku": await postJson(ctx, {
      sku: "   ",
      name: `${ctx.marker} blank sku`,
      unitPrice: 1,
    }),
    "a whitespace-only name": await postJson(ctx, { sku: unique(ctx, "blank"), name: "   ", unitPrice: 1 }),
  }));
}

const checks: readonly Check[] = [
  {
    id: "products.create",
    section: SECTION.endpoints,
    clause: ["§4.8", "§4.11"],
    level: "MUST",
    rule: 'A valid product body is created: 200 or 201, { "data": {...} }',
    gap: 6,
    writes: true,
    async run(ctx) {
      for (const variant of ["full", "minimal"] as const) {
        const { exchange } = await createdProduct(ctx, variant);
        const rule = `POST ${ctx.spec.LISTS.products.path} (${variant} body) must create the product`;
        expectStatus(exchange, [200, 201], rule);
        expectDataObject(exchange, rule);
      }
    },
  },
  {
    id: "products.create-201",
    section: SECTION.endpoints,
    clause: ["§4.3", "§4.11"],
    level: "SHOULD",
    rule: "A product creation answers 201, the common rule for creation",
    gap: 6,
    writes: true,
    async run(ctx) {
      const { exchange } = await createdProduct(ctx, "full");
      expectStatus(
        exchange,
        201,
        `POST ${ctx.spec.LISTS.products.path} should answer 201 (§4 "201 for creation")`,
      );
    },
  },
  {
    id: "products.created-listed",
    section: SECTION.endpoints,
    clause: ["§4.7", "§4.8", "§4 Products body.4", "§4 Products body.6"],
    level: "MUST",
    rule: "A created product is listed with the values sent, unitPrice as a 4-decimal string, type PRODUCT and taxable true by default",
    gap: 6,
    writes: true,
    async run(ctx) {
      for (const variant of ["full", "minimal"] as const) {
        const { item, exchange, draft, created } = await listedProduct(ctx, variant);
        expectListedAsSent(ctx, draft, item, exchange, created);
      }
    },
  },
  updatedAtCheck("product", ["§2 Product.8", "§2 Product.9"], (ctx) => listedProduct(ctx, "full")),

  {
    id: "products.reference-response",
    section: SECTION.endpoints,
    clause: "§4.11",
    level: "REFERENCE",
    rule: "A product creation answers 201 with the full product, every field present",
    gap: 6,
    writes: true,
    async run(ctx) {
      const { draft, exchange } = await createdProduct(ctx, "full");
      expectStatus(exchange, 201);
      const data = expectDataObject(exchange);
      const problems: FieldProblem[] = [
        ...listedProductProblems(ctx.spec, draft, data),
        ...absentOptionals(data, recordFields(ctx.spec).products).map(
          (f): FieldProblem => ({
            field: f,
            kind: "missing",
            text: `${f} absent`,
          }),
        ),
      ];
      if (problems.length > 0) {
        fail("The creation answer is not the full product as sent", {
          key: problemsKey(problems),
          expected: "every field of §2's Product, with the values sent",
          actual: problemsText(problems),
          exchange,
        });
      }
    },
  },
  {
    id: "products.valid-bodies",
    section: SECTION.endpoints,
    clause: ["§4.8", ...clauseRange("§4 Products body", 1, 6)],
    level: "MUST",
    rule: "Any valid product body is created and listed with its values; unitPrice (<= 4 decimals, <= 15 digits) reads back exactly",
    gap: 19,
    writes: true,
    async run(ctx) {
      await checkProperty(ctx, {
        rule: "A valid product must be created and listed with the values sent (§4, spec-gaps #6, #19)",
        arb: productBodyArb(ctx.spec, ctx.marker),
        numRuns: writeRuns(ctx),
        // The JSON text as sent (unitPrice a number, written exactly), not the draft's own fields.
        show: (draft) => productJsonText(draft),
        predicate: (draft) => expectRoundTrip(ctx, withUniqueSku(ctx, draft)),
      });
    },
  },
  {
    id: "products.unit-price-round-trip",
    section: SECTION.resources,
    clause: ["§2.1", "§2 Product.6"],
    level: "MUST",
    rule: "unitPrice sent as a number with at most 15 significant digits reads back as the same value with 4 decimals",
    gap: 19,
    writes: true,
    async run(ctx) {
      // Binary floats would turn several of these (0.3, 19.99, 15 digits) into neighbours.
      const texts = [
        "0.0001",
        "0.3",
        "19.99",
        "100",
        "1234.5",
        "987654.3210",
        "12345678901.2345",
        "99999999999.9999",
      ];
      const created: Array<{ draft: ProductDraft; ex: HttpExchange }> = [];
      for (const text of texts) {
        const draft = { sku: unique(ctx, "price"), name: `${ctx.marker} price ${text}`, unitPrice: text };
        const ex = await postProduct(ctx, fullToken(ctx), draft);
        if (ex.status === 400 && new Decimal(text).greaterThanOrEqualTo(TOLERATED_MAXIMUM)) {
          expectErrorEnvelope(ex, ctx.spec.ERRORS.invalidRequest.code);
          ctx.observe(
            `unitPrice ${text} refused`,
            `unitPrice ${text} is refused (400): the target has a maximum below it.`,
          );
          continue;
        }
        expectSuccess(ex, `POST ${ctx.spec.LISTS.products.path} with unitPrice ${text} must succeed (§4)`);
        created.push({ draft, ex });
      }
      // One read of the list finds them all (they are the newest); one not on it is looked for alone.
      const page = await ctx.http.send(
        listRequest(ctx, "products", fullToken(ctx), { limit: String(ctx.spec.MAX.pageMax) }),
      );
      const items = itemsOf(page) ?? [];
      for (const { draft, ex } of created) {
        const item = items.find((i) => i.sku === draft.sku);
        if (item !== undefined) expectListedAsSent(ctx, draft, item, page, ex);
        else {
          const listed = await listedBySku(ctx, draft.sku, ex);
          expectListedAsSent(ctx, draft, listed.item, listed.exchange, ex);
        }
      }
    },
  },
  {
    id: "products.unit-price-precision",
    section: SECTION.resources,
    clause: "§2 Product.6",
    level: "PROBE",
    rule: "What unitPrice beyond 15 significant digits, beyond 4 decimals, or in exponent form gets and reads back as",
    gap: 19,
    writes: true,
    async run(ctx) {
      const cases: ReadonlyArray<[string, string]> = [
        ["1234567890123.4567", "17 significant digits"],
        ["0.12345678901234567", "17 decimals"],
        ["1.23456", "5 decimals"],
        ["2.50000", "5 decimals, trailing zeros"],
        ["1.5e2", "exponent form"],
      ];
      for (const [text, what] of cases) {
        const e = await priceExperiment(ctx, text);
        const stored = e.stored === undefined ? "" : `, reads back as ${JSON.stringify(e.stored)}`;
        ctx.observe(
          `${text}: ${outcome(e.ex)}${stored}`,
          `unitPrice ${text} (${what}) is ${outcome(e.ex)}${stored}.`,
        );
      }
    },
  },
  {
    id: "products.reference-decimals",
    section: SECTION.resources,
    clause: "§2 Product.6",
    level: "REFERENCE",
    rule: "A unitPrice with more than 4 decimals gets 400 invalid_request, never silent rounding",
    gap: 19,
    writes: true,
    async run(ctx) {
      expectRejected(
        ctx.spec,
        (await priceExperiment(ctx, "1.23456")).ex,
        "unitPrice 1.23456 must be refused",
      );
    },
  },
  {
    id: "products.invalid-bodies",
    section: SECTION.endpoints,
    clause: [...clauseRange("§4 Products body", 1, 6), "§7.4", ...clauseRange("§8", 6, 9)],
    level: "MUST",
    rule: "Every product body breaking one rule of §4 (required, type, enum, length, >= 0, boolean; each field × each rule, in every run, random ones on top) gets 400 invalid_request",
    async run(ctx) {
      await checkProperty(ctx, {
        rule: "An invalid product body must be refused with 400 invalid_request (§4, §7)",
        arb: invalidProductBodyArb(ctx.spec, ctx.marker),
        // Every break runs as a fixed example, and the coverage phase sends each field's neighbours:
        // as many random draws on top as a writing property makes.
        numRuns: writeRuns(ctx),
        // Every single-rule break, whatever the seed (a taxable sent as "true" included).
        examples: productRuleBreakExamples(ctx.spec, ctx.marker, () => unique(ctx, "inv")),
        show: describeInvalid,
        classOf: (v) => `${v.field} ${v.rule}`,
        predicate: async ({ body }) => {
          const token = tokenHolding(ctx, ctx.spec.file.endpoints.createProduct.scope);
          expectRejected(ctx.spec, await postJson(ctx, body, token), "the body must be refused");
        },
      });
    },
  },
  {
    id: "products.length-boundaries",
    section: SECTION.limits,
    clause: ["§8.6", "§8.7", "§8.8"],
    level: "MUST",
    rule: 'sku 100, name 200, description 2000 ASCII characters, and a name of 200 "é", are accepted and read back intact through the list; 201 "é" are refused (one ASCII character more: products.invalid-bodies)',
    gap: 16,
    writes: true,
    async run(ctx) {
      const atMax: ProductDraft = {
        sku: padTo(`${unique(ctx, "max")}-`, ctx.spec.MAX.productSku, "s"),
        name: padTo(`${ctx.marker} max `, ctx.spec.MAX.productName),
        description: padTo(`${ctx.marker} `, ctx.spec.MAX.productDescription, "d"),
        unitPrice: "1",
      };
      await expectKeptIntact(ctx, atMax, "Every field at its maximum length", "every field at its maximum");
      // "é" is one character under every reading of spec-gaps #16 (code point, UTF-16 unit, grapheme).
      const bmpName = padTo(`${ctx.marker} `, ctx.spec.MAX.productName, "\u00E9");
      await expectKeptIntact(
        ctx,
        { sku: unique(ctx, "bmp"), name: bmpName, unitPrice: "1" },
        `A name of ${ctx.spec.MAX.productName} characters, mostly "\u00E9" (${Buffer.byteLength(bmpName)} UTF-8 bytes)`,
        `name of ${ctx.spec.MAX.productName} mostly "\u00E9"`,
      );
      expectRejected(
        ctx.spec,
        await postJson(ctx, {
          sku: unique(ctx, "bmp-over"),
          name: padTo(`${ctx.marker} `, ctx.spec.MAX.productName + 1, "\u00E9"),
          unitPrice: 1,
        }),
        `A name of ${ctx.spec.MAX.productName + 1} characters, mostly "\u00E9", must be refused`,
      );
    },
  },
  {
    id: "products.duplicate-sku",
    section: SECTION.endpoints,
    clause: ["§4 Products body.1", "§4 Products body.7", "§7.4"],
    level: "MUST",
    rule: "A second product with a sku already used in the organization gets 400 invalid_request",
    gap: 20,
    writes: true,
    async run(ctx) {
      const { draft, exchange } = await createdProduct(ctx, "full");
      requireCreated(ctx, exchange, "the first product", "products.create");
      const ex = await postJson(ctx, { sku: draft.sku, name: `${ctx.marker} duplicate`, unitPrice: 1 });
      // §4's rule, by situation: the spec's duplicateSku answer (400 invalid_request as written).
      const { status, code } = ctx.spec.ERRORS.duplicateSku;
      expectError(ex, status, code, `A duplicate sku (${draft.sku}) must get ${status} ${code} (§4 rule)`);
    },
  },
  {
    id: "products.sku-other-org",
    section: SECTION.endpoints,
    clause: "§4 Products body.1",
    level: "PROBE",
    rule: "Whether another organization may use a sku already used in the first (a global rule leaks existence)",
    gap: 20,
    writes: true,
    async run(ctx) {
      const other = fullToken(ctx, 1);
      const { draft, exchange } = await createdProduct(ctx, "full");
      requireCreated(ctx, exchange, "the first product", "products.create");
      const ex = await postJson(
        ctx,
        { sku: draft.sku, name: `${ctx.marker} other org`, unitPrice: 1 },
        other,
      );
      const reading = is2xx(ex)
        ? "skus are unique per organization"
        : "skus look unique across organizations";
      ctx.observe(
        `other organization's sku: ${outcome(ex)}`,
        `Organization 1 creating organization 0's sku is ${outcome(ex)}: ${reading}.`,
      );
    },
  },
  {
    id: "products.sku-case",
    section: SECTION.endpoints,
    clause: "§4 Products body.1",
    level: "PROBE",
    rule: "Whether sku uniqueness is case-sensitive",
    gap: 20,
    writes: true,
    async run(ctx) {
      const { draft, exchange } = await createdProduct(ctx, "full");
      requireCreated(ctx, exchange, "the first product", "products.create");
      const ex = await postJson(ctx, {
        sku: draft.sku.toUpperCase(),
        name: `${ctx.marker} upper-case sku`,
        unitPrice: 1,
      });
      const reading = is2xx(ex) ? "uniqueness is case-sensitive" : "uniqueness looks case-insensitive";
      ctx.observe(
        `upper-cased sku: ${outcome(ex)}`,
        `The sku ${draft.sku.toUpperCase()}, an existing sku upper-cased, is ${outcome(ex)}: ${reading}.`,
      );
    },
  },
  {
    id: "products.blank-strings",
    section: SECTION.endpoints,
    clause: ["§4 Products body.1", "§4 Products body.2"],
    level: "PROBE",
    rule: "What a blank or whitespace-only sku or product name gets",
    gap: 17,
    writes: true,
    async run(ctx) {
      const e = await blankExperiment(ctx);
      const said = Object.entries(e).map(([what, ex]) => `${what} is ${outcome(ex)}`);
      ctx.observe(said.join("; "), `${said.join("; ")}.`);
    },
  },
  {
    id: "products.reference-blank",
    section: SECTION.endpoints,
    clause: ["§4 Products body.1", "§4 Products body.2"],
    level: "REFERENCE",
    rule: "A blank or whitespace-only sku or name gets 400 invalid_request",
    gap: 17,
    writes: true,
    async run(ctx) {
      for (const [what, ex] of Object.entries(await blankExperiment(ctx)))
        expectRejected(ctx.spec, ex, `${what} must be refused`);
    },
  },
];

/** A product whose only fault is its unitPrice, named with the marker and a sku of its own. */
const withPrice = (ctx: CheckContext, what: string, unitPrice: unknown) => ({
  what,
  request: {
    method: "POST",
    path: ctx.spec.LISTS.products.path,
    auth: fullToken(ctx),
    json: { sku: unique(ctx, "rule"), name: `${ctx.marker} ${what}`, unitPrice },
  },
});

/** unitPrice outside §4's "number >= 0": one answer expected for each request. */
const rows: readonly RuleRow[] = [
  {
    id: "products.unit-price-negative",
    section: SECTION.limits,
    clause: ["§8.9", "§4 Products body.5"],
    level: "MUST",
    rule: "A negative unitPrice gets 400 invalid_request",
    gap: 19,
    requests: (ctx) =>
      [-0.01, -1, -1000.5].map((price) => withPrice(ctx, `unitPrice ${price} (§8: >= 0)`, price)),
    expect: INVALID,
  },
  {
    id: "products.unit-price-string",
    section: SECTION.endpoints,
    clause: "§4 Products body.5",
    level: "SHOULD",
    rule: 'A unitPrice sent as a string ("12.50") gets 400 invalid_request: §4 says number',
    gap: 19,
    requests: (ctx) => [withPrice(ctx, 'unitPrice "12.50" (a string)', "12.50")],
    expect: INVALID,
  },
];

export const productChecks: readonly Check[] = [...checks, ...rows.map(ruleCheck)];
