import { z } from "zod";
import {
  createDocument,
  type oas31,
  type ZodOpenApiOperationObject,
  type ZodOpenApiPathsObject,
  type ZodOpenApiResponseObject,
  type ZodOpenApiResponsesObject,
} from "zod-openapi";
import { defaultSpec, type Spec } from "../../spec/index.js";
import { codesOf, defaultErrors, type ErrorCode, type ErrorRole, type ErrorTable } from "../model/errors.js";
import { compileSpec, type CompiledSpec } from "../routes/compile.js";
import { NO_BODY, NO_QUERY, type AnnouncedEndpoint, type Endpoint } from "../routes/table.js";
import { ErrorJson, errorJson, errorSchemaId } from "../serialization/resources.js";
import { EXAMPLES } from "./examples.js";

/**
 * The OpenAPI 3.1 document, generated from §4's table (src/routes/table.ts) and the zod schemas the
 * server validates and serializes with, so that it cannot describe another server than the one that
 * runs. What JSON
 * Schema cannot say is written in the descriptions (see `API_DESCRIPTION` and DECISIONS.md).
 */

export type OpenApiDocument = oas31.OpenAPIObject;

export const SECURITY_SCHEME = "bearerAuth";

// --- headers ---------------------------------------------------------------------------------------

const POLICY = '"(per-token|per-address)"';

/** The rate-limit headers, their examples with the spec's numbers (§8). */
function headersOf(rate: Spec["limits"]["rate"]) {
  const RateLimitPolicyHeader = z
    .string()
    .regex(new RegExp(`^${POLICY}; q=[1-9][0-9]*; w=[1-9][0-9]*$`))
    .meta({
      header: {
        id: "RateLimit-Policy",
        description:
          "The quota (IETF httpapi RateLimit draft): `q` requests per `w` seconds, rolling. Named `per-token`, or `per-address` for a request without a known token.",
      },
      examples: [`"per-token"; q=${rate.requests}; w=${rate.windowSeconds}`],
    });

  const RateLimitHeader = z
    .string()
    .regex(new RegExp(`^${POLICY}; r=[0-9]+; t=[0-9]+$`))
    .meta({
      header: {
        id: "RateLimit",
        description:
          "What is left (IETF httpapi RateLimit draft): `r` requests remaining, `t` seconds until the next slot frees.",
      },
      examples: [`"per-token"; r=${rate.requests - 1}; t=${rate.windowSeconds}`],
    });

  const RetryAfterHeader = z
    .int()
    .min(1)
    .meta({
      header: { id: "Retry-After", description: "Seconds to wait before the next request is accepted." },
    });

  const WwwAuthenticateHeader = z.enum(["Bearer", 'Bearer error="invalid_token"']).meta({
    header: {
      id: "WWW-Authenticate",
      description: 'RFC 6750 §3: `Bearer`, with `error="invalid_token"` when a token was presented.',
    },
  });

  /** Every request but a CORS pre-flight is counted (§8, spec-gaps #21), so every answer says so. */
  const rateLimitHeaders = { RateLimit: RateLimitHeader, "RateLimit-Policy": RateLimitPolicyHeader };
  return { rateLimitHeaders, RetryAfterHeader, WwwAuthenticateHeader };
}
type Headers = ReturnType<typeof headersOf>;

// --- responses -------------------------------------------------------------------------------------

const JSON_TYPE = "application/json";

/** The name of each situation's reusable response, in components.responses. */
const RESPONSE_NAMES: Record<ErrorRole, string> = {
  invalidRequest: "InvalidRequest",
  unauthorized: "Unauthorized",
  forbidden: "Forbidden",
  notFound: "NotFound",
  rateLimited: "RateLimited",
  internal: "InternalError",
  duplicateSku: "DuplicateSku",
};

/** When each situation is answered, for its response's description. */
const ERROR_WHEN: Record<ErrorRole, string> = {
  invalidRequest:
    "The query or body is invalid (`details` names each offending field), the body is not a JSON object sent as application/json, or it exceeds 100 KiB",
  duplicateSku: "a duplicate sku on product creation",
  unauthorized: "The bearer token is missing, malformed, unknown, expired or revoked",
  forbidden: "The token lacks the operation's scope, or the organization's plan has no API access",
  notFound: "No such endpoint (unknown path, a method without an endpoint, an announced endpoint)",
  rateLimited: "More requests than the rate limit allows in the rolling window (§8)",
  internal: "A server-side error; retry after a few seconds",
};

