import { z } from "zod";

/**
 * The spec file's shape: what a spec author may change in accounting-api.md without touching code.
 * The reference, the kit, the OpenAPI document and the clause document all read a `Spec`; none of them
 * repeats a number, code or field it holds. The default file (accounting-api.json) is the spec as
 * written; a variant is merged over it (variant.ts). Rules that tie one key to another (a page maximum
 * below its default, a scope no enumeration lists) are refinements next to the keys they tie, so that a
 * file with several faults has each named at once.
 */

/** A value of an enumeration: it travels in query strings and JSON, so no spaces or separators. */
const enumValue = z
  .string()
  .regex(/^[A-Za-z0-9_:.-]+$/, "must be letters, digits or one of _ : . - (no spaces)");
const enumeration = z
  .array(enumValue)
  .min(1, "must list at least one value")
  .superRefine((values, ctx) => {
    values.forEach((value, i) => {
      if (values.indexOf(value) < i) ctx.addIssue({ code: "custom", path: [i], message: `repeats ${value}` });
    });
  });

const positive = z.int("must be an integer").min(1, "must be at least 1");

const ENUM_NAMES = ["contactTypes", "productTypes", "invoiceStatuses", "expenseStatuses", "scopes"] as const;
export type EnumName = (typeof ENUM_NAMES)[number];

const path = z
  .string()
  .regex(/^(\/[A-Za-z0-9._~-]+)+$/, "must be an absolute path of plain segments (/api/v1/contacts)");

const endpoint = <M extends "GET" | "POST">(method: M) =>
  z.strictObject({ method: z.literal(method), path, scope: enumValue });

const listEndpoint = endpoint("GET").extend({
  /** The enumeration filter of §4's row: its query parameter and the enumeration it takes. */
  filter: z
    .strictObject({
      param: z.string().regex(/^[A-Za-z][A-Za-z0-9_]*$/, "must be a plain parameter name"),
      values: z.enum(ENUM_NAMES),
    })
    .optional(),
});

const error = z.strictObject({
  status: z
    .int("must be an integer")
    .min(400, "must be a 4xx or 5xx status")
    .max(599, "must be a 4xx or 5xx status"),
  code: z.string().regex(/^[a-z][a-z0-9_]*$/, "must be lower case letters, digits and _ (invalid_request)"),
});

/** A field a variant adds to a resource: served in its list, accepted by its creation body. */
const addedField = z
  .strictObject({
    type: z.enum(["string", "number", "boolean", "decimal"]),
    required: z.boolean(),
    maxLength: positive.optional(),
    enum: enumeration.optional(),
    description: z.string().optional(),
  })
  .superRefine((field, ctx) => {
    for (const key of ["maxLength", "enum"] as const) {
      if (field.type !== "string" && field[key] !== undefined)
        ctx.addIssue({ code: "custom", path: [key], message: "applies to a string field only" });
    }
  });
export type AddedField = z.infer<typeof addedField>;

/** The fields every contact and product has: fixed by the reference's code, so no added field may take a name. */
export const BUILT_IN_FIELDS = {
  contact: [
    "id",
    "type",
    "name",
    "email",
    "phone",
    "address",
    "taxNumberTPS",
    "taxNumberTVQ",
    "createdAt",
    "updatedAt",
  ],
  product: ["id", "sku", "name", "description", "type", "unitPrice", "taxable", "createdAt", "updatedAt"],
} as const;
export type ResourceWithFields = keyof typeof BUILT_IN_FIELDS;

const addedFields = (resource: ResourceWithFields) =>
  z
    .record(z.string().regex(/^[a-z][A-Za-z0-9]*$/, "must be a camelCase field name"), addedField)
    .superRefine((fields, ctx) => {
      const builtIn: readonly string[] = BUILT_IN_FIELDS[resource];
      for (const name of Object.keys(fields)) {
        if (builtIn.includes(name))
          ctx.addIssue({ code: "custom", path: [name], message: `${name} is a built-in ${resource} field` });
      }
    });

const page = z.strictObject({ default: positive, min: positive, max: positive }).superRefine((page, ctx) => {
  if (page.default < page.min)
    ctx.addIssue({
      code: "custom",
      path: ["default"],
      message: `must be at least limits.page.min (${page.min})`,
    });
  if (page.max < page.default)
    ctx.addIssue({
      code: "custom",
      path: ["max"],
      message: `must be at least limits.page.default (${page.default})`,
    });
});

