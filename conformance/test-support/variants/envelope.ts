import { toContact } from "../../../src/serialization/resources.js";
import {
  CONTACTS,
  is2xx,
  isCreation,
  isList,
  isObject,
  type Json,
  jsonOf,
  mapJsonBody,
  mapObjects,
  mapResources,
  mapStatus,
  mapStrings,
  PRODUCTS,
  setJson,
  variantsIn,
  type Incoming,
  type Layer,
  setHeader,
} from "./harness.js";

const { violation, benign } = variantsIn("envelope");

/** Successful answers to the requests `which` picks lose their envelope: the bare `data`. */
const unwrapped = (which: (req: Incoming) => boolean): Layer =>
  mapJsonBody(
    (body) => (isObject(body) ? body.data : body),
    (res, req) => which(req) && is2xx(res),
  );

/** Variants of the envelopes, success statuses and content types of answers (§1, §4). */

// ---- violations: the kit must fail each one in the spec profile, naming the right check ---------------

// §1 and §4: envelopes and success statuses.
export const listStatus201 = violation(
  "list-status-201",
  "lists answer 201 instead of 200",
  ["envelope.list-data-array", "lists.default-limit"],
  mapStatus((s, req) => (isList(req) && s === 200 ? 201 : s)),
);

export const contactCreate200 = violation(
  "contact-create-200",
  "contact creation answers 200 instead of 201",
  ["contacts.create-response", "envelope.create-data-object"],
  mapStatus((s, req) => (req.method === "POST" && req.path === CONTACTS && s === 201 ? 200 : s)),
);

export const listBareArray = violation(
  "list-bare-array",
  "lists answer a bare array, without the data envelope",
  ["envelope.list-data-array", "run.success-envelope"],
  unwrapped(isList),
);

export const createBareObject = violation(
  "create-bare-object",
  "creations answer the bare record, without the data envelope",
  ["envelope.create-data-object", "contacts.create-response", "products.create"],
  unwrapped(isCreation),
);

export const envelopeExtraKey = violation(
  "envelope-extra-key",
  "success envelopes carry a meta key next to data",
  ["run.success-envelope", "envelope.list-data-array"],
  mapJsonBody(
    (body) => (isObject(body) ? { ...body, meta: { server: "variant" } } : body),
    (res) => is2xx(res),
  ),
);

// §4 and §8: body validation.
export const mojibakeEcho = violation(
  "mojibake-echo",
  "creation answers echo non-ASCII text decoded as Latin-1 (Ã‰lodie)",
  ["envelope.utf-8", "contacts.create-response"],
  mapResources(
    (item) => mapStrings(item, (s) => Buffer.from(s, "utf8").toString("latin1")) as Json,
    "creations",
  ),
);

export const contentTypeHtml = violation(
  "content-type-html",
  "answers are served as text/html",
  ["run.json-responses", "envelope.list-data-array"],
  setHeader(
    "content-type",
    "text/html; charset=utf-8",
    (_req, res) => res.headers["content-type"] !== undefined,
  ),
);

// ---- benign variants: other legal answers to open points; the kit must pass each one -------------------

export const extraFields = benign(
  "extra-fields",
  "every resource carries extra fields (_links, version), nested objects too",
  {
    response(res, req) {
      if (!is2xx(res) || !(isList(req) || isCreation(req))) return;
      const body = jsonOf(res);
      if (!isObject(body)) return;
      const data = mapObjects(body.data, (o) => ({
        ...o,
        _links: { self: typeof o.id === "string" ? `${req.path}/${o.id}` : req.path },
        version: 1,
      }));
      setJson(res, { data });
      res.headers["x-request-id"] = "variant-request";
    },
  },
);

export const productCreate200 = benign(
  "product-create-200",
  "product creation answers 200 instead of 201",
  mapStatus((s, req) => (req.method === "POST" && req.path === PRODUCTS && s === 201 ? 200 : s)),
);

export const productCreateEmptyData = benign(
  "product-create-empty-data",
  'product creation answers { "data": {} }',
  mapJsonBody(
    () => ({ data: {} }),
    (res, req) => req.method === "POST" && req.path === PRODUCTS && is2xx(res),
  ),
);

export const jsonWithoutCharset = benign(
  "json-without-charset",
  "Content-Type is application/json without a charset",
  {
    response(res) {
      if (String(res.headers["content-type"] ?? "").startsWith("application/json"))
        res.headers["content-type"] = "application/json";
    },
  },
);

export const contactCreationFullRecord = benign(
  "contact-creation-full-record",
  "contact creation answers the full contact, null for what was not sent",
  (reference) =>
    mapResources((item, req) => {
      const org = req.token?.organization;
      const stored =
        org === undefined || typeof item.id !== "string" ? undefined : reference.store.contact(org, item.id);
      return req.path === CONTACTS && stored !== undefined ? { ...toContact(stored) } : item;
    }, "creations"),
);