const ROLES = Object.keys(RESPONSE_NAMES) as ErrorRole[];

/** The situations a table answers with `code`, in the table's order. */
const rolesWith = (table: ErrorTable, code: ErrorCode): ErrorRole[] =>
  ROLES.filter((role) => table[role].code === code);

/** The reusable response of a code: named after its first situation. */
const responseName = (table: ErrorTable, code: ErrorCode): string =>
  RESPONSE_NAMES[rolesWith(table, code)[0] ?? "internal"];

/** The name of each default code's reusable response, in components.responses. */
export const ERROR_RESPONSE: Readonly<Record<ErrorCode, string>> = Object.fromEntries(
  Object.values(defaultErrors()).map(({ code }) => [code, responseName(defaultErrors(), code)]),
);

/** Everything about a spec's errors the document needs. */
interface Errors {
  table: ErrorTable;
  headers: Headers;
  /** Each code's envelope schema. */
  schemas: Readonly<Record<ErrorCode, z.ZodType>>;
}

function errorResponse(errors: Errors, code: ErrorCode): ZodOpenApiResponseObject {
  const roles = rolesWith(errors.table, code);
  const { rateLimitHeaders, RetryAfterHeader, WwwAuthenticateHeader } = errors.headers;
  const extra = roles.includes("rateLimited")
    ? { "Retry-After": RetryAfterHeader }
    : roles.includes("unauthorized")
      ? { "WWW-Authenticate": WwwAuthenticateHeader }
      : {};
  const status = errors.table[roles[0] ?? "internal"].status;
  return {
    description: `${status} ${code}: ${roles.map((role) => ERROR_WHEN[role]).join("; ")}.`,
    headers: z.object({ ...rateLimitHeaders, ...extra }),
    content: { [JSON_TYPE]: { schema: errors.schemas[code] } },
  };
}

/** What any request can meet before its route: the rate limit, the token, the plan, and a bug. */
const PIPELINE_ERRORS: readonly ErrorRole[] = ["unauthorized", "forbidden", "rateLimited", "internal"];

/**
 * The situations an operation can answer with: the pipeline's, plus invalidRequest when it reads a
 * query or a body (403 covers the scope), and duplicateSku on product creation. No route of the
 * table answers 404: only unknown paths do.
 */
export function errorRolesOf(operationId: string, endpoint: Endpoint): ErrorRole[] {
  const roles: ErrorRole[] = [...PIPELINE_ERRORS];
  if (endpoint.query !== NO_QUERY || endpoint.body !== NO_BODY) roles.push("invalidRequest");
  if (operationId === "createProduct") roles.push("duplicateSku");
  return roles;
}

/**
 * The responses of some situations by status: a code's reusable response, or, where a variant gives
 * two codes one status, a response whose body is either envelope.
 */
function errorResponses(errors: Errors, roles: readonly ErrorRole[]): ZodOpenApiResponsesObject {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const role of roles) {
    const { status, code } = errors.table[role];
    const codes = byStatus.get(status) ?? [];
    if (!codes.includes(code)) codes.push(code);
    byStatus.set(status, codes);
  }
  const sorted = [...byStatus].sort((a, b) => a[0] - b[0]);
  return Object.fromEntries(
    sorted.map(([status, codes]) => {
      const [only] = codes;
      if (codes.length === 1 && only !== undefined) {
        const ref: oas31.ReferenceObject = {
          $ref: `#/components/responses/${responseName(errors.table, only)}`,
        };
        return [String(status), ref];
      }
      const schemas = codes.map((code) => errors.schemas[code] ?? z.never());
      const response: ZodOpenApiResponseObject = {
        description: `${status} ${codes.join(" or ")}.`,
        headers: z.object(errors.headers.rateLimitHeaders),
        content: { [JSON_TYPE]: { schema: z.union(schemas) } },
      };
      return [String(status), response];
    }),
  );
}

// --- operations ------------------------------------------------------------------------------------

const resourceOf = (path: string): string => path.split("/").at(-1) ?? path;
const capitalized = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

