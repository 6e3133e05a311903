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
  PRODUCTS,
  variantsIn,
} from "./harness.js";

const { violation, benign } = variantsIn("input");

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
const cut = (s: string, n: number): string => [...s].slice(0, n).join("");

/**
 * Every string of a contact or product body (posted to `path` only, when given) through `fn`, before
 * the reference reads it: its new value, or undefined to drop the field.
 */
const mapBodyStrings = (fn: (value: string, field: string) => unknown, path?: string): Layer =>
  mapRequestJson((body, req) =>
    path !== undefined && req.path !== path
      ? body
      : Object.fromEntries(
          Object.entries(body).flatMap(([k, v]) => {
            const out = typeof v === "string" ? fn(v, k) : v;
            return out === undefined ? [] : [[k, out]];
          }),
        ),
  );

/** One string field of the bodies posted to `path` through `fn`. */
const mapField = (path: string, field: string, fn: (value: string) => unknown): Layer =>
  mapBodyStrings((v, f) => (f === field ? fn(v) : v), path);

const BODY_FIELDS: Readonly<Record<string, readonly string[]>> = {
  [CONTACTS]: ["type", "name", "email", "phone", "address", "taxNumberTPS", "taxNumberTVQ"],
  [PRODUCTS]: ["sku", "name", "description", "type", "unitPrice", "taxable"],
};

// ---- violations: the kit must fail each one in the spec profile, naming the right check ---------------

// §4 and §8: lists, filters, limits.
export const name201Accepted = violation(
  "name-201-accepted",
  "a contact name of 201 characters is accepted (cut to 200)",
  ["contacts.invalid-bodies", "contacts.length-boundaries"],
  mapField(CONTACTS, "name", (v) => (codePoints(v) === 201 ? cut(v, 200) : v)),
);

export const phone50Refused = violation(
  "phone-50-refused",
  "a phone of exactly 50 characters is refused (off by one)",
  ["contacts.length-boundaries"],
  mapField(CONTACTS, "phone", (v) => (codePoints(v) === 50 ? `${v}9` : v)),
);

export const description2001Accepted = violation(
  "description-2001-accepted",
  "a product description of 2001 characters is accepted (cut to 2000)",
  ["products.invalid-bodies", "products.length-boundaries"],
  mapField(PRODUCTS, "description", (v) => (codePoints(v) === 2001 ? cut(v, 2000) : v)),
);

// §8: what is accepted at a boundary is kept whole.
export const descriptionStored255 = violation(
  "description-stored-255",
  "a product description of up to 2000 characters is accepted, but only its first 255 are stored",
  ["products.length-boundaries", "products.valid-bodies"],
  // Validated first (2001 is still refused), then stored in a column of 255.
  mapField(PRODUCTS, "description", (v) => (codePoints(v) > 255 && codePoints(v) <= 2000 ? cut(v, 255) : v)),
);

export const addressStored255 = violation(
  "address-stored-255",
  "a contact address of up to 500 characters is accepted (501 refused), but only its first 255 are stored",
  ["contacts.length-boundaries"],
  mapField(CONTACTS, "address", (v) => (codePoints(v) > 255 && codePoints(v) <= 500 ? cut(v, 255) : v)),
);

// §4 and §8: body validation.
export const duplicateSkuAccepted = violation(
  "duplicate-sku-accepted",
  "a duplicate sku is accepted (stored under a suffixed sku)",
  ["products.duplicate-sku"],
  (reference) => {
    let duplicates = 0;
    return mapRequestJson((body, req) => {
      const org = req.token?.organization;
      if (req.path !== PRODUCTS || typeof body.sku !== "string" || org === undefined) return body;
      if (reference.store.productBySku(org, body.sku) === undefined) return body;
      duplicates += 1;
      return { ...body, sku: `${body.sku.slice(0, 90)}-dup${duplicates}` };
    });
  },
);

export const taxableStringAccepted = violation(
  "taxable-string-accepted",
  'a taxable sent as a string ("true", "no") is accepted, read as a boolean',
  ["products.invalid-bodies"],
  mapField(PRODUCTS, "taxable", (v) => ["true", "yes", "1"].includes(v.toLowerCase())),
);

