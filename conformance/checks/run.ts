import type { Check, CheckContext, HttpExchange } from "../types.js";
import { routeOf } from "../failures.js";
import {
  answer,
  fail,
  isEnvelopeProblem,
  isRecord,
  mediaType,
  readErrorEnvelope,
  requestLine,
} from "../support/assert.js";
import { ANNOUNCED_POSTS, ERROR_CODE_OF_STATUS, ERROR_CODES } from "../spec/constants.js";
import { SECTION, clauseRange } from "../spec/clauses.js";

/**
 * Judges of the whole run, from `http.history()`: every answer any check received, the deliberately
 * odd requests included. The catalogue runs them last (checks/index.ts), after the rate-limit burst,
 * so that its answers are judged too.
 * None sends a request.
 */

/** Answers that carry no body to judge: HEAD, pre-flights, 204/304, redirects (judged by PROBEs). */
const bodiless = (ex: HttpExchange): boolean =>
  ex.request.method === "HEAD" ||
  ex.request.method === "OPTIONS" ||
  ex.status === 204 ||
  ex.status === 304 ||
  (ex.status >= 300 && ex.status < 400);

/**
 * An answer that broke the rule: `why` says how, with its values; `kind` says it without them. The
 * failure's key is the offenders' kinds, not their routes: which routes a run reaches depends on the
 * checks it ran (--grep, --read-only), the defect does not.
 */
interface Offender {
  ex: HttpExchange;
  why: string;
  kind: string;
}

/** Fails with how many answers broke the rule, the first few named, the first one replayable. */
function failOn(ctx: CheckContext, offenders: readonly Offender[], message: string, expected: string): void {
  const first = offenders[0];
  if (first === undefined) return;
  const total = ctx.http.history().length;
  const shown = offenders
    .slice(0, 5)
    .map((o) => `${requestLine(o.ex.request)} → ${o.why}`)
    .join("; ");
  const kinds = new Set(offenders.map((o) => o.kind));
  fail(`${message}: ${offenders.length} of the run's ${total} answers`, {
    key: [...kinds].sort().join("; "),
    expected,
    actual: offenders.length > 5 ? `${shown}; …` : shown,
    exchange: first.ex,
  });
}

const isAnnouncedPost = (ex: HttpExchange): boolean =>
  ex.request.method.toUpperCase() === "POST" && ANNOUNCED_POSTS.includes(ex.request.path);

export const runChecks: readonly Check[] = [
  {
    id: "run.json-responses",
    section: SECTION.service,
    clause: "§1.5",
    level: "MUST",
    rule: "Every answer with a body, throughout the run, is JSON served as application/json (UTF-8)",
    gap: 32,
    async run(ctx) {
      const offenders = ctx.http
        .history()
        .filter((ex) => !bodiless(ex))
        .flatMap((ex) => {
          const type = mediaType(ex);
          if (type !== "application/json") {
            const served = type || "(no Content-Type)";
            return [{ ex, why: `${ex.status} served as ${served}`, kind: served }];
          }
          if (ex.json === undefined)
            return [{ ex, why: `${ex.status} with a body that is not JSON`, kind: "body not JSON" }];
          return [];
        });
      failOn(
        ctx,
        offenders,
        "Answers that are not JSON (§1)",
        "application/json and a JSON body on every answer",
      );
    },
  },
  {
    id: "run.success-envelope",
    section: SECTION.service,
    clause: "§1.6",
    level: "MUST",
    rule: 'Every 2xx answer of the run is an object with one key, "data"',
    async run(ctx) {
      const offenders = ctx.http
        .history()
        .filter((ex) => !bodiless(ex) && ex.status >= 200 && ex.status < 300)
        .flatMap((ex) => {
          const body = ex.json;
          const keys = isRecord(body) ? Object.keys(body) : undefined;
          return keys !== undefined && keys.length === 1 && keys[0] === "data"
            ? []
            : [
                {
                  ex,
                  why: keys === undefined ? answer(ex) : `${ex.status} with keys ${JSON.stringify(keys)}`,
                  kind: keys === undefined ? "body not an object" : `keys ${JSON.stringify(keys.toSorted())}`,
                },
              ];
        });
      failOn(ctx, offenders, "Successes without the data envelope (§1)", '{ "data": ... }');
    },
  },
  {
    id: "run.error-envelope",
    section: SECTION.errors,
    clause: ["§1.7", ...clauseRange("§7", 1, 9)],
    level: "MUST",
    rule: "Every 4xx/5xx answer of the run is §7's error body, with the code §7 pairs with its status; details, when present, an object",
    gap: 36,
    async run(ctx) {
      const offenders = ctx.http
        .history()
        .filter((ex) => ex.request.method !== "HEAD" && ex.status >= 400)
        .flatMap((ex) => {
          const read = readErrorEnvelope(ex.json);
          if (isEnvelopeProblem(read)) return [{ ex, why: `${ex.status}: ${read.why}`, kind: read.problem }];
          const code = ERROR_CODE_OF_STATUS[ex.status];
          if (code !== undefined && read.code !== code)
            return [
              {
                ex,
                why: `${ex.status} with code ${read.code}, not ${code}`,
                kind: `code ${read.code} for ${ex.status}`,
              },
            ];
          return [];
        });
      failOn(
        ctx,
        offenders,
        "Errors without §7's envelope or code",
        '{ "error": { "code", "message", "details"?: object } }, code as §7 pairs it with the status',
      );
    },
  },
  {
    id: "run.no-5xx",
    section: SECTION.errors,
    clause: ["§4.3", "§7.9"],
    level: "MUST",
    rule: "No answer of the run is a 5xx, except 501 on an announced endpoint (POST /api/v1/invoices, /api/v1/expenses)",
    gap: 33,
    async run(ctx) {
      const offenders = ctx.http
        .history()
        .filter((ex) => ex.status >= 500 && !(ex.status === 501 && isAnnouncedPost(ex)))
        // A server error is a defect of its route: two routes failing are two defects.
        .map((ex) => ({ ex, why: answer(ex), kind: `${ex.status} on ${routeOf(ex.request)}` }));
      failOn(ctx, offenders, "Server errors during the run", "no 5xx");
    },
  },
  {
    id: "run.reference-closed-codes",
    section: SECTION.errors,
    clause: clauseRange("§7", 4, 9),
    level: "REFERENCE",
    rule: "Every error of the run has one of §7's six codes and statuses (the code set is closed)",
    gap: 23,
    async run(ctx) {
      const offenders = ctx.http
        .history()
        .filter((ex) => ex.request.method !== "HEAD" && ex.status >= 400)
        .flatMap((ex) => {
          const read = readErrorEnvelope(ex.json);
          const code = isEnvelopeProblem(read) ? undefined : read.code;
          return ERROR_CODE_OF_STATUS[ex.status] === undefined ||
            code === undefined ||
            !ERROR_CODES.includes(code)
            ? [
                {
                  ex,
                  why: `${ex.status} ${code ?? "(no code)"}`,
                  kind: `${ex.status} ${code ?? "(no code)"}`,
                },
              ]
            : [];
        });
      failOn(ctx, offenders, "Errors outside §7's table", ERROR_CODES.join(", "));
    },
  },
];
