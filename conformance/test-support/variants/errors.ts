import {
  errorOf,
  errorReply,
  type Incoming,
  INVOICES,
  isObject,
  type Layer,
  LIST_PATHS,
  mapError,
  mapJsonBody,
  parseJson,
  retarget,
  earlyRefusal,
  setJson,
  type Variant,
  variantsIn,
} from "./harness.js";

const { violation, benign } = variantsIn("errors");

/** Variants of the error answers: envelopes, codes, bad input and unavailable endpoints (§7, §4). */

function isJson(bytes: Buffer): boolean {
  return parseJson(bytes) !== undefined || bytes.toString("utf8").trim() === "null";
}

/** The text of the first JSON object in `text`, if it starts with one (the rest left unread). */
function firstObject(text: string): string | undefined {
  const start = text.indexOf("{");
  let depth = 0;
  let inString = false;
  for (let i = start; start !== -1 && i < text.length; i += 1) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i += 1;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{") depth += 1;
    else if (c === "}" && --depth === 0) return text.slice(start, i + 1);
  }
  return undefined;
}

/** Rewrites a POST body the reference would refuse into one it takes, as a lenient parser reads it. */
const readLeniently = (
  read: (text: string) => unknown,
  json: "malformed only" | "any" = "malformed only",
): Layer => ({
  readBody: true,
  request(req) {
    if (req.method !== "POST" || req.body === undefined) return undefined;
    if (json === "malformed only" && isJson(req.body)) return undefined;
    const value = read(req.body.toString("utf8"));
    if (isObject(value)) req.body = Buffer.from(JSON.stringify(value));
    return undefined;
  },
});

const tryParse = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
};

// ---- violations: the kit must fail each one in the spec profile, naming the right check ---------------

// §7: error envelopes and codes.
export const errorWithoutCode = violation(
  "error-without-code",
  "error envelopes lack error.code",
  ["run.error-envelope"],
  mapJsonBody(
    (body) => {
      const error = errorOf(body);
      if (error !== undefined) delete error.code;
      return body;
    },
    (res) => res.status >= 400,
  ),
);

export const errorAsString = violation(
  "error-as-string",
  'errors answer { "error": "<code>" } instead of an object',
  ["run.error-envelope"],
  mapJsonBody(
    (body) => ({ error: errorOf(body)?.code ?? "error" }),
    (res) => res.status >= 400,
  ),
);

export const unknownPathAs400 = violation(
  "unknown-path-as-400",
  "unknown paths and methods get 400 invalid_request instead of 404",
  ["errors.unknown-paths", "errors.other-methods", "versioning.unversioned-path"],
  mapError(404, retarget(400, "invalid_request")),
);

export const invalidRequestRenamed = violation(
  "invalid-request-renamed",
  "400 answers carry the code validation_error instead of invalid_request",
  ["errors.malformed-json", "contacts.invalid-bodies", "run.error-envelope"],
  mapError(400, (error) => {
    error.code = "validation_error";
  }),
);

export const detailsAsArray = violation(
  "details-as-array",
  "error.details is an array of { field, messages } instead of an object",
  ["run.error-envelope"],
  mapError(400, (error) => {
    if (isObject(error.details)) {
      error.details = Object.entries(error.details).map(([field, messages]) => ({ field, messages }));
    }
  }),
);

// §7 and §4: bad input, unavailable endpoints.
export const malformedJson500 = violation(
  "malformed-json-500",
  "malformed JSON gets 500 internal_error instead of 400",
  ["errors.malformed-json", "run.no-5xx"],
  {
    readBody: true,
    response(res, req) {
      if (res.status === 400 && req.method === "POST" && req.body !== undefined && !isJson(req.body)) {
        res.status = 500;
        setJson(res, { error: { code: "internal_error", message: "Unexpected token" } });
      }
    },
  },
);

export const malformedJsonAccepted = violation(
  "malformed-json-accepted",
  "malformed JSON gets 200 with an empty record",
  ["errors.malformed-json"],
  {
    readBody: true,
    request: (req) =>
      req.method === "POST" && req.token !== undefined && req.body !== undefined && !isJson(req.body)
        ? { status: 200, json: { data: {} } }
        : undefined,
  },
);

export const oversizedBody413Text = violation(
  "oversized-body-413-text",
  "an oversized body gets 413 as text/plain, outside the error envelope",
  ["errors.body-size", "run.json-responses"],
  {
    response(res) {
      if (res.status !== 400 || !/exceeds the limit/.test(res.body.toString("utf8"))) return;
      res.status = 413;
      res.headers["content-type"] = "text/plain; charset=utf-8";
      res.body = Buffer.from("Payload Too Large");
    },
  },
);

