import type { KitSpec } from "../spec/kit-spec.js";
import {
  CheckFailure,
  failureKey,
  isLargestPageRead,
  routeOf,
  type Cause,
  type FailureInit,
} from "../failures.js";
import type { HttpExchange, HttpRequest } from "../types.js";

/**
 * Assertion helpers: each throws a CheckFailure that says which rule was broken, what was expected
 * and what came back, with the exchange so that the report can show the curl that replays it.
 * `rule`, when given, leads the message: the report is read by someone who has not read the check.
 *
 * Each failure's key is what broke and the route of the request (failures.ts, routeOf), never the
 * body or the URL, which carry the run's values. A helper judging a foundation rule (the envelope,
 * JSON, UTF-8, CORS, no 5xx) names it as the cause; a status other than the one expected is the
 * check's own rule, unless it is a server error.
 */

export type JsonObject = Record<string, unknown>;

export const isRecord = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Fails the check: `key` is the defect without the run's values (failures.ts), `cause` by default the
 * check's own rule; `evidence` the exchanges that show it, in order, when one alone does not (a POST,
 * then the GET), missing ones left out.
 */
export function fail(
  message: string,
  init: Omit<FailureInit, "exchange" | "evidence" | "replay"> & {
    exchange?: HttpExchange | undefined;
    evidence?: ReadonlyArray<HttpExchange | undefined>;
  },
): never {
  const evidence = init.evidence?.filter((ex): ex is HttpExchange => ex !== undefined);
  throw new CheckFailure(message, {
    key: init.key,
    ...(init.cause === undefined ? {} : { cause: init.cause }),
    expected: init.expected,
    actual: init.actual,
    ...(init.exchange === undefined ? {} : { exchange: init.exchange }),
    ...(evidence === undefined || evidence.length === 0 ? {} : { evidence }),
  });
}

const lead = (rule: string | undefined, what: string): string =>
  rule === undefined ? what : `${rule}: ${what}`;

/** `GET /api/v1/contacts?limit=5`, as a report line names a request. */
export function requestLine(request: HttpRequest): string {
  const pairs: string[] = [];
  for (const [key, value] of Object.entries(request.query ?? {})) {
    for (const v of typeof value === "string" ? [value] : value) pairs.push(`${key}=${v}`);
  }
  const query = pairs.length === 0 ? "" : `?${pairs.join("&")}`;
  return `${request.method} ${request.path}${query}`;
}

/** A body, cut to what a report line can hold. */
export function snippet(text: string, max = 300): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat === "") return "(empty body)";
  return flat.length <= max ? flat : `${flat.slice(0, max)}… (${text.length} chars)`;
}

/** `400 {"error":{…}}`: the status and the start of the body. */
export const answer = (ex: HttpExchange): string => `${ex.status} ${snippet(ex.text)}`;

/** `GET /api/v1/contacts answered 400`. */
export const answered = (ex: HttpExchange): string => `${requestLine(ex.request)} answered ${ex.status}`;

/** `status 200 | POST /api/v1/contacts`: what broke, on which route. */
const keyOf = (what: string, ex: HttpExchange): string => failureKey(what, routeOf(ex.request));

/**
 * A status other than the one expected is the check's own failure, unless the server failed, or a
 * 200 was expected of a read at the largest page that the target refused as invalid: then the defect
 * is list.largest-page's, whichever check read the list (failures.ts).
 */
export function statusCause(ex: HttpExchange, expected: readonly number[] = []): Cause {
  if (ex.status >= 500) return "response.no-5xx";
  if (ex.status === 400 && expected.includes(200) && isLargestPageRead(ex.request))
    return "list.largest-page";
  return "rule";
}

