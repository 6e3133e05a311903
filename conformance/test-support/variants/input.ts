import { Decimal } from "decimal.js";
import {
  CONTACTS,
  errorReply,
  is2xx,
  isList,
  isObject,
  type Layer,
  mapJsonBody,
  mapRequestJson,
  mapResources,
  parseJson,
  plain,
  PRODUCTS,
  type Variant,
  wrap,
} from "./harness.js";

/** Variants of the validation of request bodies (§4, §8). */

/** Rewrites the text of `"unitPrice": <number>` in a request body exactly (no binary float on the way). */
const mapPriceText = (fn: (price: Decimal) => Decimal): Layer => ({
  readBody: true,
  request(req) {
    if (req.body === undefined || req.method !== "POST" || req.path !== PRODUCTS) return undefined;
    const text = req.body
      .toString("utf8")
      .replace(
        /("unitPrice"\s*:\s*)(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)/,
        (_all, key: string, number: string) => `${key}${fn(new Decimal(number)).toString()}`,
      );
    req.body = Buffer.from(text);
    return undefined;
  },
});

const codePoints = (s: string): number => [...s].length;

const BODY_FIELDS: Readonly<Record<string, readonly string[]>> = {
  [CONTACTS]: ["type", "name", "email", "phone", "address", "taxNumberTPS", "taxNumberTVQ"],
  [PRODUCTS]: ["sku", "name", "description", "type", "unitPrice", "taxable"],
};

// ---- violations: the kit must fail each one in the spec profile, naming the right check ---------------

// §4 and §8: lists, filters, limits.
export const name201Accepted: Variant = {
  id: "name-201-accepted",
  kind: "violation",
  area: "input",
  description: "a contact name of 201 characters is accepted (cut to 200)",
  expectFailing: ["contacts.invalid-bodies", "contacts.length-boundaries"],
  build: (env) =>
    plain(
      env,
      mapRequestJson((body, req) =>
        req.path === CONTACTS && typeof body.name === "string" && codePoints(body.name) === 201
          ? { ...body, name: [...body.name].slice(0, 200).join("") }
          : body,
      ),
    ),
};

export const phone50Refused: Variant = {
  id: "phone-50-refused",
  kind: "violation",
  area: "input",
  description: "a phone of exactly 50 characters is refused (off by one)",
  expectFailing: ["contacts.length-boundaries"],
  build: (env) =>
    plain(
      env,
      mapRequestJson((body, req) =>
        req.path === CONTACTS && typeof body.phone === "string" && codePoints(body.phone) === 50
          ? { ...body, phone: `${body.phone}9` }
          : body,
      ),
    ),
};

export const description2001Accepted: Variant = {
  id: "description-2001-accepted",
  kind: "violation",
  area: "input",
  description: "a product description of 2001 characters is accepted (cut to 2000)",
  expectFailing: ["products.invalid-bodies", "products.length-boundaries"],
  build: (env) =>
    plain(
      env,
      mapRequestJson((body, req) =>
        req.path === PRODUCTS && typeof body.description === "string" && codePoints(body.description) === 2001
          ? { ...body, description: [...body.description].slice(0, 2000).join("") }
          : body,
      ),
    ),
};

// §8: what is accepted at a boundary is kept whole.
export const descriptionStored255: Variant = {
  id: "description-stored-255",
  kind: "violation",
  area: "input",
  description:
    "a product description of up to 2000 characters is accepted, but only its first 255 are stored",
  expectFailing: ["products.length-boundaries", "products.valid-bodies"],
  build: (env) =>
    plain(
      env,
      mapRequestJson((body, req) =>
        // Validated first (2001 is still refused), then stored in a column of 255.
        req.path === PRODUCTS &&
        typeof body.description === "string" &&
        codePoints(body.description) > 255 &&
        codePoints(body.description) <= 2000
          ? { ...body, description: [...body.description].slice(0, 255).join("") }
          : body,
      ),
    ),
};

export const addressStored255: Variant = {
  id: "address-stored-255",
  kind: "violation",
  area: "input",
  description:
    "a contact address of up to 500 characters is accepted (501 refused), but only its first 255 are stored",
  expectFailing: ["contacts.length-boundaries"],
  build: (env) =>
    plain(
      env,
      mapRequestJson((body, req) =>
        req.path === CONTACTS &&
        typeof body.address === "string" &&
        codePoints(body.address) > 255 &&
        codePoints(body.address) <= 500
          ? { ...body, address: [...body.address].slice(0, 255).join("") }
          : body,
      ),
    ),
};

