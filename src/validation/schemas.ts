import { Decimal } from "decimal.js";
import { z } from "zod";
import { defaultSpec, type AddedField, type EndpointId, type Spec } from "../../spec/index.js";
import { TEXT_LIMITS, type AddedValue } from "../model/records.js";
import { renderedAs } from "../serialization/json-schema.js";
import type { ContactCreateInput, PageInput, ProductCreateInput } from "../domain/inputs.js";
import { JsonNumber } from "./json.js";
import {
  EMAIL_PATTERN,
  TEXT_PATTERN,
  codePointLength,
  isBlank,
  isEmail,
  isWellFormed,
} from "../model/text.js";

/**
 * What the API accepts from clients: POST bodies (strict objects: an unknown field is an error,
 * spec-gaps #12) and list queries (unknown parameters ignored, spec-gaps #11), built from a spec
 * (its limits, enumerations and added fields) by `compileSpec` (src/routes/compile.ts), once per spec.
 * Each refinement, custom type and transform carries its JSON Schema twin in `.meta()`, because the
 * OpenAPI document is generated from these schemas and zod-openapi drops refinements silently.
 */

const DEFAULT = defaultSpec();

/** The default spec file's limits under the names tests and the document's property tests use. */
export const LIMITS = {
  contactName: DEFAULT.limits.contact.name,
  contactPhone: DEFAULT.limits.contact.phone,
  contactAddress: DEFAULT.limits.contact.address,
  contactTaxNumber: TEXT_LIMITS.contact.taxNumber,
  productSku: DEFAULT.limits.product.sku,
  productName: DEFAULT.limits.product.name,
  productDescription: DEFAULT.limits.product.description,
  /** The largest unitPrice accepted (spec-gaps #19): 16 significant digits at most, all kept exactly. */
  unitPriceMax: new Decimal("999999999999.9999"),
  unitPriceDecimals: 4,
  pageDefault: DEFAULT.limits.page.default,
  pageMax: DEFAULT.limits.page.max,
} as const;

/** A string of at most `max` code points that is not blank (spec-gaps #16, #17). */
const text = (max?: number) => {
  const checked = z
    .string()
    .refine(isWellFormed, "must be valid Unicode text (it holds a lone surrogate)")
    .refine((s) => !isBlank(s), "must not be blank");
  return max === undefined
    ? checked.meta({ pattern: TEXT_PATTERN })
    : checked
        .refine((s) => codePointLength(s) <= max, `must be at most ${max} characters`)
        // JSON Schema's maxLength counts code points, as #16 does.
        .meta({ maxLength: max, pattern: TEXT_PATTERN });
};

const email = z
  .string()
  .refine((s) => isEmail(s), "must be a valid e-mail address (WHATWG HTML definition)")
  .meta({
    pattern: EMAIL_PATTERN,
    description: "A valid e-mail address as the WHATWG HTML standard defines it (`<input type=email>`).",
  });

const MAX_AMOUNT = Number(LIMITS.unitPriceMax.toFixed(4));

/** A JSON number as the body parser hands it on (its text); a missing one is said to be required. */
const jsonNumber = () =>
  z.custom<JsonNumber>((v) => v instanceof JsonNumber, {
    error: (issue) => (issue.input === undefined ? "is required" : "must be a number"),
  });

/**
 * A decimal read from the number's source text, never a binary float: every accepted value comes
 * back exactly. At most 4 decimals (more is refused, never rounded) and 16 significant digits.
 */
const exactDecimal = (nonNegative: boolean, description: string) =>
  jsonNumber()
    .meta({
      override: renderedAs({
        type: "number",
        minimum: nonNegative ? 0 : -MAX_AMOUNT,
        maximum: MAX_AMOUNT,
        multipleOf: 0.0001,
        description,
      }),
    })
    .transform((n, ctx) => {
      const value = new Decimal(n.text);
      const fail = (message: string) => {
        ctx.addIssue({ code: "custom", message, input: n });
        return z.NEVER;
      };
      if (nonNegative && value.isNegative() && !value.isZero())
        return fail("must be greater than or equal to 0");
      // decimal.js turns a value below its exponent range (1e-9000000000000001) into 0: that would be
      // rounding, which #19 forbids. Such a value has far more than 4 decimals.
      if (value.isZero() && /[1-9]/.test(n.text.split(/[eE]/)[0] ?? "")) {
        return fail(`must have at most ${LIMITS.unitPriceDecimals} decimal places`);
      }
      if (value.decimalPlaces() > LIMITS.unitPriceDecimals) {
        return fail(`must have at most ${LIMITS.unitPriceDecimals} decimal places`);
      }
      if (value.abs().greaterThan(LIMITS.unitPriceMax)) {
        return fail(`must be at most ${LIMITS.unitPriceMax.toFixed(4)}${nonNegative ? "" : " in magnitude"}`);
      }
      return value.isZero() ? new Decimal(0) : value;
    });

