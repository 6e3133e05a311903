import { Decimal } from "decimal.js";
import fc from "fast-check";
import { snippet, type JsonObject } from "./assert.js";
import { addedValues, LIST_NAMES, type KitSpec, type ListName } from "../spec/kit-spec.js";

/**
 * Named generators for the property checks. Valid bodies stay inside what the spec promises will work
 * (no blank strings, no astral characters, no outer whitespace, no borderline e-mails: those are open
 * points, PROBEs); invalid bodies break exactly one rule, and say which.
 */

/** Code points, not UTF-16 units: what the kit means by "characters" when it builds strings. */
export const codePointLength = (s: string): number => [...s].length;

/** `prefix` followed by `fill` up to exactly `length` code points. */
export function padTo(prefix: string, length: number, fill = "x"): string {
  const missing = length - codePointLength(prefix);
  if (missing < 0) throw new RangeError(`"${prefix}" is already longer than ${length} characters`);
  return prefix + fill.repeat(missing);
}

// Printable, unambiguous under any Unicode normalization: precomposed Latin-1 letters, no whitespace
// other than the inner space.
const TEXT_CHARS = [
  ..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
  ..." -'.,&()/#",
  ..."éèêàâçôîûüëÉÀÇñö",
];

/** Text of `min`..`max` characters, never blank and never with outer whitespace. */
export function textArb(min: number, max: number): fc.Arbitrary<string> {
  return fc
    .string({ unit: fc.constantFrom(...TEXT_CHARS), minLength: Math.max(1, min), maxLength: max })
    .map((s) => s.replace(/^ +| +$/g, (spaces) => "x".repeat(spaces.length)));
}

/** A name that starts with the run's marker, so that every record a run creates can be found. */
export function markedTextArb(marker: string, max: number): fc.Arbitrary<string> {
  const room = max - codePointLength(marker) - 1;
  return fc
    .option(textArb(1, room), { nil: undefined })
    .map((s) => (s === undefined ? marker : `${marker} ${s}`));
}

/** Clearly valid addresses: dot-atom local part, letters-only TLD (spec-gaps #18 clear cases). */
export const emailArb: fc.Arbitrary<string> = fc.stringMatching(
  /^[a-z0-9]{1,10}(\.[a-z0-9]{1,8})?(\+[a-z0-9]{1,5})?@[a-z0-9]{1,10}(-[a-z0-9]{1,6})?\.[a-z]{2,6}$/,
);

/** spec-gaps #18: the clear cases every reading of "valid e-mail address format" rejects. */
export const CLEAR_INVALID_EMAILS: readonly string[] = ["not-an-email", "a@", "@b.c", "a b@c.d"];

export const invalidEmailArb: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...CLEAR_INVALID_EMAILS),
  // No @ at all.
  fc.stringMatching(/^[a-z0-9.]{1,20}$/),
  // A space inside.
  fc
    .tuple(fc.stringMatching(/^[a-z]{1,6}$/), fc.stringMatching(/^[a-z]{1,6}$/))
    .map(([a, b]) => `${a} ${b}@example.com`),
);

/** Real-looking phone numbers: §2 bounds only the length, but a server may reasonably refuse letters. */
export const phoneArb: fc.Arbitrary<string> = fc.stringMatching(
  /^(\+1 )?\(?[2-9][0-9]{2}\)?[ -][0-9]{3}-[0-9]{4}( ext\. [0-9]{1,5})?$/,
);

export const taxNumberArb: fc.Arbitrary<string> = fc.stringMatching(/^[0-9]{9} ?(RT|TQ)[0-9]{4}$/);

// Type aliases, not interfaces: they are JSON objects (Record<string, unknown>) as they are.
export type ContactBody = {
  type: string;
  name: string;
  email?: string;
  phone?: string;
  address?: string;
  taxNumberTPS?: string;
  taxNumberTVQ?: string;
};