// §4 and §8: body validation.
export const duplicateSkuAccepted: Variant = {
  id: "duplicate-sku-accepted",
  kind: "violation",
  area: "input",
  description: "a duplicate sku is accepted (stored under a suffixed sku)",
  expectFailing: ["products.duplicate-sku"],
  build: async (env) => {
    const reference = await env.reference();
    let duplicates = 0;
    return wrap(
      reference,
      mapRequestJson((body, req) => {
        const org = req.token?.organization;
        if (req.path !== PRODUCTS || typeof body.sku !== "string" || org === undefined) return body;
        if (reference.store.productBySku(org, body.sku) === undefined) return body;
        duplicates += 1;
        return { ...body, sku: `${body.sku.slice(0, 90)}-dup${duplicates}` };
      }),
    );
  },
};

export const taxableStringAccepted: Variant = {
  id: "taxable-string-accepted",
  kind: "violation",
  area: "input",
  description: 'a taxable sent as a string ("true", "no") is accepted, read as a boolean',
  expectFailing: ["products.invalid-bodies"],
  build: (env) =>
    plain(
      env,
      mapRequestJson((body, req) =>
        req.path === PRODUCTS && typeof body.taxable === "string"
          ? { ...body, taxable: ["true", "yes", "1"].includes(body.taxable.toLowerCase()) }
          : body,
      ),
    ),
};

export const negativePriceAccepted: Variant = {
  id: "negative-price-accepted",
  kind: "violation",
  area: "input",
  description: "a negative unitPrice is accepted (stored as its absolute value)",
  expectFailing: ["products.unit-price-negative"],
  build: (env) =>
    plain(
      env,
      mapPriceText((p) => p.abs()),
    ),
};

export const invalidEmailAccepted: Variant = {
  id: "invalid-email-accepted",
  kind: "violation",
  area: "input",
  description: "an invalid e-mail (not-an-email, a@, @b.c, a b@c.d) is accepted (dropped)",
  expectFailing: ["contacts.email-clear-cases"],
  build: (env) =>
    plain(
      env,
      mapRequestJson((body, req) => {
        if (req.path !== CONTACTS || typeof body.email !== "string") return body;
        if (/^[^\s@]+@[^\s@]+$/.test(body.email)) return body;
        const { email: _email, ...rest } = body;
        return rest;
      }),
    ),
};

export const missingTypeDefaulted: Variant = {
  id: "missing-type-defaulted",
  kind: "violation",
  area: "input",
  description: "a contact without type is created as CLIENT instead of refused",
  expectFailing: ["contacts.invalid-bodies"],
  build: (env) =>
    plain(
      env,
      mapRequestJson((body, req) =>
        req.path === CONTACTS && !("type" in body) ? { type: "CLIENT", ...body } : body,
      ),
    ),
};

export const unitPriceRounded: Variant = {
  id: "unit-price-rounded",
  kind: "violation",
  area: "input",
  description: "unitPrice is rounded to 2 decimals on creation (1234.5678 reads back 1234.5700)",
  expectFailing: ["products.unit-price-round-trip", "products.valid-bodies"],
  build: (env) =>
    plain(
      env,
      mapPriceText((p) => p.toDecimalPlaces(2, Decimal.ROUND_HALF_UP)),
    ),
};

export const taxableDefaultFalse: Variant = {
  id: "taxable-default-false",
  kind: "violation",
  area: "input",
  description: "a product created without taxable is taxable false (§4: default true)",
  expectFailing: ["products.created-listed"],
  build: (env) =>
    plain(
      env,
      mapRequestJson((body, req) =>
        req.path === PRODUCTS && !("taxable" in body) ? { ...body, taxable: false } : body,
      ),
    ),
};

export const contactEmailNotEchoed: Variant = {
  id: "contact-email-not-echoed",
  kind: "violation",
  area: "input",
  description: "contact creation answers leave out the e-mail that was sent",
  expectFailing: ["contacts.create-response", "contacts.valid-bodies"],
  build: (env) =>
    plain(
      env,
      mapResources((item) => {
        const { email: _email, ...rest } = item;
        return rest;
      }, "creations"),
    ),
};

export const contactNamesUppercased: Variant = {
  id: "contact-names-uppercased",
  kind: "violation",
  area: "input",
  description: "lists serve contact names upper-cased",
  expectFailing: ["contacts.created-listed"],
  build: (env) =>
    plain(
      env,
      mapResources(
        (item, req) =>
          req.path === CONTACTS && typeof item.name === "string"
            ? { ...item, name: item.name.toUpperCase() }
            : item,
        "lists",
      ),
    ),
};