function operation(errors: Errors, operationId: string, endpoint: Endpoint): ZodOpenApiOperationObject {
  const data = endpoint.list ? z.array(endpoint.response) : endpoint.response;
  const examples = EXAMPLES[operationId];
  const success: ZodOpenApiResponseObject = {
    description: endpoint.list
      ? "The list, newest first (ties by id, descending), at most `limit` items."
      : "The created record.",
    headers: z.object(errors.headers.rateLimitHeaders),
    content: {
      [JSON_TYPE]: {
        schema: z.strictObject({ data }),
        ...(examples === undefined ? {} : { example: { data: examples.data } }),
      },
    },
  };
  const request = examples?.request;
  return {
    operationId,
    summary: endpoint.summary,
    description: `Requires the scope \`${endpoint.scope}\` (§4, §5).`,
    tags: [capitalized(resourceOf(endpoint.path))],
    security: [{ [SECURITY_SCHEME]: [endpoint.scope] }],
    "x-scopes": [endpoint.scope],
    ...(endpoint.query === NO_QUERY ? {} : { requestParams: { query: endpoint.query } }),
    ...(endpoint.body === NO_BODY
      ? {}
      : {
          requestBody: {
            required: true,
            content: {
              [JSON_TYPE]: { schema: endpoint.body, ...(request === undefined ? {} : { example: request }) },
            },
          },
        }),
    responses: {
      [String(endpoint.status)]: success,
      ...errorResponses(errors, errorRolesOf(operationId, endpoint)),
    },
  };
}

/** §1, §4 "Not available", §9: listed so that nobody looks for them, answered 404 (spec-gaps #24). */
function announcedOperation(
  errors: Errors,
  operationId: string,
  a: AnnouncedEndpoint,
): ZodOpenApiOperationObject {
  const notFound = errors.table.notFound;
  return {
    operationId,
    summary: `${a.what}: announced, not yet available`,
    description: `Announced (§1, §4 "Not available", §9) but not available: any token with API access gets ${notFound.status} ${notFound.code} saying so. No scope grants it yet.`,
    tags: [capitalized(resourceOf(a.path))],
    security: [{ [SECURITY_SCHEME]: [] }],
    "x-scopes": [],
    // Client generators read `deprecated`; `x-not-available` says why to whoever reads the document.
    deprecated: true,
    "x-not-available": true,
    responses: errorResponses(errors, [...PIPELINE_ERRORS, "notFound"]),
  };
}

// --- the document ----------------------------------------------------------------------------------

const WORDS = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];
const counted = (n: number): string => WORDS[n] ?? String(n);

/** The document's description, with the spec's statuses, codes and numbers. */
export function apiDescription(spec: Spec): string {
  const e = spec.errors;
  const codes = codesOf(e);
  const { requests, windowSeconds } = spec.limits.rate;
  const window = windowSeconds === 60 ? "minute" : `${windowSeconds} seconds`;
  return `The public REST API of the accounting service (\`accounting-api.md\`), as the reference server implements it. Generated from the schemas the server validates and serializes with.

- **Authentication**: \`Authorization: Bearer <token>\` on every request; each operation names the scope it needs (in its description, its security requirement and \`x-scopes\`). Missing, malformed, unknown, expired or revoked tokens: ${e.unauthorized.status}; a token without the scope, or an organization whose plan has no API access: ${e.forbidden.status}.
- **Envelope**: success bodies are \`{ "data": … }\`; every failure is \`{ "error": { "code", "message", "details"? } }\` with one of ${counted(codes.length)} codes, whatever the path or method: unknown paths and methods answer ${e.notFound.status} ${e.notFound.code}.
- **Precedence** when several things are wrong: rate limit (${e.rateLimited.status}), token (${e.unauthorized.status}), plan (${e.forbidden.status}), scope (${e.forbidden.status}), query or body (${e.invalidRequest.status}), path (${e.notFound.status}).
- **Rate limit**: ${requests} requests per rolling ${window} per token (per client address without a known token); \`RateLimit\`/\`RateLimit-Policy\` on every answer, \`Retry-After\` on ${e.rateLimited.status}.
- **Lists**: newest first; \`before\` is exclusive. Invoices and expenses share midnight dates, so a page that ends inside a day followed by \`before\` = that date skips the rest of the day (§4 Pagination): read with \`limit=${spec.limits.page.max}\` where that matters. Unknown query parameters are ignored; a repeated parameter is refused.
- **Bodies**: JSON objects sent as \`application/json\` (UTF-8), 100 KiB at most; duplicate keys and \`__proto__\` are refused. Numbers are read from their text: \`unitPrice\` keeps every digit sent.
- **CORS**: any origin, on every answer including errors; pre-flights need no token and are not counted.

Not expressible in this document and stated here instead: sku uniqueness per organization, the order of failures above, the pagination hole, and exact decimal arithmetic on \`unitPrice\` beyond what a binary float holds (JSON Schema validators read numbers as floats).`;
}