export const negativePriceAccepted = violation(
  "negative-price-accepted",
  "a negative unitPrice is accepted (stored as its absolute value)",
  ["products.unit-price-negative"],
  mapPriceText((p) => p.abs()),
);

export const invalidEmailAccepted = violation(
  "invalid-email-accepted",
  "an invalid e-mail (not-an-email, a@, @b.c, a b@c.d) is accepted (dropped)",
  ["contacts.email-clear-cases"],
  mapField(CONTACTS, "email", (v) => (/^[^\s@]+@[^\s@]+$/.test(v) ? v : undefined)),
);

export const missingTypeDefaulted = violation(
  "missing-type-defaulted",
  "a contact without type is created as CLIENT instead of refused",
  ["contacts.invalid-bodies"],
  mapRequestJson((body, req) =>
    req.path === CONTACTS && !("type" in body) ? { type: "CLIENT", ...body } : body,
  ),
);

export const unitPriceRounded = violation(
  "unit-price-rounded",
  "unitPrice is rounded to 2 decimals on creation (1234.5678 reads back 1234.5700)",
  ["products.unit-price-round-trip", "products.valid-bodies"],
  mapPriceText((p) => p.toDecimalPlaces(2, Decimal.ROUND_HALF_UP)),
);

export const taxableDefaultFalse = violation(
  "taxable-default-false",
  "a product created without taxable is taxable false (§4: default true)",
  ["products.created-listed"],
  mapRequestJson((body, req) =>
    req.path === PRODUCTS && !("taxable" in body) ? { ...body, taxable: false } : body,
  ),
);

export const contactEmailNotEchoed = violation(
  "contact-email-not-echoed",
  "contact creation answers leave out the e-mail that was sent",
  ["contacts.create-response", "contacts.valid-bodies"],
  mapResources((item) => {
    const { email: _email, ...rest } = item;
    return rest;
  }, "creations"),
);

export const contactNamesUppercased = violation(
  "contact-names-uppercased",
  "lists serve contact names upper-cased",
  ["contacts.created-listed"],
  mapResources(
    (item, req) =>
      req.path === CONTACTS && typeof item.name === "string"
        ? { ...item, name: item.name.toUpperCase() }
        : item,
    "lists",
  ),
);

export const createdContactsNotListed = violation(
  "created-contacts-not-listed",
  "contacts created through the API never show in the list",
  ["contacts.created-listed"],
  (reference, env) => {
    const started = env.clock.now().getTime();
    return mapJsonBody(
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
    );
  },
);

// Where the kit is likeliest to look away: one direction of isolation, a reversed filter, byte counts.
export const nameLimitInBytes = violation(
  "name-limit-in-bytes",
  'the contact name limit counts UTF-8 bytes: 200 characters "é" (400 bytes) are refused',
  ["contacts.length-boundaries", "contacts.valid-bodies"],
  {
    readBody: true,
    request(req) {
      if (req.method !== "POST" || req.path !== CONTACTS || req.body === undefined) return undefined;
      const body = parseJson(req.body);
      if (!isObject(body) || typeof body.name !== "string" || Buffer.byteLength(body.name) <= 200)
        return undefined;
      return errorReply(400, "invalid_request", "name is too long", { name: ["too long"] });
    },
  },
);

// What was not sent reads back as nothing (issue 16, class 2).
export const unsentFieldsAsNone = violation(
  "unsent-fields-as-none",
  'a contact\'s optional fields not sent read back as the text "None" (a null turned into a string)',
  ["contacts.created-listed", "contacts.create-response"],
  mapResources((item, req) =>
    req.path === CONTACTS
      ? Object.fromEntries(Object.entries(item).map(([k, v]) => [k, v === null ? "None" : v]))
      : item,
  ),
);