export const createdContactsNotListed: Variant = {
  id: "created-contacts-not-listed",
  kind: "violation",
  area: "input",
  description: "contacts created through the API never show in the list",
  expectFailing: ["contacts.created-listed"],
  build: async (env) => {
    const reference = await env.reference();
    const started = env.clock.now().getTime();
    return wrap(
      reference,
      mapJsonBody(
        (body) =>
          isObject(body) && Array.isArray(body.data)
            ? {
                ...body,
                data: body.data.filter(
                  (i: unknown) =>
                    !(isObject(i) && typeof i.createdAt === "string" && Date.parse(i.createdAt) >= started),
                ),
              }
            : body,
        (res, req) => isList(req) && req.path === CONTACTS && is2xx(res),
      ),
    );
  },
};

// Where the kit is likeliest to look away: one direction of isolation, a reversed filter, byte counts.
export const nameLimitInBytes: Variant = {
  id: "name-limit-in-bytes",
  kind: "violation",
  area: "input",
  description: 'the contact name limit counts UTF-8 bytes: 200 characters "é" (400 bytes) are refused',
  expectFailing: ["contacts.length-boundaries", "contacts.valid-bodies"],
  build: (env) =>
    plain(env, {
      readBody: true,
      request(req) {
        if (req.method !== "POST" || req.path !== CONTACTS || req.body === undefined) return undefined;
        const body = parseJson(req.body);
        if (!isObject(body) || typeof body.name !== "string" || Buffer.byteLength(body.name) <= 200)
          return undefined;
        return errorReply(400, "invalid_request", "name is too long", { name: ["too long"] });
      },
    }),
};

// What was not sent reads back as nothing (issue 16, class 2).
export const unsentFieldsAsNone: Variant = {
  id: "unsent-fields-as-none",
  kind: "violation",
  area: "input",
  description:
    'a contact\'s optional fields not sent read back as the text "None" (a null turned into a string)',
  expectFailing: ["contacts.created-listed", "contacts.create-response"],
  build: (env) =>
    plain(
      env,
      mapResources((item, req) =>
        req.path === CONTACTS
          ? Object.fromEntries(Object.entries(item).map(([k, v]) => [k, v === null ? "None" : v]))
          : item,
      ),
    ),
};

export const unsentPhoneFromLastContact: Variant = {
  id: "unsent-phone-from-last-contact",
  kind: "violation",
  area: "input",
  description:
    "a contact created without a phone gets the phone of the last contact created with one (state left over between requests)",
  expectFailing: ["contacts.create-response", "contacts.created-listed"],
  build: (env) => {
    let last: unknown;
    return plain(
      env,
      mapRequestJson((body, req) => {
        if (req.path !== CONTACTS) return body;
        if (body.phone !== undefined) last = body.phone;
        return body.phone === undefined && last !== undefined ? { ...body, phone: last } : body;
      }),
    );
  },
};

// Forms beyond the canonical one (issue 16, class 1): the coverage phase catches each.

/** Every string of a contact or product body through `fn`, before the reference reads it. */
const mapBodyStrings = (fn: (value: string, field: string) => string | undefined): Layer =>
  mapRequestJson((body) =>
    Object.fromEntries(
      Object.entries(body).flatMap(([k, v]) => {
        if (typeof v !== "string") return [[k, v]];
        const out = fn(v, k);
        return out === undefined ? [] : [[k, out]];
      }),
    ),
  );

export const unitPriceFloat32: Variant = {
  id: "unit-price-float32",
  kind: "violation",
  area: "input",
  description:
    "unitPrice is kept in a 32-bit float: 99999.99 reads back 99999.9922, 999999.9999 as 1000000.0000",
  expectFailing: ["coverage.product-fields", "products.unit-price-round-trip"],
  build: (env) =>
    plain(
      env,
      mapPriceText((p) => new Decimal(Math.fround(p.toNumber())).toDecimalPlaces(4)),
    ),
};

export const textHtmlEscaped: Variant = {
  id: "text-html-escaped",
  kind: "violation",
  area: "input",
  description:
    "text is kept HTML-escaped (<b> as &lt;b&gt;, quotes as &quot;): a name with markup reads back otherwise",
  expectFailing: ["coverage.contact-fields", "coverage.product-fields"],
  build: (env) =>
    plain(
      env,
      mapBodyStrings((v, field) =>
        ["name", "description", "address"].includes(field)
          ? v.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")
          : v,
      ),
    ),
};

