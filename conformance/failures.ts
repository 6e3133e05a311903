import type { ClauseId } from "./spec/clauses.js";
import type { HttpExchange, HttpRequest } from "./exchange.js";
import { kitSpec, type KitSpec } from "./spec/kit-spec.js";

/**
 * What a failure and an observation say about themselves beyond their text: a stable key (the same
 * defect gives the same key whatever the seed, the run or the target) and, for a failure, which rule
 * broke. Reports carry both; `compare` matches observations by key, and a baseline can match failures
 * by check id and key.
 */

/**
 * Rules every answer of their kind must keep, whichever check reads it. The shared assertions
 * (support/assert.ts) judge them on every answer they are given, and a failure they raise names the
 * rule as its cause: the check failed because of that foundation, not of its own rule. `checks` are
 * the checks that judge the rule by themselves, to which such a failure can be attributed.
 */
export const FOUNDATION_RULES = [
  "response.answered",
  "response.no-5xx",
  "response.json",
  "response.utf-8",
  "envelope.success-shape",
  "envelope.list-data",
  "envelope.created-data",
  "envelope.error-shape",
  "envelope.details-shape",
  "envelope.error-code",
  "cors.allow-origin",
  "list.largest-page",
] as const;

export type FoundationRule = (typeof FOUNDATION_RULES)[number];

export interface Foundation {
  clause: readonly ClauseId[];
  says: string;
  /** The checks that judge this rule on their own. */
  checks: readonly string[];
}

export const FOUNDATIONS: Readonly<Record<FoundationRule, Foundation>> = {
  "response.answered": {
    clause: ["§1.5"],
    says: "Every request gets an answer: no timeout, no connection closed without one.",
    checks: [],
  },
  "response.no-5xx": {
    clause: ["§4.3", "§7.9"],
    says: "No answer is a server error.",
    checks: ["run.no-5xx"],
  },
  "response.json": {
    clause: ["§1.5"],
    says: "An answer with a body is JSON, served as application/json.",
    checks: ["run.json-responses"],
  },
  "response.utf-8": {
    clause: ["§1.5"],
    says: "A charset, when the Content-Type names one, is UTF-8.",
    checks: ["envelope.utf-8"],
  },
  "envelope.success-shape": {
    clause: ["§1.6"],
    says: 'A success is an object with the one key "data".',
    checks: ["run.success-envelope"],
  },
  "envelope.list-data": {
    clause: ["§1.6"],
    says: "A list's data is an array of objects.",
    checks: ["envelope.list-data-array"],
  },
  "envelope.created-data": {
    clause: ["§1.6"],
    says: "A creation's data is an object.",
    checks: ["envelope.create-data-object"],
  },
  "envelope.error-shape": {
    clause: ["§7.1", "§7.2"],
    says: "An error is { error: { code, message } }, both strings.",
    checks: ["run.error-envelope"],
  },
  "envelope.details-shape": {
    clause: ["§7.3"],
    says: "An error's details, when present, is an object.",
    checks: ["run.error-envelope"],
  },
  "envelope.error-code": {
    clause: ["§7.4", "§7.5", "§7.6", "§7.7", "§7.8", "§7.9"],
    says: "An error's code is the one §7 pairs with its status.",
    checks: ["run.error-envelope"],
  },
  "cors.allow-origin": {
    clause: ["§4.4"],
    says: "An answer to a request from another origin allows that origin.",
    checks: ["cors.success", "cors.errors", "run.cors-errors"],
  },
  "list.largest-page": {
    clause: ["§4 Pagination.1", "§8.2"],
    says: "A list read at its largest page, limit=200 (with or without one of the filter values §4 lists), is a valid request: it answers 200. The kit reads what a list holds that way.",
    checks: ["lists.page-max", "coverage.limit", "lists.limit-and-filters"],
  },
};

/**
 * Whether a request is a read of a list at its largest page (§8: limit=200), unfiltered or with one of
 * the filter values §4 lists for it, and nothing else: a request the spec says is valid, and the one
 * the kit reads a whole list with. A 400 to it is the list.largest-page defect, whichever check sent it.
 */
export function isLargestPageRead(
  request: Pick<HttpRequest, "method" | "path" | "query">,
  spec: KitSpec = kitSpec(),
): boolean {
  const list = Object.values(spec.LISTS).find((l) => l.path === request.path);
  if (request.method.toUpperCase() !== "GET" || list === undefined) return false;
  const entries = Object.entries(request.query ?? {});
  return (
    entries.some(([k, v]) => k === "limit" && v === String(spec.MAX.pageMax)) &&
    entries.every(
      ([k, v]) =>
        k === "limit" ||
        (k === list.filter?.param && typeof v === "string" && list.filter.values.includes(v)),
    )
  );
}