const unitPrice = exactDecimal(
  true,
  "A JSON number, at most 4 decimals (more is refused, never rounded), read from its text without a binary float: what is sent comes back exactly as a 4-decimal string.",
);

/** A JSON number read from its text, kept as a number (an added field of type number). */
const finiteNumber = jsonNumber()
  .meta({ override: renderedAs({ type: "number" }) })
  .transform((n, ctx) => {
    const value = Number(n.text);
    if (!Number.isFinite(value)) {
      ctx.addIssue({ code: "custom", message: "must be a finite number", input: n });
      return z.NEVER;
    }
    return value;
  });

/** What a variant's added field accepts (`fields.<resource>.<name>`, spec/schema.ts). */
function addedField(field: AddedField): z.ZodType<AddedValue | undefined, unknown> {
  const about = field.description;
  const base: z.ZodType<AddedValue, unknown> =
    field.type === "boolean"
      ? z.boolean()
      : field.type === "number"
        ? finiteNumber
        : field.type === "decimal"
          ? exactDecimal(
              false,
              about ?? "A JSON number, at most 4 decimals, read exactly; served as a 4-decimal string.",
            )
          : field.enum === undefined
            ? text(field.maxLength)
            : z.enum(field.enum);
  const described =
    about === undefined || field.type === "decimal" ? base : base.meta({ description: about });
  return field.required ? described : described.optional();
}

/**
 * The added fields of one resource, by name, in the file's order. Typed as no field at all: the
 * domain's input types are the built-in fields', and the binding reads the added ones by name.
 */
const addedFields = (fields: Readonly<Record<string, AddedField>>): Record<never, never> =>
  Object.fromEntries(Object.entries(fields).map(([name, field]) => [name, addedField(field)]));

/**
 * A product's type when the body gives none (§2's default, spec-gaps #6): the first of the spec's
 * product types, PRODUCT in the default file.
 */
const defaultProductType = (spec: Spec): string => spec.enums.productTypes[0] ?? "";

const NEW_CONTACT =
  "A contact to create. Strings may not be blank (white space, zero-width or control characters only); lengths count Unicode code points. An unknown field is refused.";

/** The creation bodies a spec accepts: its limits, enumerations and added fields. */
export function createBodies(spec: Spec) {
  const { contact, product } = spec.limits;
  // zod's registry holds one schema per id: the default spec's bodies carry theirs, a variant's are
  // named by the document that shows them (src/openapi/document.ts).
  const named = spec === DEFAULT;
  const createContact = z
    .strictObject({
      type: z.enum(spec.enums.contactTypes),
      name: text(contact.name),
      email: email.optional(),
      phone: text(contact.phone).optional(),
      address: text(contact.address).optional(),
      taxNumberTPS: text(contact.taxNumberTPS).optional(),
      taxNumberTVQ: text(contact.taxNumberTVQ).optional(),
    })
    .extend(addedFields(spec.fields.contact))
    .meta(
      named ? { id: "NewContact", description: NEW_CONTACT } : { description: NEW_CONTACT },
    ) satisfies z.ZodType<ContactCreateInput>;
  const duplicate = spec.errors.duplicateSku;
  const newProduct = `A product or service to create. Strings may not be blank; lengths count Unicode code points. An unknown field is refused; a sku already used in the organization is refused with ${duplicate.status} ${duplicate.code}.`;
  const createProduct = z
    .strictObject({
      sku: text(product.sku).meta({
        description: "Unique among the organization's products (exact, case-sensitive match).",
      }),
      name: text(product.name),
      description: text(product.description).optional(),
      type: z.enum(spec.enums.productTypes).default(defaultProductType(spec)),
      unitPrice,
      taxable: z.boolean().default(true),
    })
    .extend(addedFields(spec.fields.product))
    .meta(
      named ? { id: "NewProduct", description: newProduct } : { description: newProduct },
    ) satisfies z.ZodType<ProductCreateInput>;
  return { createContact, createProduct };
}