export function contactBodyArb(spec: KitSpec, marker: string): fc.Arbitrary<ContactBody> {
  return fc
    .record(
      {
        type: fc.constantFrom(...spec.CONTACT_TYPES),
        name: markedTextArb(marker, spec.MAX.contactName),
        email: emailArb,
        phone: phoneArb,
        address: textArb(1, spec.MAX.contactAddress),
        taxNumberTPS: taxNumberArb,
        taxNumberTVQ: taxNumberArb,
      },
      { requiredKeys: ["type", "name"] },
    )
    .map((body) => ({ ...body, ...addedValues(spec, "contact", "required") }));
}

/** A body that breaks one rule, and which. */
export interface InvalidBody {
  body: JsonObject;
  /** The field whose rule is broken. */
  field: string;
  /** Which rule, whatever the value: "too long", "a boolean, not a string". A failure's key names it. */
  rule: string;
  /** How, as the failure message says it: "201 characters (max 200)". */
  why: string;
}

/** A broken body as a counterexample shows it: the field, why it is broken, the body as sent. */
export const describeInvalid = (v: InvalidBody): string =>
  `${v.field} ${v.why} in ${snippet(JSON.stringify(v.body), 300)}`;

export interface Mutation {
  field: string;
  rule: string;
  why: string;
  /** Absent: the field is removed. */
  value?: unknown;
}

const tooLong = (field: string, max: number, prefix: string, fill = "x"): fc.Arbitrary<Mutation> =>
  fc.integer({ min: max + 1, max: max + Math.max(50, Math.floor(max / 2)) }).map((n) => ({
    field,
    rule: "too long",
    why: `${n} ASCII characters (max ${max})`,
    value: padTo(prefix, n, fill),
  }));

function mutate(
  base: fc.Arbitrary<JsonObject>,
  mutations: fc.Arbitrary<Mutation>,
): fc.Arbitrary<InvalidBody> {
  return fc.tuple(base, mutations).map(([valid, m]) => applyBreak(valid, m));
}

/**
 * Wrong JSON types for a field of type `expected`: every other type of JSON. `null` is left out for
 * an optional field (whether null reads as "absent" is open); a string for a number is a SHOULD
 * (products.unit-price-string), not here.
 */
function wrongTypes(field: string, expected: "string" | "number" | "boolean", required: boolean): Mutation[] {
  const values: Array<[string, unknown]> = [
    ["string", expected === "boolean" ? "true" : "x"],
    ["number", expected === "boolean" ? 1 : 42],
    ["boolean", true],
    ["array", expected === "string" ? ["x"] : [1]],
    ["object", {}],
    ...(required ? [["null", null] as [string, unknown]] : []),
  ];
  return values
    .filter(([type]) => type !== expected && !(expected === "number" && type === "string"))
    .map(([type, value]) => ({
      field,
      rule: `a ${type}, not a ${expected}`,
      why: `${JSON.stringify(value)} (${type}) is not a ${expected}`,
      value,
    }));
}

const missingField = (field: string): Mutation => ({ field, rule: "missing", why: "missing (required)" });

const outsideEnum = (field: string, values: readonly string[], allowed: readonly string[]): Mutation[] =>
  values.map((value) => ({
    field,
    rule: "outside the enum",
    why: `${JSON.stringify(value)} is not one of ${allowed.join(", ")}`,
    value,
  }));

const overMax = (field: string, max: number, prefix: string, fill = "x"): Mutation => ({
  field,
  rule: "too long",
  why: `${max + 1} ASCII characters (max ${max})`,
  value: padTo(prefix, max + 1, fill),
});

/** A valid body with every field of §4's contact table: the base each fixed rule break starts from. */
export const fullContactBody = (spec: KitSpec, marker: string): ContactBody => ({
  ...addedValues(spec, "contact", "all"),
  type: spec.SAMPLE.contactType,
  name: `${marker} rule break`,
  email: "a@example.com",
  phone: "+1 514-555-0199",
  address: "1234 rue Saint-Denis, Montréal",
  taxNumberTPS: "123456789RT0001",
  taxNumberTVQ: "1234567890TQ0001",
});

/**
 * Every single-rule break of §4's contact body table and §8's limits, one per (field, rule, JSON type):
 * required, enum, type, length at max + 1, the clear invalid e-mails. Fixed: each runs in every run.
 */
