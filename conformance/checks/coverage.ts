import type { Check, CheckContext, DerivedSecret, HttpExchange } from "../types.js";
import {
  answer,
  isEnvelopeProblem,
  mediaType,
  readErrorEnvelope,
  statusAndCode,
  statusCause,
  type JsonObject,
} from "../support/assert.js";
import { limitBound } from "../support/arbitraries.js";
import {
  coverageChecks,
  forEachList,
  ids,
  isRefusal,
  outcome,
  plainPage,
  problem,
  show,
  withCause,
  type CoverageInput,
  type FormLevel,
  type FormOutcome,
} from "../support/coverage.js";
import { beforeSupport, filteredPage, firstPage, itemsOf, listRequest, reader } from "../support/data.js";
import { type ListName } from "../spec/kit-spec.js";
import { SECTION } from "../spec/clauses.js";

/**
 * The coverage phase (support/coverage.ts), its queries and headers: limit, before and the filters of
 * §4's lists, Authorization (§5) and Accept. Each input's legal forms and their illegal neighbours, each
 * with its expectation; DECISIONS.md says, form by form, why a form is a MUST or open. The bodies'
 * forms are in coverage-bodies.ts.
 */

/** limit: every legal value gives exactly as many items as it asks (or as the list holds); spec-gaps #10 for the rest. */
const limitInput: CoverageInput = {
  id: "coverage.limit",
  section: SECTION.limits,
  clause: ["§8.2", "§4 Pagination.1", "§4 Pagination.4"],
  gap: 10,
  rule: "Every limit from 1 to 200 gives as many items as it asks, or all the list holds; a limit in another notation gets a refusal or a page no longer than it allows (spec-gaps #10)",
  openRule:
    "What limit in other notations gets: a leading zero, a sign, spaces, a fraction, an exponent, full-width digits, past 64 bits",
  async run(ctx: CheckContext): Promise<FormOutcome[]> {
    return forEachList(ctx, async (list, token) => {
      const out: FormOutcome[] = [];
      const plain = await plainPage(ctx, list, token);
      // Each side of the default page and of the largest one (the spec's, e.g. 49, 51, 199, 200).
      const { pageDefault, pageMax } = ctx.spec.MAX;
      const legal = [
        ...new Set(
          (list === "contacts" || list === "invoices"
            ? [1, 2, pageDefault - 1, pageDefault + 1, pageMax - 1, pageMax]
            : [1, pageMax]
          )
            .filter((n) => n >= 1 && n <= pageMax)
            .map(String),
        ),
      ];
      const open =
        list === "contacts"
          ? ["050", "+5", " 5", "5 ", "5abc", "1.0", "2e1", "\uFF19", "99999999999999999999", "-0", "0.5"]
          : [];
      const sent: Array<[string, HttpExchange]> = [];
      for (const value of [...legal, ...open])
        sent.push([value, await ctx.http.send(listRequest(ctx, list, token, { limit: value }))]);
      // What the list holds: its largest page says it; where that page could not be read, the most
      // items any legal limit gave is all the kit knows, and the message says so.
      const seen = sent.flatMap(([v, ex]) => (legal.includes(v) ? [itemsOf(ex)?.length ?? 0] : []));
      const held = plain.read ? plain.items.length : Math.max(0, ...seen);
      const holds = plain.read
        ? `the list holds ${held >= ctx.spec.MAX.pageMax ? "at least " : ""}${held}`
        : `the list holds at least ${held}, the most any limit gave: its page at limit=${ctx.spec.MAX.pageMax} could not be read`;
      for (const [value, ex] of sent) {
        const level: FormLevel = legal.includes(value) ? "MUST" : "PROBE";
        const what = `${list}?limit=${JSON.stringify(value)}`;
        const items = itemsOf(ex);
        if (level === "MUST") {
          const want = Math.min(Number(value), held >= ctx.spec.MAX.pageMax ? Number(value) : held);
          out.push(
            items?.length === want
              ? outcome(what, level, `${want} items`)
              : outcome(
                  what,
                  level,
                  statusAndCode(ex),
                  withCause(
                    statusCause(ex, [200]),
                    problem(
                      items === undefined ? `status ${ex.status}` : "not as many items as asked",
                      `200 with ${want} items (${holds})`,
                      items === undefined ? answer(ex) : `${items.length} items`,
                      ex,
                    ),
                  ),
                ),
          );
          continue;
        }
        const bound = limitBound(ctx.spec, value);
        if (isRefusal(ctx.spec, ex)) out.push(outcome(what, level, "refused (400)"));
        // Not shown (§4 Pagination): any refusal will do; its envelope is run.error-envelope's.
        else if (ex.status > 400 && ex.status < 500) out.push(outcome(what, level, `refused (${ex.status})`));
        else if (items !== undefined && items.length <= bound) {
          // Named by what it was read as, not by a count that depends on the target's data.
          const lead = /^\s*\+?0*(\d{1,4})(?!\d)/.exec(value)?.[1];
          const as =
            lead !== undefined && items.length === Math.min(held, Math.max(1, Number(lead)))
              ? `read as ${Math.max(1, Number(lead))}`
              : items.length === Math.min(held, ctx.spec.MAX.pageDefault)
                ? "read as no limit (the default)"
                : items.length === Math.min(held, ctx.spec.MAX.pageMax)
                  ? "read as the maximum"
                  : "another page size";
          out.push(outcome(what, level, as));
        } else
          out.push(
            outcome(
              what,
              level,
              statusAndCode(ex),
              problem(
                items === undefined ? `status ${ex.status}` : "more items than the limit allows",
                `a refusal (4xx), or at most ${bound} items`,
                items === undefined ? answer(ex) : `${items.length} items`,
                ex,
              ),
            ),
          );
      }
      return out;
    });
  },
};

