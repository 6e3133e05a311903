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
  plain,
  PRODUCTS,
  setJson,
  type Variant,
  wrap,
} from "./harness.js";

/** Variants of the envelopes, success statuses and content types of answers (§1, §4). */

// ---- violations: the kit must fail each one in the spec profile, naming the right check ---------------

// §1 and §4: envelopes and success statuses.
export const listStatus201: Variant = {
  id: "list-status-201",
  kind: "violation",
  area: "envelope",
  description: "lists answer 201 instead of 200",
  expectFailing: ["envelope.list-data-array", "lists.default-limit"],
  build: (env) =>
    plain(
      env,
      mapStatus((s, req) => (isList(req) && s === 200 ? 201 : s)),
    ),
};

export const contactCreate200: Variant = {
  id: "contact-create-200",
  kind: "violation",
  area: "envelope",
  description: "contact creation answers 200 instead of 201",
  expectFailing: ["contacts.create-response", "envelope.create-data-object"],
  build: (env) =>
    plain(
      env,
      mapStatus((s, req) => (req.method === "POST" && req.path === CONTACTS && s === 201 ? 200 : s)),
    ),
};

export const listBareArray: Variant = {
  id: "list-bare-array",
  kind: "violation",
  area: "envelope",
  description: "lists answer a bare array, without the data envelope",
  expectFailing: ["envelope.list-data-array", "run.success-envelope"],
  build: (env) =>
    plain(
      env,
      mapJsonBody(
        (body) => (isObject(body) ? body.data : body),
        (res, req) => isList(req) && is2xx(res),
      ),
    ),
};

export const createBareObject: Variant = {
  id: "create-bare-object",
  kind: "violation",
  area: "envelope",
  description: "creations answer the bare record, without the data envelope",
  expectFailing: ["envelope.create-data-object", "contacts.create-response", "products.create"],
  build: (env) =>
    plain(
      env,
      mapJsonBody(
        (body) => (isObject(body) ? body.data : body),
        (res, req) => isCreation(req) && is2xx(res),
      ),
    ),
};

export const envelopeExtraKey: Variant = {
  id: "envelope-extra-key",
  kind: "violation",
  area: "envelope",
  description: "success envelopes carry a meta key next to data",
  expectFailing: ["run.success-envelope", "envelope.list-data-array"],
  build: (env) =>
    plain(
      env,
      mapJsonBody(
        (body) => (isObject(body) ? { ...body, meta: { server: "variant" } } : body),
        (res) => is2xx(res),
      ),
    ),
};

// §4 and §8: body validation.
export const mojibakeEcho: Variant = {
  id: "mojibake-echo",
  kind: "violation",
  area: "envelope",
  description: "creation answers echo non-ASCII text decoded as Latin-1 (Ã‰lodie)",
  expectFailing: ["envelope.utf-8", "contacts.create-response"],
  build: (env) =>
    plain(
      env,
      mapResources(
        (item) => mapStrings(item, (s) => Buffer.from(s, "utf8").toString("latin1")) as Json,
        "creations",
      ),
    ),
};

export const contentTypeHtml: Variant = {
  id: "content-type-html",
  kind: "violation",
  area: "envelope",
  description: "answers are served as text/html",
  expectFailing: ["run.json-responses", "envelope.list-data-array"],
  build: (env) =>
    plain(env, {
      response(res) {
        if (res.headers["content-type"] !== undefined)
          res.headers["content-type"] = "text/html; charset=utf-8";
      },
    }),
};

// ---- benign variants: other legal answers to open points; the kit must pass each one -------------------

export const extraFields: Variant = {
  id: "extra-fields",
  kind: "benign",
  area: "envelope",
  description: "every resource carries extra fields (_links, version), nested objects too",
  build: (env) =>
    plain(env, {
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
    }),
};

export const productCreate200: Variant = {
  id: "product-create-200",
  kind: "benign",
  area: "envelope",
  description: "product creation answers 200 instead of 201",
  build: (env) =>
    plain(
      env,
      mapStatus((s, req) => (req.method === "POST" && req.path === PRODUCTS && s === 201 ? 200 : s)),
    ),
};

export const productCreateEmptyData: Variant = {
  id: "product-create-empty-data",
  kind: "benign",
  area: "envelope",
  description: 'product creation answers { "data": {} }',
  build: (env) =>
    plain(
      env,
      mapJsonBody(
        () => ({ data: {} }),
        (res, req) => req.method === "POST" && req.path === PRODUCTS && is2xx(res),
      ),
    ),
};

export const jsonWithoutCharset: Variant = {
  id: "json-without-charset",
  kind: "benign",
  area: "envelope",
  description: "Content-Type is application/json without a charset",
  build: (env) =>
    plain(env, {
      response(res) {
        if (String(res.headers["content-type"] ?? "").startsWith("application/json"))
          res.headers["content-type"] = "application/json";
      },
    }),
};

export const contactCreationFullRecord: Variant = {
  id: "contact-creation-full-record",
  kind: "benign",
  area: "envelope",
  description: "contact creation answers the full contact, null for what was not sent",
  build: async (env) => {
    const reference = await env.reference();
    return wrap(
      reference,
      mapResources((item, req) => {
        const org = req.token?.organization;
        const stored =
          org === undefined || typeof item.id !== "string"
            ? undefined
            : reference.store.contact(org, item.id);
        return req.path === CONTACTS && stored !== undefined ? { ...toContact(stored) } : item;
      }, "creations"),
    );
  },
};
