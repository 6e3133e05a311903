import { z } from "zod";
import {
  createDocument,
  type oas31,
  type ZodOpenApiOperationObject,
  type ZodOpenApiPathsObject,
  type ZodOpenApiResponseObject,
  type ZodOpenApiResponsesObject,
} from "zod-openapi";
import { ERROR_CODES, ERROR_STATUS, type ErrorCode } from "../model/errors.js";
import { NO_BODY, NO_QUERY, TABLE_ROWS, type AnnouncedEndpoint, type Endpoint } from "../routes/table.js";
import { ErrorJson } from "../serialization/resources.js";
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

const RateLimitPolicyHeader = z
  .string()
  .regex(new RegExp(`^${POLICY}; q=[1-9][0-9]*; w=[1-9][0-9]*$`))
  .meta({
    header: {
      id: "RateLimit-Policy",
      description:
        "The quota (IETF httpapi RateLimit draft): `q` requests per `w` seconds, rolling. Named `per-token`, or `per-address` for a request without a known token.",
    },
    examples: ['"per-token"; q=100; w=60'],
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
    examples: ['"per-token"; r=99; t=60'],
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

// --- responses -------------------------------------------------------------------------------------

const JSON_TYPE = "application/json";

/** The name of each error's reusable response, in components.responses. */
export const ERROR_RESPONSE: Record<ErrorCode, string> = {
  invalid_request: "InvalidRequest",
  unauthorized: "Unauthorized",
  forbidden: "Forbidden",
  not_found: "NotFound",
  rate_limited: "RateLimited",
  internal_error: "InternalError",
};

const ERROR_WHEN: Record<ErrorCode, string> = {
  invalid_request:
    "The query or body is invalid (`details` names each offending field), the body is not a JSON object sent as application/json, or it exceeds 100 KiB; a duplicate sku on product creation.",
  unauthorized: "The bearer token is missing, malformed, unknown, expired or revoked.",
  forbidden: "The token lacks the operation's scope, or the organization's plan has no API access.",
  not_found: "No such endpoint (unknown path, a method without an endpoint, an announced endpoint).",
  rate_limited: "More requests than the rate limit allows in the rolling window (§8).",
  internal_error: "A server-side error; retry after a few seconds.",
};

function errorResponse(code: ErrorCode): ZodOpenApiResponseObject {
  const extra =
    code === "rate_limited"
      ? { "Retry-After": RetryAfterHeader }
      : code === "unauthorized"
        ? { "WWW-Authenticate": WwwAuthenticateHeader }
        : {};
  return {
    description: `${ERROR_STATUS[code]} ${code}: ${ERROR_WHEN[code]}`,
    headers: z.object({ ...rateLimitHeaders, ...extra }),
    content: { [JSON_TYPE]: { schema: ErrorJson[code] } },
  };
}

const errorRef = (code: ErrorCode): oas31.ReferenceObject => ({
  $ref: `#/components/responses/${ERROR_RESPONSE[code]}`,
});

/** What any request can meet before its route: the rate limit, the token, the plan, and a bug. */
const PIPELINE_ERRORS: readonly ErrorCode[] = ["unauthorized", "forbidden", "rate_limited", "internal_error"];

/**
 * The errors an operation can answer with: the pipeline's, plus invalid_request when it reads a query
 * or a body (403 covers the scope). No route of the table answers 404: only unknown paths do.
 */
export function errorCodesOf(endpoint: Endpoint): ErrorCode[] {
  const codes: ErrorCode[] = [...PIPELINE_ERRORS];
  if (endpoint.query !== NO_QUERY || endpoint.body !== NO_BODY) codes.push("invalid_request");
  return codes.sort((a, b) => ERROR_STATUS[a] - ERROR_STATUS[b]);
}

function errorResponses(codes: readonly ErrorCode[]): ZodOpenApiResponsesObject {
  return Object.fromEntries(codes.map((code) => [String(ERROR_STATUS[code]), errorRef(code)]));
}

// --- operations ------------------------------------------------------------------------------------

const resourceOf = (path: string): string => path.split("/").at(-1) ?? path;
const capitalized = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

function operation(operationId: string, endpoint: Endpoint): ZodOpenApiOperationObject {
  const data = endpoint.list ? z.array(endpoint.response) : endpoint.response;
  const examples = EXAMPLES[operationId];
  const success: ZodOpenApiResponseObject = {
    description: endpoint.list
      ? "The list, newest first (ties by id, descending), at most `limit` items."
      : "The created record.",
    headers: z.object(rateLimitHeaders),
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
    responses: { [String(endpoint.status)]: success, ...errorResponses(errorCodesOf(endpoint)) },
  };
}

/** §1, §4 "Not available", §9: listed so that nobody looks for them, answered 404 (spec-gaps #24). */
function announcedOperation(operationId: string, a: AnnouncedEndpoint): ZodOpenApiOperationObject {
  return {
    operationId,
    summary: `${a.what}: announced, not yet available`,
    description: `Announced (§1, §4 "Not available", §9) but not available: any token with API access gets 404 not_found saying so. No scope grants it yet.`,
    tags: [capitalized(resourceOf(a.path))],
    security: [{ [SECURITY_SCHEME]: [] }],
    "x-scopes": [],
    // Client generators read `deprecated`; `x-not-available` says why to whoever reads the document.
    deprecated: true,
    "x-not-available": true,
    responses: errorResponses(
      [...PIPELINE_ERRORS, "not_found" as const].sort((x, y) => ERROR_STATUS[x] - ERROR_STATUS[y]),
    ),
  };
}

// --- the document ----------------------------------------------------------------------------------

export const API_DESCRIPTION = `The public REST API of the accounting service (\`accounting-api.md\`), as the reference server implements it. Generated from the schemas the server validates and serializes with.

- **Authentication**: \`Authorization: Bearer <token>\` on every request; each operation names the scope it needs (in its description, its security requirement and \`x-scopes\`). Missing, malformed, unknown, expired or revoked tokens: 401; a token without the scope, or an organization whose plan has no API access: 403.
- **Envelope**: success bodies are \`{ "data": … }\`; every failure is \`{ "error": { "code", "message", "details"? } }\` with one of six codes, whatever the path or method: unknown paths and methods answer 404 not_found.
- **Precedence** when several things are wrong: rate limit (429), token (401), plan (403), scope (403), query or body (400), path (404).
- **Rate limit**: 100 requests per rolling minute per token (per client address without a known token); \`RateLimit\`/\`RateLimit-Policy\` on every answer, \`Retry-After\` on 429.
- **Lists**: newest first; \`before\` is exclusive. Invoices and expenses share midnight dates, so a page that ends inside a day followed by \`before\` = that date skips the rest of the day (§4 Pagination): read with \`limit=200\` where that matters. Unknown query parameters are ignored; a repeated parameter is refused.
- **Bodies**: JSON objects sent as \`application/json\` (UTF-8), 100 KiB at most; duplicate keys and \`__proto__\` are refused. Numbers are read from their text: \`unitPrice\` keeps every digit sent.
- **CORS**: any origin, on every answer including errors; pre-flights need no token and are not counted.

Not expressible in this document and stated here instead: sku uniqueness per organization, the order of failures above, the pagination hole, and exact decimal arithmetic on \`unitPrice\` beyond what a binary float holds (JSON Schema validators read numbers as floats).`;

export interface OpenApiOptions {
  /** The document's own version (info.version). */
  version?: string;
}

/** The OpenAPI 3.1 document of §4's table. */
export function buildOpenApiDocument(options: OpenApiOptions = {}): OpenApiDocument {
  const paths: ZodOpenApiPathsObject = {};
  // Every available operation first, then the announced ones, in the table's order.
  const rows = [...TABLE_ROWS].sort(
    (a, b) => Number(a.row.announced === true) - Number(b.row.announced === true),
  );
  for (const { operationId, row } of rows) {
    const op = row.announced === true ? announcedOperation(operationId, row) : operation(operationId, row);
    paths[row.path] = { ...paths[row.path], [row.method]: op };
  }

  const codes = ERROR_CODES;
  return createDocument({
    openapi: "3.1.0",
    info: {
      title: "Accounting API",
      version: options.version ?? "v1",
      description: API_DESCRIPTION,
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
      securitySchemes: {
        [SECURITY_SCHEME]: {
          type: "http",
          scheme: "bearer",
          description:
            "An API token of one organization (`<prefix>_` + 40 base62 characters), created in the web interface with a set of scopes (§5). The scope each operation needs is listed in its security requirement.",
        },
      },
      responses: Object.fromEntries(codes.map((code) => [ERROR_RESPONSE[code], errorResponse(code)])),
    },
  });
}

/** The committed `openapi.json` and what `/openapi.json` serves, byte for byte. */
export const renderOpenApiJson = (document: OpenApiDocument): string =>
  `${JSON.stringify(document, null, 2)}\n`;