/** An instant written in a form of ISO 8601, and the instant it names. */
interface InstantForm {
  what: string;
  level: FormLevel;
  text: string;
  /** The instant the text names, in ms; undefined when the form names none the kit can tell. */
  at: number | undefined;
  /** What a target may do with it: filter at `at` (always), and what else. */
  may: ReadonlyArray<"refused" | "ignored" | "anything">;
}

const pad2 = (n: number): string => String(n).padStart(2, "0");

/** `P` written with the zone offset `minutes`, to the millisecond: `2026-10-29T19:00:00.000-05:00`. */
function withOffset(ms: number, minutes: number): string {
  const local = new Date(ms + minutes * 60_000).toISOString().slice(0, 23);
  const sign = minutes < 0 ? "-" : "+";
  const abs = Math.abs(minutes);
  return `${local}${sign}${pad2(Math.floor(abs / 60))}:${pad2(abs % 60)}`;
}

/**
 * The forms of one instant `p` a `before` may take. MUST: the form the target serves, an item's own
 * timestamp byte for byte (`served`): §4's recipe sets before "from the date of the last result", and
 * says nothing more of its format ("its exact format: not shown", spec-gaps #8). Every other form is
 * open, the ISO 8601 forms any parser reads (a date alone, an offset, no fraction) as much as those
 * only some read and the unreadable ones: refused, ignored, read as another instant or as an empty
 * page, all are shown, none fails.
 */
function instantForms(p: number, served: string, full: boolean): InstantForm[] {
  const iso = new Date(p).toISOString();
  const day = iso.slice(0, 10);
  const midnight = Date.parse(`${day}T00:00:00.000Z`);
  const second = Math.floor(p / 1000) * 1000;
  const minute = Math.floor(p / 60_000) * 60_000;
  const open = (what: string, text: string, at: number | undefined): InstantForm => ({
    what,
    level: "PROBE",
    text,
    at,
    may: ["anything"],
  });
  const forms = [
    { what: "the served form", level: "MUST" as const, text: served, at: p, may: [] },
    open("a date alone", day, midnight),
    open("an offset east (+05:30)", withOffset(p, 330), p),
    open("an offset west (-05:00)", withOffset(p, -300), p),
  ];
  if (!full) return forms;
  return [
    ...forms,
    ...(served === iso ? [] : [open("the kit's own form", iso, p)]),
    open("no fraction", `${iso.slice(0, 19)}Z`, second),
    open("six fraction digits", `${iso.slice(0, 23)}000Z`, p),
    open("+00:00 for Z", `${iso.slice(0, 23)}+00:00`, p),
    open("the largest instant", "9999-12-31T23:59:59.999Z", Date.parse("9999-12-31T23:59:59.999Z")),
    open("year 1", "0001-01-01T00:00:00.000Z", Date.parse("0001-01-01T00:00:00.000Z")),
    open("no seconds", `${iso.slice(0, 16)}Z`, minute),
    open("lower-case t and z", `${iso.slice(0, 10)}t${iso.slice(11, 23)}z`, p),
    open("a space for T", `${iso.slice(0, 10)} ${iso.slice(11)}`, p),
    open("one fraction digit", `${iso.slice(0, 21)}Z`, Math.floor(p / 100) * 100),
    open("nine fraction digits", `${iso.slice(0, 23)}000000Z`, p),
    open("a basic offset (+0000)", `${iso.slice(0, 23)}+0000`, p),
    open("the basic format", `${day.replace(/-/g, "")}T${iso.slice(11, 19).replace(/:/g, "")}Z`, second),
    open("no zone", iso.slice(0, 23), undefined),
    open("trailing junk after a valid instant", `${iso}x`, p),
    open("trailing junk after a valid date", `${day}x`, midnight),
    open("the 30th of February", `${day.slice(0, 4)}-02-30`, undefined),
    open("month 13", `${day.slice(0, 4)}-13-01`, undefined),
    open("an empty value", "", undefined),
  ];
}