export const unsentPhoneFromLastContact = violation(
  "unsent-phone-from-last-contact",
  "a contact created without a phone gets the phone of the last contact created with one (state left over between requests)",
  ["contacts.create-response", "contacts.created-listed"],
  () => {
    let last: unknown;
    return mapRequestJson((body, req) => {
      if (req.path !== CONTACTS) return body;
      if (body.phone !== undefined) last = body.phone;
      return body.phone === undefined && last !== undefined ? { ...body, phone: last } : body;
    });
  },
);

// Forms beyond the canonical one (issue 16, class 1): the coverage phase catches each.

export const unitPriceFloat32 = violation(
  "unit-price-float32",
  "unitPrice is kept in a 32-bit float: 99999.99 reads back 99999.9922, 999999.9999 as 1000000.0000",
  ["coverage.product-fields", "products.unit-price-round-trip"],
  mapPriceText((p) => new Decimal(Math.fround(p.toNumber())).toDecimalPlaces(4)),
);

// §2: an amount is a decimal string with four decimals, whatever notation it was sent in (issue 29).
export const unitPriceJavaScriptNumber = violation(
  "unit-price-javascript-number",
  'unitPrice is parsed as a JavaScript number and served with toFixed(4), as a Fastify implementation did: 1e21 reads back "1e+21", 1e309 "Infinity"',
  ["coverage.product-fields"],
  () => {
    /** The served text of each product whose JavaScript reading differs from its decimal one, by sku. */
    const served = new Map<string, string>();
    return [
      mapRequestJson(
        (body, req) => {
          const text = req.body?.toString("utf8") ?? "";
          const number = /"unitPrice"\s*:\s*(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)/.exec(text)?.[1];
          if (number === undefined || typeof body.sku !== "string" || Number(number) < 0) return body;
          const js = Number(number).toFixed(4);
          if (js === new Decimal(number).toFixed(4)) return body;
          served.set(body.sku, js);
          return { ...body, unitPrice: 0 };
        },
        (req) => req.method === "POST" && req.path === PRODUCTS,
      ),
      mapResources((item) => {
        const text = typeof item.sku === "string" ? served.get(item.sku) : undefined;
        return text === undefined ? item : { ...item, unitPrice: text };
      }),
    ];
  },
);

// §2, §4: "" is no e-mail address (issue 29: a Python implementation stored it).
export const emailEmptyStored = violation(
  "email-empty-stored",
  'an empty e-mail ("") is taken and stored as the contact\'s e-mail',
  ["coverage.contact-fields"],
  () => {
    const empty = new Set<string>();
    return [
      mapRequestJson(
        (body) => {
          if (body.email !== "" || typeof body.name !== "string") return body;
          empty.add(body.name);
          const { email: _dropped, ...rest } = body;
          return rest;
        },
        (req) => req.method === "POST" && req.path === CONTACTS,
      ),
      mapResources((item) =>
        typeof item.name === "string" && empty.has(item.name) ? { ...item, email: "" } : item,
      ),
    ];
  },
);

export const textHtmlEscaped = violation(
  "text-html-escaped",
  "text is kept HTML-escaped (<b> as &lt;b&gt;, quotes as &quot;): a name with markup reads back otherwise",
  ["coverage.contact-fields", "coverage.product-fields"],
  mapBodyStrings((v, field) =>
    ["name", "description", "address"].includes(field)
      ? v.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")
      : v,
  ),
);

export const astralCharactersDropped = violation(
  "astral-characters-dropped",
  "characters outside the Basic Multilingual Plane (emoji) are dropped on the way to storage, as a 3-byte UTF-8 column does",
  ["coverage.contact-fields", "coverage.product-fields"],
  mapBodyStrings((v) => v.replace(/[\u{10000}-\u{10FFFF}]/gu, "")),
);

export const emailPrefixRegex = violation(
  "email-prefix-regex",
  "e-mails are checked by a pattern anchored at the start only: a valid address followed by junk, a line break or a second address is taken (as its valid start)",
  ["coverage.contact-fields"],
  mapField(CONTACTS, "email", (v) => /^[^@\s,]+@[^@\s,]+\.[a-z]+/i.exec(v)?.[0] ?? v),
);