/** §7 by situation. One code, one status: a client and the kit read a code's status back. */
const errors = z
  .strictObject({
    invalidRequest: error,
    unauthorized: error,
    forbidden: error,
    notFound: error,
    rateLimited: error,
    internal: error,
    duplicateSku: error,
  })
  .superRefine((table, ctx) => {
    const first = new Map<string, [string, number]>();
    for (const [role, { status, code }] of Object.entries(table)) {
      const seen = first.get(code);
      if (seen === undefined) first.set(code, [role, status]);
      else if (seen[1] !== status)
        ctx.addIssue({
          code: "custom",
          path: [role, "code"],
          message: `${code} is errors.${seen[0]}'s code with status ${seen[1]}: one code, one status`,
        });
    }
  });

export const SpecShape = z
  .strictObject({
    $schema: z.string().optional(),
    title: z.string().min(1).describe("What this file describes: the spec, or the variant's purpose."),
    /** The text this file was read from: its name and the SHA-256 of its bytes. */
    source: z.strictObject({ file: z.string().min(1), sha256: z.string().regex(/^[0-9a-f]{64}$/) }),
    enums: z
      .strictObject({
        contactTypes: enumeration,
        productTypes: enumeration,
        invoiceStatuses: enumeration,
        expenseStatuses: enumeration,
        scopes: enumeration,
      })
      .describe("§2, §5: the enumerations. A variant's list replaces the whole list (write every value)."),
    endpoints: z
      .strictObject({
        listContacts: listEndpoint,
        createContact: endpoint("POST"),
        listProducts: listEndpoint,
        createProduct: endpoint("POST"),
        listInvoices: listEndpoint,
        listExpenses: listEndpoint,
      })
      .describe(
        "§4's endpoint table: each endpoint's path and required scope, and a list's enumeration filter.",
      ),
    /** Announced or planned, not there yet (§1, §4 "Not available", §9). */
    announced: z
      .strictObject({ createInvoice: endpoint("POST"), createExpense: endpoint("POST") })
      .describe("§1, §4 Not available, §9: announced endpoints, answered as not there yet."),
    cors: z
      .strictObject({
        methods: z.array(z.string().regex(/^[A-Z]+$/, "must be an upper-case HTTP method")).min(1),
        headers: z.array(z.string().min(1)).min(1),
      })
      .describe("§4: the methods and request headers a pre-flight allows (any origin)."),
    limits: z.strictObject({
      page: page.describe("§4 Pagination, §8: a list's `limit` (default, smallest and largest page)."),
      rate: z
        .strictObject({ requests: positive, windowSeconds: positive })
        .describe("§7, §8: beyond `requests` in `windowSeconds`, the rateLimited error."),
      contact: z
        .strictObject({
          name: positive,
          phone: positive,
          address: positive,
          taxNumberTPS: positive,
          taxNumberTVQ: positive,
        })
        .describe(
          "§2, §4, §8: the most characters (Unicode code points) each contact field takes on creation.",
        ),
      product: z
        .strictObject({ sku: positive, name: positive, description: positive })
        .describe("§2, §4, §8: the most characters each product field takes on creation."),
    }),
    errors: errors.describe(
      "§7 by situation: each one's status and code; all the codes together are the API's closed set. A variant may name a status and code §7 does not list (duplicateSku 409 conflict).",
    ),
    fields: z
      .strictObject({
        contact: addedFields("contact"),
        product: addedFields("product"),
      })
      .describe(
        "Fields added to a resource: served in its list, accepted by its creation body. `null` removes one.",
      ),
  })
  .superRefine((spec, ctx) => {
    const problem = (path: (string | number)[], message: string) =>
      ctx.addIssue({ code: "custom", path, message });

    const scopes = new Set(spec.enums.scopes);
    const routes = new Map<string, string>();
    for (const group of ["endpoints", "announced"] as const) {
      for (const [id, row] of Object.entries(spec[group])) {
        if (!scopes.has(row.scope)) problem([group, id, "scope"], `${row.scope} is not in enums.scopes`);
        const route = `${row.method} ${row.path}`;
        const other = routes.get(route);
        if (other !== undefined) problem([group, id, "path"], `${route} is also ${other}`);
        routes.set(route, `${group}.${id}`);
      }
    }
  });

export type Spec = z.infer<typeof SpecShape>;
export type ErrorRole = keyof Spec["errors"];
export type EndpointId = keyof Spec["endpoints"];
export type AnnouncedId = keyof Spec["announced"];
/** What an error situation answers: its HTTP status and §7 code. */
export type ErrorAnswer = Spec["errors"][ErrorRole];