/** before: where the list supports it (spec-gaps #8), the served form names its instant exactly. */
const beforeInput: CoverageInput = {
  id: "coverage.before",
  section: SECTION.endpoints,
  clause: ["§4 Pagination.2", "§4 Pagination.3", "§2.2"],
  gap: 8,
  rule: "Where a list supports before, the form the target serves (an item's own timestamp, byte for byte: §4's recipe sets before from the date of the last result) keeps exactly the items strictly before it",
  openRule:
    "What before gets in every other form: ISO 8601 forms (a date alone, an offset, no fraction, six digits, +00:00, the largest and smallest instants), forms only some parsers read (no seconds, lower case, a space, one or nine fraction digits, basic offset or format, no zone) and unreadable ones (trailing junk, impossible dates, empty): refused, ignored, read as an instant, or an empty page (spec-gaps #8: its format is not shown)",
  async run(ctx: CheckContext): Promise<FormOutcome[]> {
    const all = await forEachList(ctx, async (list, token) => {
      const out: FormOutcome[] = [];
      if ((await beforeSupport(ctx, list, token)).kind !== "supported") return out;
      const field = ctx.spec.LISTS[list].orderField;
      const plain = await plainPage(ctx, list, token);
      const time = (i: JsonObject): number =>
        typeof i[field] === "string" ? Date.parse(i[field]) : Number.NaN;
      const pivot = plain.items[Math.floor(plain.items.length / 2)];
      const served = pivot?.[field];
      if (pivot === undefined || typeof served !== "string" || Number.isNaN(time(pivot))) return out;
      for (const form of instantForms(time(pivot), served, list === "contacts" || list === "invoices")) {
        const what = `${list}?before=${form.what}`;
        const ex = await ctx.http.send(
          listRequest(ctx, list, token, { limit: String(ctx.spec.MAX.pageMax), before: form.text }),
        );
        const got = itemsOf(ex);
        const expected =
          form.at === undefined ? undefined : plain.items.filter((i) => time(i) < (form.at ?? 0));
        const filtered =
          got !== undefined &&
          expected !== undefined &&
          got.every((i) => time(i) < (form.at ?? 0)) &&
          (!plain.complete || ids(got) === ids(expected));
        const did = isRefusal(ctx.spec, ex)
          ? "refused (400)"
          : filtered
            ? "filtered at its instant"
            : got !== undefined && ids(got) === ids(plain.items)
              ? "ignored"
              : got === undefined
                ? statusAndCode(ex)
                : "read as another instant";
        const fine =
          did === "filtered at its instant" ||
          form.may.includes("anything") ||
          (did === "refused (400)" && form.may.includes("refused")) ||
          (did === "ignored" && form.may.includes("ignored"));
        out.push(
          outcome(
            what,
            form.level,
            did,
            fine
              ? undefined
              : problem(
                  did,
                  [
                    form.at === undefined
                      ? ""
                      : `the ${expected?.length ?? 0} items strictly before ${new Date(form.at).toISOString()}`,
                    ...form.may,
                  ]
                    .filter((x) => x !== "")
                    .join(", or "),
                  got === undefined ? answer(ex) : `${got.length} items (${did})`,
                  ex,
                ),
          ),
        );
      }
      return out;
    });
    if (all.length === 0) {
      all.push(outcome("before", "PROBE", "no list supports before: its forms were not sent"));
    }
    return all;
  },
};

