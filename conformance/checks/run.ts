import type { Check, CheckContext, HttpExchange } from "../types.js";
import { routeOf } from "../failures.js";
import {
  answer,
  fail,
  header,
  isEnvelopeProblem,
  isRecord,
  mediaType,
  readErrorEnvelope,
  requestLine,
} from "../support/assert.js";
import {
  creations,
  dateOf,
  listReads,
  orgOf,
  sentStrings,
  stringsOf,
  type Creation,
} from "../support/history.js";
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
  const answers = new Set(offenders.map((o) => o.ex)).size;
  fail(`${message}: ${answers} of the run's ${total} answers`, {
    key: [...kinds].sort().join("; "),
    expected,
    actual: offenders.length > 5 ? `${shown}; …` : shown,
    exchange: first.ex,
  });
}

const isAnnouncedPost = (ctx: CheckContext, ex: HttpExchange): boolean =>
  ex.request.method.toUpperCase() === "POST" && ctx.spec.ANNOUNCED_POSTS.includes(ex.request.path);

const is2xx = (ex: HttpExchange): boolean => ex.status >= 200 && ex.status < 300;

/** The run's error answers that carry a body to judge (a HEAD's has none). */
const errorAnswers = (ctx: CheckContext): HttpExchange[] =>
  ctx.http.history().filter((ex) => ex.request.method !== "HEAD" && ex.status >= 400);

/**
 * How far a record's timestamps may stray from the target's Date headers: their one-second
 * resolution, and a clock that stamps records a little apart from the one that stamps answers (a
 * proxy, a database). Hours off, a local time written with Z, is what it catches.
 */
export const DATE_TOLERANCE_MS = 5000;

/** Where a record's timestamps must lie: from the Date before its creation to the one after it. */
function creationWindow(
  history: readonly HttpExchange[],
  c: Creation,
): { from: number; to: number } | undefined {
  const after = dateOf(c.ex);
  if (after === undefined) return undefined;
  let before = after;
  for (let i = c.index - 1; i >= 0; i -= 1) {
    const previous = history[i];
    const at = previous === undefined ? undefined : dateOf(previous);
    if (at !== undefined) {
      before = at;
      break;
    }
  }
  // A Date names its second: the instant it stands for may be up to a second later.
  return { from: before - DATE_TOLERANCE_MS, to: after + 999 + DATE_TOLERANCE_MS };
}

const TIMESTAMP_FIELDS = ["createdAt", "updatedAt"] as const;

/** How far outside the window an instant is, in words. */
function distance(ms: number, window: { from: number; to: number }): string {
  const off = ms < window.from ? window.from - ms : ms - window.to;
  const minutes = Math.round(off / 60_000);
  const said = minutes >= 1 ? `${minutes} min` : `${Math.round(off / 1000)} s`;
  return `${said} ${ms < window.from ? "before" : "after"} the answers' Date headers allow`;
}

/** A value another organization created, as it may show in an answer: its owner and what it is. */
interface Foreign {
  org: string;
  what: string;
}

/** Whether `value` stands in `text` as a word of its own (not inside a longer name). */
function containsWhole(text: string, value: string): boolean {
  for (let at = text.indexOf(value); at !== -1; at = text.indexOf(value, at + 1)) {
    const before = text[at - 1] ?? " ";
    const after = text[at + value.length] ?? " ";
    if (!/[A-Za-z0-9_-]/.test(before) && !/[A-Za-z0-9_-]/.test(after)) return true;
  }
  return false;
}

/**
 * The answers `which` selects that do not allow the origin their request came from (the request's own
 * `Origin`, else the run's). A pre-flight is cors.preflight's to judge.
 */
function corsOffenders(ctx: CheckContext, which: (ex: HttpExchange) => boolean): Offender[] {
  return ctx.http
    .history()
    .filter((ex) => ex.request.method !== "OPTIONS" && which(ex))
    .flatMap((ex) => {
      const sent =
        Object.entries(ex.request.headers ?? {}).find(([n]) => n.toLowerCase() === "origin")?.[1] ??
        ctx.options.origin;
      const allowed = header(ex, "access-control-allow-origin");
      if (sent === undefined || allowed === "*" || allowed === sent) return [];
      return [
        {
          ex,
          why: `${ex.status} with ${allowed === undefined ? "no Access-Control-Allow-Origin" : `Access-Control-Allow-Origin: ${allowed}`}`,
          kind: `${ex.request.method.toUpperCase()} ${ex.status} ${allowed === undefined ? "without" : "with another"} allow-origin`,
        },
      ];
    });
}