export function contactRuleBreaks(spec: KitSpec, marker: string): Mutation[] {
  const prefix = `${marker} `;
  return [
    missingField("type"),
    ...outsideEnum("type", ["VENDOR", "CUSTOMER", ""], spec.CONTACT_TYPES),
    ...wrongTypes("type", "string", true),
    missingField("name"),
    overMax("name", spec.MAX.contactName, prefix),
    ...wrongTypes("name", "string", true),
    ...CLEAR_INVALID_EMAILS.map((value) => ({
      field: "email",
      rule: "not an e-mail address",
      why: `${JSON.stringify(value)} is not an e-mail address`,
      value,
    })),
    ...wrongTypes("email", "string", false),
    overMax("phone", spec.MAX.contactPhone, "+1 514 555 0199 ", "9"),
    ...wrongTypes("phone", "string", false),
    overMax("address", spec.MAX.contactAddress, prefix),
    ...wrongTypes("address", "string", false),
    overMax("taxNumberTPS", spec.MAX.contactTaxNumberTPS, "123456789RT", "0"),
    ...wrongTypes("taxNumberTPS", "string", false),
    overMax("taxNumberTVQ", spec.MAX.contactTaxNumberTVQ, "1234567890TQ", "0"),
    ...wrongTypes("taxNumberTVQ", "string", false),
  ];
}

/** A mutation applied to a valid body. */
export function applyBreak(valid: JsonObject, m: Mutation): InvalidBody {
  const body: JsonObject = Object.fromEntries(Object.entries(valid).filter(([k]) => k !== m.field));
  if ("value" in m) body[m.field] = m.value;
  return { body, field: m.field, rule: m.rule, why: m.why };
}

/** The fixed examples of contacts.invalid-bodies: every single-rule break, on a full valid body. */
export const contactRuleBreakExamples = (spec: KitSpec, marker: string): InvalidBody[] =>
  contactRuleBreaks(spec, marker).map((m) => applyBreak(fullContactBody(spec, marker), m));

/**
 * Contact bodies breaking one rule of §4's body table or §8's limits, drawn at random on top of the
 * fixed examples: any valid body, any break, longer strings and other invalid e-mails.
 */
export function invalidContactBodyArb(spec: KitSpec, marker: string): fc.Arbitrary<InvalidBody> {
  const prefix = `${marker} `;
  return mutate(
    contactBodyArb(spec, marker),
    fc.oneof(
      fc.constantFrom(...contactRuleBreaks(spec, marker)),
      tooLong("name", spec.MAX.contactName, prefix),
      invalidEmailArb.map((value) => ({
        field: "email",
        rule: "not an e-mail address",
        why: `${JSON.stringify(value)} is not an e-mail address`,
        value,
      })),
      tooLong("phone", spec.MAX.contactPhone, "+1 514 555 0199 ", "9"),
      tooLong("address", spec.MAX.contactAddress, prefix),
      tooLong("taxNumberTPS", spec.MAX.contactTaxNumberTPS, "123456789RT", "0"),
      tooLong("taxNumberTVQ", spec.MAX.contactTaxNumberTVQ, "1234567890TQ", "0"),
    ),
  );
}

// ---- products --------------------------------------------------------------------------------------

/** A decimal number as JSON text: plain digits, no exponent, no leading zero. */
export function decimalTextArb(
  options: { maxIntDigits?: number; maxDecimals?: number; nonZero?: boolean } = {},
): fc.Arbitrary<string> {
  const maxInt = options.maxIntDigits ?? 11;
  const maxDec = options.maxDecimals ?? 4;
  const int = fc.oneof(fc.constant("0"), fc.stringMatching(new RegExp(`^[1-9][0-9]{0,${maxInt - 1}}$`)));
  const frac = fc.stringMatching(new RegExp(`^[0-9]{0,${maxDec}}$`));
  const text = fc.tuple(int, frac).map(([i, f]) => (f === "" ? i : `${i}.${f}`));
  return options.nonZero === true ? text.filter((t) => !new Decimal(t).isZero()) : text;
}