/** The filters (type, status): a value that is not the enum's is never read as one that is. */
const filterInput: CoverageInput = {
  id: "coverage.filters",
  section: SECTION.endpoints,
  clause: ["§4.5", "§4.9", "§4.10"],
  // §4's tables name the values of a filter and say nothing of others: that a value which is not one
  // is never read as one follows from them, unsaid (issue 29's audit).
  level: "SHOULD",
  rule: "A filter value that begins or ends like a valid one (CLIENTX, CLIEN, PAIDX) or is empty is refused, ignored or matches nothing: never read as the valid value",
  openRule: "What other case, outer spaces, a list of values and a repeated filter get",
  async run(ctx: CheckContext): Promise<FormOutcome[]> {
    const out: FormOutcome[] = [];
    const cases: ReadonlyArray<{ list: ListName; value: string | readonly string[]; level: FormLevel }> = [
      { list: "contacts", value: "CLIENTX", level: "MUST" },
      { list: "contacts", value: "CLIEN", level: "MUST" },
      { list: "contacts", value: "", level: "MUST" },
      { list: "contacts", value: "client", level: "PROBE" },
      { list: "contacts", value: ` ${ctx.spec.SAMPLE.contactType}`, level: "PROBE" },
      {
        list: "contacts",
        value: `${ctx.spec.SAMPLE.contactType},${ctx.spec.SAMPLE.otherContactType}`,
        level: "PROBE",
      },
      {
        list: "contacts",
        value: [ctx.spec.SAMPLE.contactType, ctx.spec.SAMPLE.otherContactType],
        level: "PROBE",
      },
      { list: "invoices", value: "PAIDX", level: "MUST" },
      { list: "invoices", value: "PAI", level: "MUST" },
      { list: "invoices", value: "paid", level: "PROBE" },
      { list: "expenses", value: "APPROVED ", level: "PROBE" },
    ];
    const known = new Map<string, string>();
    for (const c of cases) {
      const filter = ctx.spec.LISTS[c.list].filter;
      const token = reader(ctx, c.list);
      if (filter === undefined) continue;
      if (!known.has(`${c.list}:`)) {
        // The reads other checks share: what this token's list holds, and under each valid value.
        known.set(`${c.list}:`, ids(itemsOf(await firstPage(ctx, c.list, token)) ?? []));
        for (const v of filter.values) {
          known.set(`${c.list}:${v}`, ids(itemsOf(await filteredPage(ctx, c.list, v, token)) ?? []));
        }
      }
      const what = `${c.list}?${filter.param}=${show(c.value)}`;
      const ex = await ctx.http.send(
        listRequest(ctx, c.list, token, { limit: String(ctx.spec.MAX.pageMax), [filter.param]: c.value }),
      );
      const got = itemsOf(ex);
      const as =
        got === undefined ? undefined : filter.values.filter((v) => known.get(`${c.list}:${v}`) === ids(got));
      const did = isRefusal(ctx.spec, ex)
        ? "refused (400)"
        : got === undefined
          ? statusAndCode(ex)
          : got.length === 0
            ? "matches nothing"
            : ids(got) === known.get(`${c.list}:`)
              ? "ignored"
              : as !== undefined && as.length > 0
                ? `read as ${as.join(" or ")}`
                : "other items";
      const fine =
        c.level === "PROBE" ? ex.status < 500 : ["refused (400)", "matches nothing", "ignored"].includes(did);
      out.push(
        outcome(
          what,
          c.level,
          did,
          fine
            ? undefined
            : problem(
                did,
                "400 invalid_request, an empty list, or the list unfiltered",
                got === undefined ? answer(ex) : `${got.length} items (${did})`,
                ex,
              ),
        ),
      );
    }
    return out;
  },
};

// ---- headers: Authorization, Accept ---------------------------------------------------------------