export const runChecks: readonly Check[] = [
  {
    id: "run.cors-success",
    section: SECTION.endpoints,
    clause: "§4.4",
    level: "MUST",
    rule: "Every successful answer of the run, whatever the method, allows the origin its request came from (every request carries one)",
    gap: 22,
    async run(ctx) {
      failOn(
        ctx,
        corsOffenders(ctx, is2xx),
        "Successes a page of another origin could not read (§4 CORS)",
        "Access-Control-Allow-Origin: * (or the request's origin) on every 2xx",
      );
    },
  },
  {
    id: "run.cors-errors",
    section: SECTION.endpoints,
    clause: "§4.4",
    level: "MUST",
    rule: "Every error answer of the run (400, 401, 403, 404, 405, 429, 5xx…) allows the origin its request came from: §4's CORS sentence makes no exception for errors, and a browser cannot read an error without it",
    gap: 22,
    async run(ctx) {
      failOn(
        ctx,
        corsOffenders(ctx, (ex) => ex.status >= 400),
        "Errors a page of another origin could not read, so could not tell why (§4 CORS)",
        "Access-Control-Allow-Origin: * (or the request's origin) on every 4xx and 5xx",
      );
    },
  },
  {
    id: "run.created-timestamps",
    section: SECTION.resources,
    clause: ["§2.2", "§2 Contact.9", "§2 Contact.10", "§2 Product.8", "§2 Product.9"],
    level: "MUST",
    rule: `Every createdAt and updatedAt of a record the run created (its creation answer and every list read of it) lies between the target's own Date headers before and after its creation, within ${DATE_TOLERANCE_MS / 1000} s`,
    async run(ctx) {
      const history = ctx.http.history();
      const made = creations(ctx.spec, history);
      if (made.length === 0) ctx.skip("the run created no record");
      // Each record's reads, by organization, list and what names it (its id, a product's sku).
      const seen = new Map<string, Array<{ ex: HttpExchange; item: Record<string, unknown> }>>();
      for (const read of listReads(ctx.spec, history)) {
        for (const item of read.items) {
          for (const key of [`id:${String(item.id)}`, `sku:${String(item.sku)}`]) {
            const k = `${read.org ?? ""}|${read.list}|${key}`;
            seen.set(k, [...(seen.get(k) ?? []), { ex: read.ex, item }]);
          }
        }
      }
      let dated = 0;
      const offenders: Offender[] = [];
      for (const c of made) {
        const window = creationWindow(history, c);
        if (window === undefined) continue;
        dated += 1;
        const key = c.id !== undefined ? `id:${c.id}` : `sku:${String(c.sent.sku)}`;
        const answered =
          isRecord(c.ex.json) && isRecord(c.ex.json.data) ? [{ ex: c.ex, item: c.ex.json.data }] : [];
        for (const { ex, item } of [...answered, ...(seen.get(`${c.org}|${c.list}|${key}`) ?? [])]) {
          for (const field of TIMESTAMP_FIELDS) {
            const value = item[field];
            const ms = typeof value === "string" ? Date.parse(value) : Number.NaN;
            if (Number.isNaN(ms) || (ms >= window.from && ms <= window.to)) continue;
            offenders.push({
              ex,
              why: `${c.list} ${field} ${String(value)} is ${distance(ms, window)}`,
              kind: `${c.list} ${field} outside the Date headers (${ex === c.ex ? "creation answer" : "list"})`,
            });
          }
        }
      }
      if (dated === 0) ctx.skip("the target's answers carry no Date header to read its clock from");
      failOn(
        ctx,
        offenders,
        "Timestamps of records just created that are not the instant of their creation (§2: UTC)",
        `between the Date of the answer before the creation and that of the creation's answer, ± ${DATE_TOLERANCE_MS / 1000} s`,
      );
    },
  },
  {
    id: "run.no-foreign-data",
    section: SECTION.service,
    clause: "§1.2",
    level: "MUST",
    rule: "No answer of the run, error messages and details included, carries a name, sku or id that another organization created in the run; an answer without a token carries none at all",
    async run(ctx) {
      const history = ctx.http.history();
      const NONE = "(no organization)";
      // What each organization created: its marked names and skus, anywhere; its ids, in error texts.
      const created = new Map<string, Foreign | null>();
      const ids = new Map<string, Foreign>();
      for (const c of creations(ctx.spec, history)) {
        for (const field of ["name", "sku"]) {
          const value = c.sent[field];
          if (typeof value !== "string" || !value.includes(ctx.marker)) continue;
          const known = created.get(value);
          // Created by both organizations (a sku tried in each): neither owns it.
          created.set(
            value,
            known === undefined || known?.org === c.org ? { org: c.org, what: `${c.list} ${field}` } : null,
          );
        }
        // Short ids (sequence numbers) may well be another organization's own: only long ones tell.
        if (c.id !== undefined && c.id.length >= 8) ids.set(c.id, { org: c.org, what: `${c.list} id` });
      }
      const sent = new Map<string, Set<string>>();
      for (const ex of history) {
        const org = orgOf(ex.request) ?? NONE;
        const mine = sent.get(org) ?? new Set<string>();
        for (const s of sentStrings(ex.request)) mine.add(s);
        sent.set(org, mine);
      }
      const offenders: Offender[] = [];
      for (const ex of history) {
        const org = orgOf(ex.request) ?? NONE;
        const echoes = sent.get(org) ?? new Set<string>();
        const foreign = (value: string, owner: Foreign | null | undefined): owner is Foreign =>
          owner !== undefined && owner !== null && owner.org !== org && !echoes.has(value);
        const where =
          org === NONE ? "an answer without a token" : ex.status >= 400 ? "an error" : "a success";
        const strings = stringsOf(ex.json);
        const found = strings.flatMap((s) => {
          const owner = created.get(s);
          return foreign(s, owner) ? [{ value: s, owner }] : [];
        });
        if (ex.status >= 400 && found.length === 0) {
          // Error texts name things inside sentences: "sku cfk-… is already used".
          for (const [value, owner] of [...created, ...ids]) {
            if (foreign(value, owner) && strings.some((s) => containsWhole(s, value)))
              found.push({ value, owner });
          }
        }
        const first = found[0];
        if (first !== undefined) {
          offenders.push({
            ex,
            why: `${first.owner.org}'s ${first.owner.what} ${JSON.stringify(first.value)} in ${where} to ${org}`,
            kind: `another organization's ${first.owner.what} in ${where}`,
          });
        }
      }
      failOn(
        ctx,
        offenders,
        "Answers carrying another organization's data (§1: a token reaches only its organization's)",
        "no name, sku or id created by another organization in any answer",
      );
    },
  },
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
      const offenders = errorAnswers(ctx).flatMap((ex) => {
        const read = readErrorEnvelope(ex.json);
        if (isEnvelopeProblem(read)) return [{ ex, why: `${ex.status}: ${read.why}`, kind: read.problem }];
        const code = ctx.spec.ERROR_CODE_OF_STATUS[ex.status];
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
        .filter((ex) => ex.status >= 500 && !(ex.status === 501 && isAnnouncedPost(ctx, ex)))
        // A server error is a defect of its route: two routes failing are two defects.
        .map((ex) => ({ ex, why: answer(ex), kind: `${ex.status} on ${routeOf(ex.request, ctx.spec)}` }));
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
      const offenders = errorAnswers(ctx).flatMap((ex) => {
        const read = readErrorEnvelope(ex.json);
        const code = isEnvelopeProblem(read) ? undefined : read.code;
        return ctx.spec.ERROR_CODE_OF_STATUS[ex.status] === undefined ||
          code === undefined ||
          !ctx.spec.ERROR_CODES.includes(code)
          ? [
              {
                ex,
                why: `${ex.status} ${code ?? "(no code)"}`,
                kind: `${ex.status} ${code ?? "(no code)"}`,
              },
            ]
          : [];
      });
      failOn(ctx, offenders, "Errors outside §7's table", ctx.spec.ERROR_CODES.join(", "));
    },
  },
];