export const contentType422 = violation(
  "content-type-422",
  "a POST without Content-Type: application/json gets 422 instead of 400 or 415",
  ["errors.content-type"],
  mapError(
    400,
    (error, res) => {
      res.status = 422;
      error.code = "unprocessable_entity";
    },
    (req) => req.method === "POST" && !/^application\/json/i.test(req.headers["content-type"] ?? ""),
  ),
);

export const invoiceCreationOpen = violation(
  "invoice-creation-open",
  "POST /api/v1/invoices, announced but not available, answers 201",
  ["errors.announced-endpoints"],
  {
    request: (req) =>
      req.method === "POST" && req.path === INVOICES && req.token !== undefined
        ? { status: 201, json: { data: { id: "inv_variant" } } }
        : undefined,
  },
);

export const otherMethodsSucceed = violation(
  "other-methods-succeed",
  "PUT, PATCH and DELETE succeed (200, or 204 for DELETE) on paths without an endpoint",
  ["errors.other-methods"],
  {
    request(req) {
      if (req.token === undefined || !["PUT", "PATCH", "DELETE"].includes(req.method)) return undefined;
      return req.method === "DELETE" ? { status: 204 } : { status: 200, json: { data: {} } };
    },
  },
);

export const unversionedAlias = violation(
  "unversioned-alias",
  "/api/contacts is served like /api/v1/contacts",
  ["versioning.unversioned-path"],
  {
    request(req) {
      if (/^\/api\/(contacts|products|invoices|expenses)$/.test(req.path))
        req.path = req.path.replace("/api/", "/api/v1/");
      return undefined;
    },
  },
);