/** Authorization: only `Bearer <token>` is a credential; what merely begins or ends like one is 401. */
const authorizationInput: CoverageInput = {
  id: "coverage.authorization",
  section: SECTION.auth,
  clause: ["§5.1", "§5.6", "§4.1"],
  gap: 35,
  rule: "An Authorization header that holds a valid token but is not `Bearer <token>` (junk after it, a comma, a second scheme, no scheme, another scheme, the token twice, its prefix dropped) gets 401 unauthorized",
  openRule:
    "What two spaces or a tab between Bearer and the token get (RFC 6750 allows several spaces; §5 shows one)",
  async run(ctx: CheckContext): Promise<FormOutcome[]> {
    const token = reader(ctx, "contacts");
    const t = token.token;
    const prefix = `${ctx.tokens.manifest.tokenPrefix}_`;
    const listed = new Set(ctx.tokens.manifest.tokens.map((x) => x.token));
    const bytes = Buffer.byteLength(prefix);
    // Forms that do not hold the token as it is are rebuilt from its variable in a report's curl.
    const derived = (shell: string) => ({ derivedFrom: { token, shell } });
    const forms: Array<{ what: string; header: string; level: FormLevel; derivedFrom?: DerivedSecret }> = [
      { what: "junk after the token", header: `Bearer ${t} junk`, level: "MUST" },
      { what: "a comma after the token", header: `Bearer ${t},`, level: "MUST" },
      { what: "a semicolon after the token", header: `Bearer ${t};`, level: "MUST" },
      { what: "the token twice", header: `Bearer ${t} ${t}`, level: "MUST" },
      { what: "the scheme twice", header: `Bearer Bearer ${t}`, level: "MUST" },
      { what: "no scheme", header: t, level: "MUST" },
      { what: "the Token scheme", header: `Token ${t}`, level: "MUST" },
      {
        what: "the Basic scheme",
        header: `Basic ${Buffer.from(`${t}:`).toString("base64")}`,
        level: "MUST",
        ...derived(`Basic $(printf '%s:' "$T" | base64 | tr -d '\\n')`),
      },
      ...(t.startsWith(prefix) && !listed.has(t.slice(prefix.length))
        ? [
            {
              what: "its prefix dropped",
              header: `Bearer ${t.slice(prefix.length)}`,
              level: "MUST" as const,
              ...derived(`Bearer $(printf %s "$T" | cut -c${bytes + 1}-)`),
            },
          ]
        : []),
      { what: "two spaces", header: `Bearer  ${t}`, level: "PROBE" },
      { what: "a tab", header: `Bearer\t${t}`, level: "PROBE" },
    ];
    const out: FormOutcome[] = [];
    for (const f of forms) {
      const auth =
        f.derivedFrom === undefined ? { header: f.header } : { header: f.header, derivedFrom: f.derivedFrom };
      const ex = await ctx.http.send(listRequest(ctx, "contacts", auth, { limit: "1" }));
      const read = readErrorEnvelope(ex.json);
      const refused =
        ex.status === 401 && !isEnvelopeProblem(read) && read.code === ctx.spec.ERRORS.unauthorized.code;
      const did = refused ? "refused (401)" : ex.status === 200 ? "accepted (200)" : statusAndCode(ex);
      const fine = refused || (f.level === "PROBE" && ex.status === 200);
      out.push(
        outcome(
          `Authorization with ${f.what}`,
          f.level,
          did,
          fine
            ? undefined
            : problem(
                `status ${ex.status}`,
                f.level === "MUST" ? "401 unauthorized (§5.6)" : "200, or 401 unauthorized",
                answer(ex),
                ex,
              ),
        ),
      );
    }
    return out;
  },
};

/** Accept: a client asking for JSON, or for anything, gets JSON. */
const acceptInput: CoverageInput = {
  id: "coverage.accept",
  section: SECTION.service,
  clause: ["§1.5", "§1.6"],
  gap: 32,
  rule: "A list answers 200 in JSON to an Accept of application/json, */*, application/*, or a browser client's list (application/json, text/plain, */*)",
  openRule: "What an Accept the API cannot meet (text/html, application/xml) gets",
  async run(ctx: CheckContext): Promise<FormOutcome[]> {
    const token = reader(ctx, "contacts");
    const forms: ReadonlyArray<[string, FormLevel]> = [
      ["application/json", "MUST"],
      ["*/*", "MUST"],
      ["application/*", "MUST"],
      ["application/json, text/plain, */*", "MUST"],
      ["application/json; charset=utf-8", "MUST"],
      ["text/html", "PROBE"],
      ["application/xml", "PROBE"],
    ];
    const out: FormOutcome[] = [];
    for (const [accept, level] of forms) {
      const ex = await ctx.http.send({
        ...listRequest(ctx, "contacts", token, { limit: "1" }),
        headers: { Accept: accept },
      });
      const json = ex.status === 200 && mediaType(ex) === "application/json" && ex.json !== undefined;
      const did = json ? "200 in JSON" : statusAndCode(ex);
      out.push(
        outcome(
          `Accept: ${accept}`,
          level,
          did,
          json || (level === "PROBE" && ex.status < 500)
            ? undefined
            : problem(`status ${ex.status}`, "200 with a JSON list", answer(ex), ex),
        ),
      );
    }
    return out;
  },
};

// ---- bodies: Content-Type, and every field of §4's two body tables ------------------------------------

/** The coverage phase's queries and headers, in the order they run. */
export const coverageQueryChecks: readonly Check[] = [
  limitInput,
  beforeInput,
  filterInput,
  authorizationInput,
  acceptInput,
].flatMap(coverageChecks);