export const astralCharactersDropped: Variant = {
  id: "astral-characters-dropped",
  kind: "violation",
  area: "input",
  description:
    "characters outside the Basic Multilingual Plane (emoji) are dropped on the way to storage, as a 3-byte UTF-8 column does",
  expectFailing: ["coverage.contact-fields", "coverage.product-fields"],
  build: (env) =>
    plain(
      env,
      mapBodyStrings((v) => v.replace(/[\u{10000}-\u{10FFFF}]/gu, "")),
    ),
};

export const emailPrefixRegex: Variant = {
  id: "email-prefix-regex",
  kind: "violation",
  area: "input",
  description:
    "e-mails are checked by a pattern anchored at the start only: a valid address followed by junk, a line break or a second address is taken (as its valid start)",
  expectFailing: ["coverage.contact-fields"],
  build: (env) =>
    plain(
      env,
      mapBodyStrings((v, field) =>
        field === "email" ? (/^[^@\s,]+@[^@\s,]+\.[a-z]+/i.exec(v)?.[0] ?? v) : v,
      ),
    ),
};

export const enumPrefixMatch: Variant = {
  id: "enum-prefix-match",
  kind: "violation",
  area: "input",
  description:
    "type is checked with startsWith: CLIENTX and CLIENT,SUPPLIER are taken as CLIENT, PRODUCTX as PRODUCT",
  expectFailing: ["coverage.contact-fields", "coverage.product-fields"],
  build: (env) =>
    plain(
      env,
      mapBodyStrings((v, field) =>
        field === "type"
          ? (["CLIENT", "SUPPLIER", "BOTH", "PRODUCT", "SERVICE"].find((e) => v.startsWith(e)) ?? v)
          : v,
      ),
    ),
};

export const lengthIgnoresSpaces: Variant = {
  id: "length-ignores-spaces",
  kind: "violation",
  area: "input",
  description:
    "a name's length is counted without its spaces: 201 characters with spaces in them are taken (and cut to 200)",
  expectFailing: ["coverage.contact-fields"],
  build: (env) =>
    plain(
      env,
      mapBodyStrings((v, field) =>
        field === "name" && codePoints(v) > 200 && codePoints(v.replace(/ /g, "")) <= 200
          ? [...v].slice(0, 200).join("")
          : v,
      ),
    ),
};

// ---- benign variants: other legal answers to open points; the kit must pass each one -------------------

export const unknownBodyFieldsIgnored: Variant = {
  id: "unknown-body-fields-ignored",
  kind: "benign",
  area: "input",
  description: "unknown fields in a POST body are ignored instead of refused",
  build: (env) =>
    plain(
      env,
      mapRequestJson((body, req) => {
        const known = BODY_FIELDS[req.path] ?? [];
        return Object.fromEntries(Object.entries(body).filter(([k]) => known.includes(k)));
      }),
    ),
};

export const textTrimmed: Variant = {
  id: "text-trimmed",
  kind: "benign",
  area: "input",
  description:
    "outer white space of every string is trimmed before it is checked and kept (as Django REST framework's CharField does)",
  build: (env) =>
    plain(
      env,
      mapBodyStrings((v) => v.trim()),
    ),
};

export const emailLowerCased: Variant = {
  id: "email-lower-cased",
  kind: "benign",
  area: "input",
  description: "e-mail addresses are kept lower-cased",
  build: (env) =>
    plain(
      env,
      mapBodyStrings((v, field) => (field === "email" ? v.toLowerCase() : v)),
    ),
};

export const skuCaseInsensitive: Variant = {
  id: "sku-case-insensitive",
  kind: "benign",
  area: "input",
  description: "sku uniqueness ignores case (CFK-1 is a duplicate of cfk-1)",
  build: async (env) => {
    const reference = await env.reference();
    return wrap(reference, {
      readBody: true,
      request(req) {
        const org = req.token?.organization;
        if (req.method !== "POST" || req.path !== PRODUCTS || req.body === undefined || org === undefined) {
          return undefined;
        }
        const body = parseJson(req.body);
        const sku = isObject(body) && typeof body.sku === "string" ? body.sku.toLowerCase() : undefined;
        if (sku === undefined || !req.token?.scopes.includes("products:write")) return undefined;
        const clash = reference.store
          .listProducts(org, { limit: 1_000_000 })
          .some((p) => p.sku.toLowerCase() === sku);
        return clash
          ? errorReply(400, "invalid_request", "sku is already used (case-insensitively)")
          : undefined;
      },
    });
  },
};