export function expectStatus(ex: HttpExchange, expected: number | readonly number[], rule?: string): void {
  const allowed = typeof expected === "number" ? [expected] : expected;
  if (allowed.includes(ex.status)) return;
  fail(lead(rule, answered(ex)), {
    key: keyOf(`status ${ex.status}`, ex),
    cause: statusCause(ex, allowed),
    expected: `status ${allowed.join(" or ")}`,
    actual: answer(ex),
    exchange: ex,
  });
}

export const is2xx = (ex: HttpExchange): boolean => ex.status >= 200 && ex.status < 300;

export function expectSuccess(ex: HttpExchange, rule?: string): void {
  if (is2xx(ex)) return;
  fail(lead(rule, answered(ex)), {
    key: keyOf(`status ${ex.status}`, ex),
    cause: statusCause(ex, [200]),
    expected: "a 2xx status",
    actual: answer(ex),
    exchange: ex,
  });
}

export function expectNot5xx(ex: HttpExchange, rule?: string): void {
  if (ex.status < 500) return;
  fail(lead(rule, `${answered(ex)}: a server error`), {
    key: keyOf(`status ${ex.status}`, ex),
    cause: "response.no-5xx",
    expected: "an answer below 500",
    actual: answer(ex),
    exchange: ex,
  });
}