/** Significant digits of a decimal text (leading and trailing zeros do not count; zero has one). */
export function significantDigits(text: string): number {
  const digits = text.replace(/^[-+]/, "").replace(".", "").replace(/^0+/, "").replace(/0+$/, "");
  return Math.max(1, digits.length);
}

/** §2: what a unitPrice sent as `text` reads back as: a decimal string with four decimals. */
export const expectedMoney = (text: string): string => new Decimal(text).toFixed(4);

export type ProductDraft = {
  sku: string;
  name: string;
  description?: string;
  type?: string;
  /** The number exactly as it is written in the JSON body. */
  unitPrice: string;
  taxable?: boolean;
};

/** Room left in a sku after the marker and a per-request counter (`<marker>-<n>-`). */
const SKU_TAIL_MAX = 40;

export function productBodyArb(spec: KitSpec, marker: string): fc.Arbitrary<ProductDraft> {
  return fc
    .record(
      {
        sku: fc
          .stringMatching(new RegExp(`^[A-Za-z0-9][A-Za-z0-9_-]{0,${SKU_TAIL_MAX - 1}}$`))
          .map((t) => `${marker}-${t}`),
        name: markedTextArb(marker, spec.MAX.productName),
        description: textArb(1, spec.MAX.productDescription),
        type: fc.constantFrom(...spec.PRODUCT_TYPES),
        unitPrice: decimalTextArb(),
        taxable: fc.boolean(),
      },
      { requiredKeys: ["sku", "name", "unitPrice"] },
    )
    .map((draft) => ({ ...draft, ...addedValues(spec, "product", "required") }));
}

/**
 * A product body as JSON text, `unitPrice` written exactly as the draft has it: JSON.stringify would
 * pass it through a binary float first.
 */