export const enumPrefixMatch = violation(
  "enum-prefix-match",
  "type is checked with startsWith: CLIENTX and CLIENT,SUPPLIER are taken as CLIENT, PRODUCTX as PRODUCT",
  ["coverage.contact-fields", "coverage.product-fields"],
  mapBodyStrings((v, field) =>
    field === "type"
      ? (["CLIENT", "SUPPLIER", "BOTH", "PRODUCT", "SERVICE"].find((e) => v.startsWith(e)) ?? v)
      : v,
  ),
);

export const lengthIgnoresSpaces = violation(
  "length-ignores-spaces",
  "a name's length is counted without its spaces: 201 characters with spaces in them are taken (and cut to 200)",
  ["coverage.contact-fields"],
  mapField(CONTACTS, "name", (v) =>
    codePoints(v) > 200 && codePoints(v.replace(/ /g, "")) <= 200 ? cut(v, 200) : v,
  ),
);

// §8: the limit judged on one value, another stored (issue 29's foreign-go `sku-trim-check`).
export const skuLengthAfterTrim = violation(
  "sku-length-after-trim",
  "a sku's length is checked once its outer spaces are trimmed, but the sku is stored as sent: 100 characters and a space are stored as 101",
  ["coverage.product-fields"],
  () => {
    // What was sent, by the trimmed sku the reference stored in its stead.
    const sent = new Map<string, string>();
    return [
      mapRequestJson((body, req) => {
        if (req.path !== PRODUCTS || typeof body.sku !== "string") return body;
        const trimmed = body.sku.trim();
        if (codePoints(body.sku) <= 100 || codePoints(trimmed) > 100) return body;
        sent.set(trimmed, body.sku);
        return { ...body, sku: trimmed };
      }),
      mapResources((item) =>
        typeof item.sku === "string" && sent.has(item.sku) ? { ...item, sku: sent.get(item.sku) } : item,
      ),
    ];
  },
);

// A SHOULD: the local part of an address is case-sensitive (RFC 5321 §2.4), §2 says nothing of case.
export const emailLocalPartLowerCased = violation(
  "email-local-part-lower-cased",
  "e-mail addresses are stored lower-cased, local part included: Jean.Tremblay@Example.COM reads back as jean.tremblay@example.com (SHOULD: run with --strict)",
  ["contacts.email-local-part"],
  mapBodyStrings((v, field) => (field === "email" ? v.toLowerCase() : v)),
  { strict: true },
);

// ---- benign variants: other legal answers to open points; the kit must pass each one -------------------

export const unknownBodyFieldsIgnored = benign(
  "unknown-body-fields-ignored",
  "unknown fields in a POST body are ignored instead of refused",
  mapRequestJson((body, req) => {
    const known = BODY_FIELDS[req.path] ?? [];
    return Object.fromEntries(Object.entries(body).filter(([k]) => known.includes(k)));
  }),
);

export const textTrimmed = benign(
  "text-trimmed",
  "outer white space of every string is trimmed before it is checked and kept (as Django REST framework's CharField does)",
  mapBodyStrings((v) => v.trim()),
);

export const emailLowerCased = benign(
  "email-lower-cased",
  "e-mail addresses are kept lower-cased (legal by default: §2 says nothing of case; a SHOULD under --strict, email-local-part-lower-cased)",
  mapBodyStrings((v, field) => (field === "email" ? v.toLowerCase() : v)),
);

export const emailDomainLowerCased = benign(
  "email-domain-lower-cased",
  "the domain of an e-mail address is lower-cased, the local part kept (as Django's normalize_email does): the same address, so it passes --strict too",
  mapBodyStrings((v, field) =>
    field === "email" && v.includes("@")
      ? `${v.slice(0, v.lastIndexOf("@"))}${v.slice(v.lastIndexOf("@")).toLowerCase()}`
      : v,
  ),
  { strict: true },
);

export const skuCaseInsensitive = benign(
  "sku-case-insensitive",
  "sku uniqueness ignores case (CFK-1 is a duplicate of cfk-1)",
  (reference) => ({
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
  }),
);