/**
 * Which rule a failure broke: a foundation rule (above), the check's own rule ("rule"), or none: the
 * check stopped on an error before it could judge ("error").
 */
export type Cause = FoundationRule | "rule" | "error";

export const CAUSES = [...FOUNDATION_RULES, "rule", "error"] as const satisfies readonly Cause[];

/** Something a check saw, with a key that names what the target did and not the values of one run. */
export interface Observation {
  key: string;
  text: string;
}

/** What a failure says beside its message (CheckFailure's fields, by the same names). */
export interface FailureInit {
  key: string;
  cause?: Cause;
  expected: string;
  actual: string;
  exchange?: HttpExchange;
  replay?: string;
  evidence?: readonly HttpExchange[];
}

/** Thrown by a check (through the assertion helpers) to fail it with a readable account. */
export class CheckFailure extends Error {
  /**
   * The defect, stably: the rule broken and the class of input, never a marker, an id, a random value
   * or a time. Two runs failing the same way give the same key, whatever their seed.
   */
  readonly key: string;
  /** Which rule broke: a foundation rule the shared assertions judge, or the check's own. */
  override readonly cause: Cause;
  readonly expected: string;
  readonly actual: string;
  readonly exchange: HttpExchange | undefined;
  /** For property checks: the seed and path that replay the shrunk counterexample. */
  readonly replay: string | undefined;
  /**
   * The exchanges that reproduce the failure, in order (the POST that created a record, then the GET
   * that read it back): the report replays them all. Default: `exchange` alone.
   */
  readonly evidence: readonly HttpExchange[] | undefined;

  constructor(message: string, init: FailureInit) {
    super(message);
    this.name = "CheckFailure";
    this.key = init.key;
    this.cause = init.cause ?? "rule";
    this.expected = init.expected;
    this.actual = init.actual;
    this.exchange = init.exchange;
    this.replay = init.replay;
    this.evidence = init.evidence;
  }
}

/** A key from its parts, in order: `status 200 | POST /api/v1/contacts`. Empty parts are left out. */
export const failureKey = (...parts: ReadonlyArray<string | number | undefined>): string =>
  parts.filter((p) => p !== undefined && p !== "").join(" | ");

/** The words of the spec's paths: a path segment that is none of them is the run's own (a marker, an id). */
const pathWords = new WeakMap<KitSpec, ReadonlySet<string>>();
function wordsOf(spec: KitSpec): ReadonlySet<string> {
  let words = pathWords.get(spec);
  if (words === undefined) {
    words = new Set(
      Object.values(spec.LISTS).flatMap((list) =>
        list.path
          .toLowerCase()
          .split("/")
          .filter((s) => s !== ""),
      ),
    );
    pathWords.set(spec, words);
  }
  return words;
}

/**
 * A request as a key names it: its method and path, every segment that is not a word of the spec's
 * paths written `*`, the query left out. `GET /api/v1/contacts/*` for a contact's id, `GET
 * /api/v1/*` for an unknown path, `GET /API/V1/contacts` kept as sent.
 */
export function routeOf(request: Pick<HttpRequest, "method" | "path">, spec: KitSpec = kitSpec()): string {
  const words = wordsOf(spec);
  const path = request.path
    .split("/")
    .map((s) => (s === "" || words.has(s.toLowerCase()) ? s : "*"))
    .join("/");
  return `${request.method.toUpperCase()} ${path}`;
}

/** A request that got no HTTP answer (timeout, refused, reset): a check fails with it, the run goes on. */
export class RequestError extends CheckFailure {
  readonly curl: string;
  readonly kind: "timeout" | "network";

  /** `route`: the request as a key names it (routeOf), never the URL, which may carry the run's marker. */
  constructor(
    kind: "timeout" | "network",
    reason: string,
    method: string,
    url: string,
    curl: string,
    route: string = routeOf({ method, path: new URL(url).pathname }),
  ) {
    super(`${method} ${url}: ${reason}`, {
      key: failureKey(`no answer (${kind})`, route),
      cause: "response.answered",
      expected: "an HTTP answer",
      actual: reason,
    });
    this.name = "RequestError";
    this.kind = kind;
    this.curl = curl;
  }
}