export function productJsonText(draft: ProductDraft): string {
  const parts = Object.entries(draft)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${JSON.stringify(k)}:${k === "unitPrice" ? String(v) : JSON.stringify(v)}`);
  return `{${parts.join(",")}}`;
}

/** The draft as a JSON value (unitPrice through a float; fine where precision is not the point). */
export function productJson(draft: ProductDraft): JsonObject {
  return JSON.parse(productJsonText(draft)) as JsonObject;
}

/** A valid product body with every field of §4's table: the base each fixed rule break starts from. */
export const fullProductBody = (spec: KitSpec, marker: string, sku: string): JsonObject => ({
  ...addedValues(spec, "product", "all"),
  sku,
  name: `${marker} rule break`,
  description: "One hour of consulting.",
  type: spec.SAMPLE.otherProductType,
  unitPrice: 10,
  taxable: false,
});

/**
 * Every single-rule break of §4's product body table and §8's limits, one per (field, rule, JSON type).
 * A unitPrice sent as a string is a SHOULD (products.unit-price-string): not here. Fixed: each runs in
 * every run.
 */
export function productRuleBreaks(spec: KitSpec, marker: string): Mutation[] {
  return [
    missingField("sku"),
    overMax("sku", spec.MAX.productSku, `${marker}-`, "s"),
    ...wrongTypes("sku", "string", true),
    missingField("name"),
    overMax("name", spec.MAX.productName, `${marker} `),
    ...wrongTypes("name", "string", true),
    overMax("description", spec.MAX.productDescription, `${marker} `),
    ...wrongTypes("description", "string", false),
    ...outsideEnum("type", ["GOODS", "SERVICES", ""], spec.PRODUCT_TYPES),
    ...wrongTypes("type", "string", false),
    missingField("unitPrice"),
    { field: "unitPrice", rule: "negative", why: "-0.01 is negative (must be >= 0)", value: -0.01 },
    ...wrongTypes("unitPrice", "number", true),
    ...wrongTypes("taxable", "boolean", false),
  ];
}

/** The fixed examples of products.invalid-bodies: every single-rule break, on a full valid body. */
export const productRuleBreakExamples = (
  spec: KitSpec,
  marker: string,
  sku: (n: number) => string,
): InvalidBody[] =>
  productRuleBreaks(spec, marker).map((m, i) => applyBreak(fullProductBody(spec, marker, sku(i)), m));

/**
 * Product bodies breaking one rule of §4's body table or §8's limits, drawn at random on top of the
 * fixed examples (string unitPrice is SHOULD: not here).
 */
export function invalidProductBodyArb(spec: KitSpec, marker: string): fc.Arbitrary<InvalidBody> {
  const negative = decimalTextArb({ maxIntDigits: 6, nonZero: true }).map((t) => ({
    field: "unitPrice",
    rule: "negative",
    why: `-${t} is negative (must be >= 0)`,
    value: -Number(t),
  }));
  return mutate(
    productBodyArb(spec, marker).map(productJson),
    fc.oneof(
      fc.constantFrom(...productRuleBreaks(spec, marker)),
      tooLong("sku", spec.MAX.productSku, `${marker}-`, "s"),
      tooLong("name", spec.MAX.productName, `${marker} `),
      tooLong("description", spec.MAX.productDescription, `${marker} `),
      negative,
    ),
  );
}

// ---- list queries -----------------------------------------------------------------------------------

/** §4: limit, an integer from 1 to 200, as the query string carries it. */
export const limitArb = (spec: KitSpec): fc.Arbitrary<string> =>
  fc.integer({ min: spec.MAX.pageMin, max: spec.MAX.pageMax }).map(String);

export interface InvalidLimit {
  value: string | readonly string[];
}

/** Decimal notation: what a query string's number is. `0x10`, `1e2`, `+5`, ` 5`, `.5` are not numbers. */
export const DECIMAL = /^-?\d+(\.\d+)?$/;

/**
 * spec-gaps #10: the most items an answer to `limit=value` may hold when the target clamps instead of
 * refusing: never more than 200, never more than the limit asked (clamped to at least 1; a non-integer
 * rounded up). Only decimal notation is a number: any other text bounds nothing but the maximum, since a
 * target may read it as no limit at all and serve its default (JavaScript's `Number("0x10")` is 16, a
 * decimal parser's is nothing).
 */
export function limitBound(spec: KitSpec, value: string | readonly string[]): number {
  if (typeof value !== "string") return Math.max(spec.MAX.pageMin, ...value.map((v) => limitBound(spec, v)));
  if (!DECIMAL.test(value)) return spec.MAX.pageMax;
  return Math.min(spec.MAX.pageMax, Math.max(spec.MAX.pageMin, Math.ceil(Number(value))));
}

/** spec-gaps #10: below 1, above 200, not an integer, not a number, repeated. */
export const invalidLimitArb = (spec: KitSpec): fc.Arbitrary<InvalidLimit> =>
  fc
    .oneof(
      fc.integer({ min: -1000, max: spec.MAX.pageMin - 1 }).map(String),
      fc.integer({ min: spec.MAX.pageMax + 1, max: 1_000_000 }).map(String),
      fc
        .tuple(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 1, max: 99 }))
        .map(([i, f]) => `${i}.${f}`),
      fc.constantFrom("", "abc", "ten", "1e2", "0x10", "NaN", "Infinity", "-", "null", "[]"),
      fc.tuple(limitArb(spec), limitArb(spec)).map(([a, b]): readonly string[] => [a, b]),
    )
    .map((value) => ({ value }));

export interface ListQuery {
  list: ListName;
  limit?: string;
  /** The value of the list's enum filter (`type` or `status`), if the query has one. */
  filter?: string;
}

/** Valid list queries: any list, with or without a limit, with or without its filter. */
export const listQueryArb = (spec: KitSpec): fc.Arbitrary<ListQuery> =>
  fc.constantFrom(...LIST_NAMES).chain((list) => {
    const values = spec.LISTS[list].filter?.values;
    return fc
      .tuple(
        fc.option(limitArb(spec), { nil: undefined }),
        values === undefined
          ? fc.constant(undefined)
          : fc.option(fc.constantFrom(...values), { nil: undefined }),
      )
      .map(
        ([limit, filter]): ListQuery => ({
          list,
          ...(limit === undefined ? {} : { limit }),
          ...(filter === undefined ? {} : { filter }),
        }),
      );
  });