/**
 * `limit`: a canonical decimal integer from `min` to `max` (spec-gaps #10). "050", "+5", "5.0" and a
 * repeated parameter are rejected rather than guessed at.
 */
const limitParam = ({ default: first, min, max }: Spec["limits"]["page"]) => {
  const range = `must be an integer from ${min} to ${max}`;
  return z
    .string()
    .regex(/^[1-9][0-9]*$/, range)
    .transform(Number)
    .refine((n) => n >= min && n <= max, range)
    .default(first)
    .meta({
      override: renderedAs({
        type: "integer",
        minimum: min,
        maximum: max,
        default: first,
        description: `Page size, ${first} when absent. Written in plain decimal digits: \`050\`, \`+5\` and \`5.0\` are refused.`,
      }),
    });
};

/**
 * The exclusive bound, in whole ms, that keeps exactly the items strictly before the instant `text`
 * names. Date.parse is given the fraction as exactly three digits: it drops digits past the third,
 * which moved a `before` of 00:00:00.0001 back to 00:00:00.000 and lost the items at that
 * millisecond, though they are strictly earlier; and V8 misreads ten digits or more (.0001000000
 * became 1 ms). Order keys are whole ms, so below an instant inside a millisecond means at that
 * millisecond or earlier: below the next one.
 */
export function exclusiveBoundMs(text: string): number {
  const fraction = /\.(\d+)/.exec(text);
  if (fraction === null) return Date.parse(text);
  const digits = fraction[1] ?? "";
  const ms = Date.parse(text.replace(fraction[0], `.${digits.slice(0, 3).padEnd(3, "0")}`));
  return /[1-9]/.test(digits.slice(3)) ? ms + 1 : ms;
}

/**
 * `before` (spec-gaps #8): an ISO 8601 date (midnight UTC) or a date-time with its zone; exclusive,
 * compared exactly, whatever the number of fraction digits. Becomes ms since the epoch, the unit the
 * store's order keys use.
 */
const before = z
  .union(
    [
      z.iso.date(),
      z.iso.datetime({ offset: true }).meta({
        // JSON Schema's date-time is RFC 3339's, which needs the seconds; ISO 8601 and this server
        // do not (2026-10-30T12:00Z). zod's own pattern, kept, says exactly what is accepted.
        override: ({ jsonSchema }: { jsonSchema: Record<string, unknown> }) => {
          Reflect.deleteProperty(jsonSchema, "format");
        },
        description: "A date-time with its zone (`Z` or `±hh:mm`); seconds and fraction optional.",
      }),
    ],
    {
      error: "must be an ISO 8601 date (2026-10-30) or date-time with a zone (2026-10-30T12:00:00.000Z)",
    },
  )
  .meta({
    description:
      "Only items strictly before this instant: a date (midnight UTC) or a date-time with its zone. Newest-first lists end on the date of their last item; following with `before` set to it skips the rest of that day (§4 Pagination).",
  })
  .transform(exclusiveBoundMs)
  .optional();

/**
 * The query of each list of a spec: `limit`, `before`, and the spec's enumeration filter when its row
 * has one, under the row's parameter name (`endpoints.<id>.filter`); `filterOf` reads its value.
 */
export function listQueries(spec: Spec) {
  const limit = limitParam(spec.limits.page);
  const query = (id: EndpointId) => {
    const row = spec.endpoints[id];
    const filter = "filter" in row ? row.filter : undefined;
    return filter === undefined
      ? z.object({ limit, before })
      : z.object({ [filter.param]: z.enum(spec.enums[filter.values]).optional(), limit, before });
  };
  return {
    listContacts: query("listContacts"),
    listProducts: query("listProducts"),
    listInvoices: query("listInvoices"),
    listExpenses: query("listExpenses"),
  };
}

/** A validated list query's filter value (the parameter `param` of its row), if it has one. */
export const filterOf = (
  query: Readonly<Record<string, unknown>>,
  param: string | undefined,
): string | undefined => {
  const value = param === undefined ? undefined : query[param];
  return typeof value === "string" ? value : undefined;
};

/** A validated list query's page size (`limit` always has one: its default). */
export const limitOf = (query: Readonly<Record<string, unknown>>): PageInput["limit"] =>
  typeof query.limit === "number" ? query.limit : 0;

/** A validated list query's `before`, in ms, if it has one. */
export const beforeOf = (query: Readonly<Record<string, unknown>>): PageInput["before"] =>
  typeof query.before === "number" ? query.before : undefined;