export interface OpenApiOptions {
  /** The document's own version (info.version). */
  version?: string;
  /** The spec it describes (the default file's unless told). */
  spec?: Spec | undefined;
}

/**
 * The response schemas a variant's document names itself: zod's registry holds each id once, the
 * default spec's. A variant's request bodies are written in place (components here are rendered as
 * output schemas, which a body's transforms are not).
 */
function variantComponents(compiled: CompiledSpec, errors: Errors): Record<string, z.ZodType> {
  const named: Record<string, z.ZodType> = {};
  if (!compiled.defaultWire) {
    const w = compiled.wire.schemas;
    Object.assign(named, {
      Contact: w.contact,
      ContactCreated: w.contactCreated,
      Product: w.product,
      Invoice: w.invoice,
      Expense: w.expense,
    });
  }
  for (const code of codesOf(errors.table)) {
    const schema = errors.schemas[code];
    if (schema !== undefined && schema !== ErrorJson[code]) {
      named[errorSchemaId(rolesWith(errors.table, code)[0] ?? "internal")] = schema;
    }
  }
  return named;
}

const documents = new WeakMap<Spec, Map<string, OpenApiDocument>>();

/** The OpenAPI 3.1 document of a spec's table (the default file's unless told), made once per spec and version. */
export function buildOpenApiDocument(options: OpenApiOptions = {}): OpenApiDocument {
  const spec = options.spec ?? defaultSpec();
  const version = options.version ?? "v1";
  let bySpec = documents.get(spec);
  if (bySpec === undefined) {
    bySpec = new Map();
    documents.set(spec, bySpec);
  }
  let made = bySpec.get(version);
  if (made === undefined) {
    made = documentOf(compileSpec(spec), version);
    bySpec.set(version, made);
  }
  // A copy: a caller may change or dereference it in place.
  return structuredClone(made);
}

function documentOf(compiled: CompiledSpec, version: string): OpenApiDocument {
  const { spec } = compiled;
  const table = spec.errors;
  const isDefault = spec === defaultSpec();
  const codes = codesOf(table);
  const errors: Errors = {
    table,
    headers: headersOf(spec.limits.rate),
    schemas: Object.fromEntries(
      codes.map((code) => [
        code,
        isDefault ? (ErrorJson[code] ?? errorJson(code, table, false)) : errorJson(code, table, false),
      ]),
    ),
  };
  const paths: ZodOpenApiPathsObject = {};
  // Every available operation first, then the announced ones, in the table's order.
  const rows = [...compiled.rows].sort(
    (a, b) => Number(a.row.announced === true) - Number(b.row.announced === true),
  );
  for (const { operationId, row } of rows) {
    const op =
      row.announced === true
        ? announcedOperation(errors, operationId, row)
        : operation(errors, operationId, row);
    paths[row.path] = { ...paths[row.path], [row.method]: op };
  }

  return createDocument({
    openapi: "3.1.0",
    info: {
      title: "Accounting API",
      version,
      description: apiDescription(spec),
      license: { name: "MIT", identifier: "MIT" },
    },
    servers: [{ url: "/", description: "The server that serves this document" }],
    tags: [
      { name: "Contacts", description: "Clients and suppliers (§2 Contact)." },
      { name: "Products", description: "Products and services (§2 Product)." },
      { name: "Invoices", description: "Read-only (§2 Invoice); creation is announced." },
      { name: "Expenses", description: "Read-only (§2 Expense); creation is not available." },
    ],
    paths,
    components: {
      ...(isDefault ? {} : { schemas: variantComponents(compiled, errors) }),
      securitySchemes: {
        [SECURITY_SCHEME]: {
          type: "http",
          scheme: "bearer",
          description:
            "An API token of one organization (`<prefix>_` + 40 base62 characters), created in the web interface with a set of scopes (§5). The scope each operation needs is listed in its security requirement.",
        },
      },
      responses: Object.fromEntries(
        codes.map((code) => [responseName(table, code), errorResponse(errors, code)]),
      ),
    },
  });
}

/** The committed `openapi.json` and what `/openapi.json` serves, byte for byte. */
export const renderOpenApiJson = (document: OpenApiDocument): string =>
  `${JSON.stringify(document, null, 2)}\n`;