// Bodies that are not JSON, or not the object asked for, read by a lenient parser (issue 16, class 7).
export const jsonParsedLeniently = violation(
  "json-parsed-leniently",
  "bodies are read by a lenient JSON5-like parser: comments, trailing commas, single quotes and unquoted keys are taken",
  ["errors.malformed-json"],
  readLeniently((text) =>
    tryParse(
      text
        .replace(/\/\*[\s\S]*?\*\//g, "")
        .replace(/\/\/[^\n]*\n/g, "")
        .replace(/,\s*}/g, "}")
        .replace(/'/g, '"')
        .replace(/([{,]\s*)([A-Za-z_]\w*)\s*:/g, '$1"$2":'),
    ),
  ),
);

export const jsonNanAccepted = violation(
  "json-nan-accepted",
  "a unitPrice of NaN, Infinity or past the float range is taken, as Python's json module reads them (stored as 0 and the largest price)",
  ["errors.malformed-json"],
  readLeniently((text) =>
    tryParse(text.replace(/-?Infinity|\b1e309\b/g, "999999999999.9999").replace(/\bNaN\b/g, "0")),
  ),
);

export const jsonFirstValueOnly = violation(
  "json-first-value-only",
  "a body is read as its first JSON value and the rest ignored (a streaming decoder): {…} x and {…}{…} create the first object",
  ["errors.malformed-json"],
  readLeniently((text) => tryParse(firstObject(text) ?? "")),
);

export const jsonStoredThenRefused = violation(
  "json-stored-then-refused",
  "a body with more after its JSON object is stored first and checked after: the answer is 400, but the record stays",
  ["errors.malformed-json"],
  () => {
    const refused = new WeakSet<Incoming>();
    return {
      readBody: true,
      request(req) {
        if (req.method !== "POST" || req.body === undefined || isJson(req.body)) return undefined;
        const first = firstObject(req.body.toString("utf8"));
        if (first === undefined || !isObject(tryParse(first))) return undefined;
        refused.add(req);
        req.body = Buffer.from(first);
        return undefined;
      },
      response(res, req) {
        if (!refused.has(req) || res.status >= 300) return;
        res.status = 400;
        setJson(res, { error: { code: "invalid_request", message: "Unexpected data after the JSON value" } });
      },
    };
  },
);

export const jsonUnwrapped = violation(
  "json-unwrapped",
  'a body that is not an object is unwrapped to the object it holds: [{…}], a JSON string of {…}, and {"data": {…}} create that object',
  ["errors.non-object-json"],
  readLeniently((text) => {
    let value = tryParse(text);
    if (typeof value === "string") value = tryParse(value);
    if (Array.isArray(value)) value = value[0];
    return isObject(value) && Object.keys(value).length === 1 && isObject(value.data) ? value.data : value;
  }, "any"),
);

// Headers in forms beyond the canonical one (issue 16, class 1).
export const contentTypeExactMatch = violation(
  "content-type-exact-match",
  "a POST is taken only when Content-Type is exactly application/json: application/json; charset=utf-8 (what many clients send) gets 400",
  ["coverage.content-type"],
  {
    request: (req) =>
      req.method === "POST" && req.token !== undefined && req.headers["content-type"] !== "application/json"
        ? errorReply(400, "invalid_request", "Content-Type must be application/json")
        : undefined,
  },
);

export const acceptJsonOnly = violation(
  "accept-json-only",
  "an Accept is met only when it is */* or names application/json: application/* (which admits JSON) gets 406",
  ["coverage.accept"],
  {
    request: (req) =>
      req.headers.accept !== undefined &&
      req.headers.accept !== "*/*" &&
      !req.headers.accept.includes("application/json")
        ? { status: 406, json: { error: { code: "not_acceptable", message: "Only application/json" } } }
        : undefined,
  },
);

// ---- benign variants: other legal answers to open points; the kit must pass each one -------------------

export const acceptNegotiated = benign(
  "accept-negotiated",
  "an Accept that admits no JSON (text/html, application/xml) gets 406 in the error envelope",
  {
    request(req) {
      const accept = req.headers.accept;
      if (accept === undefined || /json|\*\/\*|application\/\*/.test(accept)) return undefined;
      return { status: 406, json: { error: { code: "not_acceptable", message: "This API answers JSON" } } };
    },
  },
);

export const methodNotAllowed405 = benign(
  "method-not-allowed-405",
  "PUT, PATCH and DELETE get 405 (with Allow and the error envelope) instead of 404",
  {
    request(req) {
      if (!["PUT", "PATCH", "DELETE"].includes(req.method) || req.token === undefined) return undefined;
      const collection = LIST_PATHS.find((p) => req.path === p || req.path.startsWith(`${p}/`));
      if (collection === undefined) return undefined;
      return {
        ...errorReply(405, "method_not_allowed", `${req.method} is not allowed here`),
        headers: { allow: req.path === collection ? "GET, POST" : "" },
      };
    },
  },
);

export const unsupportedMediaType415 = benign(
  "unsupported-media-type-415",
  "a POST without Content-Type: application/json gets 415 instead of 400",
  mapError(
    400,
    (error, res) => {
      res.status = 415;
      error.code = "unsupported_media_type";
    },
    (req) => req.method === "POST" && !/^application\/json\s*(;|$)/i.test(req.headers["content-type"] ?? ""),
  ),
);

export const payloadTooLarge413 = benign(
  "payload-too-large-413",
  "an oversized body gets 413 (error envelope) instead of 400",
  mapError(
    400,
    (error, res) => {
      res.status = 413;
      error.code = "payload_too_large";
    },
    (_req, res) => /exceeds the limit/.test(res.body.toString("utf8")),
  ),
);

export const trailingSlashAccepted = benign(
  "trailing-slash-accepted",
  "paths with a trailing slash are served like those without",
  {
    request(req) {
      if (req.path.length > 1 && req.path.endsWith("/")) req.path = req.path.replace(/\/+$/, "");
      return undefined;
    },
  },
);

export const headServed = benign("head-served", "HEAD is answered like GET (headers, no body)", {
  request(req) {
    // Node leaves out the body of an answer to HEAD whatever the app writes.
    if (req.method === "HEAD") req.method = "GET";
    return undefined;
  },
});

export const detailsAsStrings = benign(
  "details-as-strings",
  'error.details maps each field to one message ("name": "is required") instead of a list',
  mapError(400, (error) => {
    if (isObject(error.details)) {
      error.details = Object.fromEntries(
        Object.entries(error.details).map(([k, v]) => [k, Array.isArray(v) ? v.join("; ") : v]),
      );
    }
  }),
);

// §7, spec-gaps #15: a body too large refused before it is read whole (issue 29).
export const bodySizeEarlyAnswer: Variant = {
  id: "body-size-early-answer",
  kind: "benign",
  area: "errors",
  description:
    "a body over 1 MB gets 400 once 1 MB is read, and the connection is closed without reading the rest (as a JDK server did)",
  build: earlyRefusal("answer"),
};