/** The media type of the response, lower-cased, without parameters; "" when there is none. */
export function mediaType(ex: HttpExchange): string {
  return (ex.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

/** The charset parameter of the response's Content-Type, lower-cased and unquoted, if any. */
export function charset(ex: HttpExchange): string | undefined {
  for (const param of (ex.headers["content-type"] ?? "").split(";").slice(1)) {
    const [name, value] = param.split("=");
    if (name?.trim().toLowerCase() === "charset") return value?.trim().replace(/^"|"$/g, "").toLowerCase();
  }
  return undefined;
}

/** §1 "All responses are JSON, UTF-8 encoded" (spec-gaps #32: the charset parameter is optional). */
export function expectJsonContentType(ex: HttpExchange, rule?: string): void {
  const type = ex.headers["content-type"] ?? "(none)";
  if (mediaType(ex) !== "application/json") {
    fail(lead(rule, `${answered(ex)} with Content-Type ${type}`), {
      key: keyOf(`media type ${mediaType(ex) || "(none)"}`, ex),
      cause: "response.json",
      expected: "Content-Type application/json (a charset parameter, if any, utf-8)",
      actual: `Content-Type ${type}`,
      exchange: ex,
    });
  }
  const cs = charset(ex);
  if (cs !== undefined && cs !== "utf-8" && cs !== "utf8") {
    fail(lead(rule, `${answered(ex)} in charset ${cs}`), {
      key: keyOf(`charset ${cs}`, ex),
      cause: "response.utf-8",
      expected: "UTF-8 (§1)",
      actual: `Content-Type ${type}`,
      exchange: ex,
    });
  }
  if (ex.json === undefined) {
    fail(lead(rule, `${answered(ex)} with a body that is not JSON`), {
      key: keyOf("body not JSON", ex),
      cause: "response.json",
      expected: "a JSON body",
      actual: answer(ex),
      exchange: ex,
    });
  }
}

/** §1: a success body is an object with one key, `data`. Returns `data`. */
export function expectSuccessEnvelope(ex: HttpExchange, rule?: string): unknown {
  expectJsonContentType(ex, rule);
  const body = ex.json;
  const keys = isRecord(body) ? Object.keys(body) : [];
  if (!isRecord(body) || keys.length !== 1 || keys[0] !== "data") {
    fail(lead(rule, `${answered(ex)} without the success envelope`), {
      key: keyOf(isRecord(body) ? `keys ${JSON.stringify(keys.toSorted())}` : "body not an object", ex),
      cause: "envelope.success-shape",
      expected: 'an object with one key, "data" (§1)',
      actual: isRecord(body) ? `an object with keys ${JSON.stringify(keys)}` : snippet(ex.text),
      exchange: ex,
    });
  }
  return body.data;
}

/** `{ "data": [...] }`: the items, whatever they are (shape checks judge them). */
export function expectDataArray(ex: HttpExchange, rule?: string): readonly unknown[] {
  const data = expectSuccessEnvelope(ex, rule);
  if (!Array.isArray(data)) {
    fail(lead(rule, `${answered(ex)} with a "data" that is not an array`), {
      key: keyOf("data not an array", ex),
      cause: "envelope.list-data",
      expected: '"data": an array (§1, a list)',
      actual: snippet(JSON.stringify(data) ?? "undefined"),
      exchange: ex,
    });
  }
  return data as readonly unknown[];
}

/** `{ "data": [...] }` whose items are all objects. */
export function expectItems(ex: HttpExchange, rule?: string): readonly JsonObject[] {
  const data = expectDataArray(ex, rule);
  const bad = data.findIndex((item) => !isRecord(item));
  if (bad !== -1) {
    fail(lead(rule, `${answered(ex)} with data[${bad}] not an object`), {
      key: keyOf("item not an object", ex),
      cause: "envelope.list-data",
      expected: "every item an object",
      actual: snippet(JSON.stringify(data[bad]) ?? "undefined"),
      exchange: ex,
    });
  }
  return data as readonly JsonObject[];
}

/** `{ "data": {...} }`: §1, a single element or the result of a POST. */
export function expectDataObject(ex: HttpExchange, rule?: string): JsonObject {
  const data = expectSuccessEnvelope(ex, rule);
  if (!isRecord(data)) {
    fail(lead(rule, `${answered(ex)} with a "data" that is not an object`), {
      key: keyOf("data not an object", ex),
      cause: "envelope.created-data",
      expected: '"data": an object (§1, the result of a POST)',
      actual: snippet(JSON.stringify(data) ?? "undefined"),
      exchange: ex,
    });
  }
  return data;
}

export interface ErrorEnvelope {
  code: string;
  message: string;
  details: JsonObject | undefined;
}

/** Why a body is not §7's error body: `problem` names the part at fault (for a key), `why` says it. */
export interface EnvelopeProblem {
  problem:
    | "not an object"
    | "no error object"
    | "code not a string"
    | "message not a string"
    | "details not an object";
  why: string;
}

export const isEnvelopeProblem = (read: ErrorEnvelope | EnvelopeProblem): read is EnvelopeProblem =>
  "problem" in read;

/** The §7 error body, without judging the status or the code; when it is not one, why not. */
export function readErrorEnvelope(json: unknown): ErrorEnvelope | EnvelopeProblem {
  if (!isRecord(json)) return { problem: "not an object", why: "the body is not a JSON object" };
  const error = json.error;
  if (!isRecord(error)) return { problem: "no error object", why: 'no "error" object' };
  if (typeof error.code !== "string")
    return { problem: "code not a string", why: "error.code is not a string" };
  if (typeof error.message !== "string")
    return { problem: "message not a string", why: "error.message is not a string" };
  const details = error.details;
  // Absent or null both read as "no details" (spec-gaps #4's reading of optional fields).
  if (details !== undefined && details !== null && !isRecord(details)) {
    return {
      problem: "details not an object",
      why: `error.details is present but not an object (spec-gaps #36): ${JSON.stringify(details)}`,
    };
  }
  return { code: error.code, message: error.message, details: isRecord(details) ? details : undefined };
}

/** The foundation rule an error answer breaks by its envelope alone, if it breaks one. */
export function envelopeCauseOf(
  ex: HttpExchange,
): "envelope.error-shape" | "envelope.details-shape" | undefined {
  if (ex.status < 400 || ex.status >= 500) return undefined;
  const read = readErrorEnvelope(ex.json);
  if (!isEnvelopeProblem(read)) return undefined;
  return read.problem === "details not an object" ? "envelope.details-shape" : "envelope.error-shape";
}

/**
 * §7: `{ "error": { "code": string, "message": string, "details"?: object } }`, JSON; with `code`, that
 * code exactly.
 */
export function expectErrorEnvelope(ex: HttpExchange, code?: string, rule?: string): ErrorEnvelope {
  expectJsonContentType(ex, rule);
  const read = readErrorEnvelope(ex.json);
  if (isEnvelopeProblem(read)) {
    fail(lead(rule, `${answered(ex)} without the error envelope: ${read.why}`), {
      key: keyOf(read.problem, ex),
      cause: envelopeCauseOf(ex) ?? "envelope.error-shape",
      expected: '{ "error": { "code": string, "message": string, "details"?: object } } (§7)',
      actual: snippet(ex.text),
      exchange: ex,
    });
  }
  if (code !== undefined && read.code !== code) {
    fail(lead(rule, `${answered(ex)} with error code ${read.code}`), {
      key: keyOf(`code ${read.code} for ${ex.status}`, ex),
      cause: "envelope.error-code",
      expected: `error.code "${code}"`,
      actual: `error.code "${read.code}"`,
      exchange: ex,
    });
  }
  return read;
}

/** Status and code together, as §7's table pairs them. */
export function expectError(ex: HttpExchange, status: number, code: string, rule?: string): ErrorEnvelope {
  expectStatus(ex, status, rule);
  return expectErrorEnvelope(ex, code, rule);
}

/** §7: the spec's invalidRequest answer (400 invalid_request), the one to a malformed or invalid payload. */
export const expectRejected = (spec: KitSpec, ex: HttpExchange, rule?: string): ErrorEnvelope =>
  expectError(ex, spec.ERRORS.invalidRequest.status, spec.ERRORS.invalidRequest.code, rule);

/** The value of a response header, lower-cased name, or undefined. */
export const header = (ex: HttpExchange, name: string): string | undefined => ex.headers[name.toLowerCase()];

/** A comma-separated header as a set of lower-cased tokens. */
export const headerList = (ex: HttpExchange, name: string): Set<string> =>
  new Set(
    (header(ex, name) ?? "")
      .split(",")
      .map((s) => s.trim().toLowerCase())
      .filter((s) => s !== ""),
  );

/** A list answer: 200, `{ "data": [objects] }`. */
export function expectList(ex: HttpExchange, rule?: string): readonly JsonObject[] {
  expectStatus(ex, 200, rule);
  return expectItems(ex, rule);
}

/** `404 not_found`, `200`: how an observation names an answer. */
export function statusAndCode(ex: HttpExchange): string {
  const read = readErrorEnvelope(ex.json);
  return isEnvelopeProblem(read) ? String(ex.status) : `${ex.status} ${read.code}`;
}

/** `accepted (201)`, `refused (400 invalid_request)`: an observation of a POST. */
export const outcome = (ex: HttpExchange): string =>
  is2xx(ex) ? `accepted (${ex.status})` : `refused (${statusAndCode(ex)})`;

/**
 * §4 CORS: the answer to a request sent with `Origin: origin` allows it, with `*` or the origin itself
 * (spec-gaps #22).
 */
export function expectAllowsOrigin(ex: HttpExchange, origin: string, rule: string): void {
  const allowed = header(ex, "access-control-allow-origin");
  if (allowed === "*" || allowed === origin) return;
  fail(`${rule}: ${requestLine(ex.request)} answered ${ex.status} without allowing the origin`, {
    // Never the header's value: a server echoing the origin wrongly echoes the run's marker.
    key: keyOf(allowed === undefined ? "no allow-origin" : "another allow-origin", ex),
    cause: "cors.allow-origin",
    expected: `Access-Control-Allow-Origin: * (or ${origin})`,
    actual:
      allowed === undefined
        ? "no Access-Control-Allow-Origin header"
        : `Access-Control-Allow-Origin: ${allowed}`,
    exchange: ex,
  });
}
