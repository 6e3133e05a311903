import type { ManifestToken } from "../manifest-schema.js";
import type { Check, CheckContext, DerivedSecret, HttpExchange, HttpRequest } from "../types.js";
import {
  answer,
  is2xx,
  isEnvelopeProblem,
  isRecord,
  mediaType,
  readErrorEnvelope,
  statusAndCode,
  type JsonObject,
} from "../support/assert.js";
import { expectedMoney, limitBound } from "../support/arbitraries.js";
import {
  coverageChecks,
  outcome,
  padWith,
  type CoverageInput,
  type FormLevel,
  type FormOutcome,
  type FormProblem,
} from "../support/coverage.js";
import {
  beforeSupport,
  filteredPage,
  firstPage,
  fullToken,
  itemsOf,
  listRequest,
  tokenHolding,
  unique,
  usableTokens,
} from "../support/data.js";
import { LISTS, MAX, type ListName } from "../spec/constants.js";
import { SECTION, clauseRange } from "../spec/clauses.js";

/**
 * The coverage phase (support/coverage.ts): every parameter, header and body field of §4, §5 and §8
 * in the legal forms the spec allows and their illegal neighbours, each with its expectation. It runs
 * before the other checks. DECISIONS.md says, form by form, why a form is a MUST or open.
 */

const show = (value: unknown): string => (value === undefined ? "absent" : JSON.stringify(value));

/** A refusal as §7 writes it: 400 invalid_request in the error envelope. */
function isRefusal(ex: HttpExchange): boolean {
  const read = readErrorEnvelope(ex.json);
  return ex.status === 400 && !isEnvelopeProblem(read) && read.code === "invalid_request";
}

const problem = (
  kind: string,
  expected: string,
  actual: string,
  ...evidence: Array<HttpExchange | undefined>
): FormProblem => ({ kind, expected, actual, evidence });

// ---- query parameters: limit, before, the filters ---------------------------------------------------

/** The list's largest page now, read with a token holding exactly its read scope where there is one. */
async function plainPage(
  ctx: CheckContext,
  list: ListName,
  token: ManifestToken,
): Promise<{ ex: HttpExchange; items: JsonObject[]; complete: boolean }> {
  const ex = await ctx.http.send(listRequest(list, token, { limit: String(MAX.pageMax) }));
  const items = itemsOf(ex) ?? [];
  return { ex, items, complete: items.length < MAX.pageMax };
}

const ids = (items: readonly JsonObject[]): string => JSON.stringify(items.map((i) => i.id).sort());

/** limit: every legal value gives exactly as many items as it asks (or as the list holds); spec-gaps #10 for the rest. */
const limitInput: CoverageInput = {
  id: "coverage.limit",
  section: SECTION.limits,
  clause: ["§8.2", "§4 Pagination.1", "§4 Pagination.4"],
  gap: 10,
  rule: "Every limit from 1 to 200 gives as many items as it asks, or all the list holds; a limit in another notation gets 400 or a page no longer than it allows (spec-gaps #10)",
  openRule:
    "What limit in other notations gets: a leading zero, a sign, spaces, a fraction, an exponent, full-width digits, past 64 bits",
  async run(ctx: CheckContext): Promise<FormOutcome[]> {
    const out: FormOutcome[] = [];
    for (const list of ["contacts", "invoices", "products", "expenses"] as const) {
      const token = tokenHolding(ctx, LISTS[list].scope);
      const plain = await plainPage(ctx, list, token);
      const held = plain.items.length;
      const legal =
        list === "contacts" || list === "invoices" ? ["1", "2", "49", "51", "199", "200"] : ["1", "200"];
      const open =
        list === "contacts"
          ? ["050", "+5", " 5", "5 ", "5abc", "1.0", "2e1", "\uFF19", "99999999999999999999", "-0", "0.5"]
          : [];
      for (const value of [...legal, ...open]) {
        const level: FormLevel = legal.includes(value) ? "MUST" : "PROBE";
        const what = `${list}?limit=${JSON.stringify(value)}`;
        const ex = await ctx.http.send(listRequest(list, token, { limit: value }));
        const items = itemsOf(ex);
        if (level === "MUST") {
          const want = Math.min(Number(value), held >= MAX.pageMax ? Number(value) : held);
          out.push(
            items?.length === want
              ? outcome(what, level, `${want} items`)
              : outcome(
                  what,
                  level,
                  statusAndCode(ex),
                  problem(
                    items === undefined ? `status ${ex.status}` : "not as many items as asked",
                    `200 with ${want} items (the list holds ${held >= MAX.pageMax ? "at least " : ""}${held})`,
                    items === undefined ? answer(ex) : `${items.length} items`,
                    ex,
                  ),
                ),
          );
          continue;
        }
        const bound = limitBound(value);
        if (isRefusal(ex)) out.push(outcome(what, level, "refused (400)"));
        else if (items !== undefined && items.length <= bound) {
          // Named by what it was read as, not by a count that depends on the target's data.
          const lead = /^\s*\+?0*(\d{1,4})(?!\d)/.exec(value)?.[1];
          const as =
            lead !== undefined && items.length === Math.min(held, Math.max(1, Number(lead)))
              ? `read as ${Math.max(1, Number(lead))}`
              : items.length === Math.min(held, MAX.pageDefault)
                ? "read as no limit (the default)"
                : items.length === Math.min(held, MAX.pageMax)
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
                `400 invalid_request, or at most ${bound} items`,
                items === undefined ? answer(ex) : `${items.length} items`,
                ex,
              ),
            ),
          );
      }
    }
    return out;
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
 * The forms of one instant `p` (an item's own instant) a `before` may take. MUST: what any ISO 8601
 * date-time parser reads (the served form, a date alone, no fraction, six fraction digits, a Z or an
 * offset, east or west); open: what only some read (no seconds, lower case, a space, one or nine
 * digits, basic offsets or format, no zone); illegal neighbours: trailing junk, impossible dates, empty.
 */
function instantForms(p: number, full: boolean): InstantForm[] {
  const iso = new Date(p).toISOString();
  const day = iso.slice(0, 10);
  const midnight = Date.parse(`${day}T00:00:00.000Z`);
  const second = Math.floor(p / 1000) * 1000;
  const minute = Math.floor(p / 60_000) * 60_000;
  const must = (what: string, text: string, at: number): InstantForm => ({
    what,
    level: "MUST",
    text,
    at,
    may: [],
  });
  const open = (
    what: string,
    text: string,
    at: number | undefined,
    may: InstantForm["may"] = ["refused", "ignored"],
  ): InstantForm => ({
    what,
    level: "PROBE",
    text,
    at,
    may,
  });
  const forms = [
    must("a date alone", day, midnight),
    must("an offset east (+05:30)", withOffset(p, 330), p),
    must("an offset west (-05:00)", withOffset(p, -300), p),
  ];
  if (!full) return forms;
  return [
    ...forms,
    must("the served form", iso, p),
    must("no fraction", `${iso.slice(0, 19)}Z`, second),
    must("six fraction digits", `${iso.slice(0, 23)}000Z`, p),
    must("+00:00 for Z", `${iso.slice(0, 23)}+00:00`, p),
    must("the largest instant", "9999-12-31T23:59:59.999Z", Date.parse("9999-12-31T23:59:59.999Z")),
    must("year 1", "0001-01-01T00:00:00.000Z", Date.parse("0001-01-01T00:00:00.000Z")),
    open("no seconds", `${iso.slice(0, 16)}Z`, minute),
    open("lower-case t and z", `${iso.slice(0, 10)}t${iso.slice(11, 23)}z`, p),
    open("a space for T", `${iso.slice(0, 10)} ${iso.slice(11)}`, p),
    open("one fraction digit", `${iso.slice(0, 21)}Z`, Math.floor(p / 100) * 100),
    open("nine fraction digits", `${iso.slice(0, 23)}000000Z`, p),
    open("a basic offset (+0000)", `${iso.slice(0, 23)}+0000`, p),
    open("the basic format", `${day.replace(/-/g, "")}T${iso.slice(11, 19).replace(/:/g, "")}Z`, second),
    open("no zone", iso.slice(0, 23), undefined, ["anything"]),
    open("trailing junk after a valid instant", `${iso}x`, p),
    open("trailing junk after a valid date", `${day}x`, midnight),
    open("the 30th of February", `${day.slice(0, 4)}-02-30`, undefined, ["anything"]),
    open("month 13", `${day.slice(0, 4)}-13-01`, undefined, ["anything"]),
    { ...open("an empty value", "", undefined), level: "MUST" },
  ];
}

/** before: where the list supports it (spec-gaps #8), every legal form names its instant exactly. */
const beforeInput: CoverageInput = {
  id: "coverage.before",
  section: SECTION.endpoints,
  clause: ["§4 Pagination.2", "§4 Pagination.3", "§2.2"],
  gap: 8,
  rule: "Where a list supports before, every ISO 8601 form of an instant (a date alone, no fraction, six digits, Z, +00:00, an offset east or west, the largest and smallest instants) keeps exactly the items strictly before it; an empty before is refused or ignored",
  openRule:
    "What before gets in forms only some parsers read (no seconds, lower case, a space, one or nine fraction digits, basic offset or format, no zone) and illegal neighbours (trailing junk, impossible dates)",
  async run(ctx: CheckContext): Promise<FormOutcome[]> {
    const out: FormOutcome[] = [];
    for (const list of ["contacts", "invoices", "products", "expenses"] as const) {
      const token = tokenHolding(ctx, LISTS[list].scope);
      if ((await beforeSupport(ctx, list, token)).kind !== "supported") continue;
      const field = LISTS[list].orderField;
      const plain = await plainPage(ctx, list, token);
      const time = (i: JsonObject): number =>
        typeof i[field] === "string" ? Date.parse(i[field]) : Number.NaN;
      const pivot = plain.items[Math.floor(plain.items.length / 2)];
      if (pivot === undefined || Number.isNaN(time(pivot))) continue;
      for (const form of instantForms(time(pivot), list === "contacts" || list === "invoices")) {
        const what = `${list}?before=${form.what}`;
        const ex = await ctx.http.send(
          listRequest(list, token, { limit: String(MAX.pageMax), before: form.text }),
        );
        const got = itemsOf(ex);
        const expected =
          form.at === undefined ? undefined : plain.items.filter((i) => time(i) < (form.at ?? 0));
        const filtered =
          got !== undefined &&
          expected !== undefined &&
          got.every((i) => time(i) < (form.at ?? 0)) &&
          (!plain.complete || ids(got) === ids(expected));
        const did = isRefusal(ex)
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
    }
    if (out.length === 0) {
      out.push(outcome("before", "PROBE", "no list supports before: its forms were not sent"));
    }
    return out;
  },
};

/** The filters (type, status): a value that is not the enum's is never read as one that is. */
const filterInput: CoverageInput = {
  id: "coverage.filters",
  section: SECTION.endpoints,
  clause: ["§4.5", "§4.9", "§4.10"],
  rule: "A filter value that begins or ends like a valid one (CLIENTX, CLIEN, PAIDX) or is empty is refused, ignored or matches nothing: never read as the valid value",
  openRule: "What other case, outer spaces, a list of values and a repeated filter get",
  async run(ctx: CheckContext): Promise<FormOutcome[]> {
    const out: FormOutcome[] = [];
    const cases: ReadonlyArray<{ list: ListName; value: string | readonly string[]; level: FormLevel }> = [
      { list: "contacts", value: "CLIENTX", level: "MUST" },
      { list: "contacts", value: "CLIEN", level: "MUST" },
      { list: "contacts", value: "", level: "MUST" },
      { list: "contacts", value: "client", level: "PROBE" },
      { list: "contacts", value: " CLIENT", level: "PROBE" },
      { list: "contacts", value: "CLIENT,SUPPLIER", level: "PROBE" },
      { list: "contacts", value: ["CLIENT", "SUPPLIER"], level: "PROBE" },
      { list: "invoices", value: "PAIDX", level: "MUST" },
      { list: "invoices", value: "PAI", level: "MUST" },
      { list: "invoices", value: "paid", level: "PROBE" },
      { list: "expenses", value: "APPROVED ", level: "PROBE" },
    ];
    const token = fullToken(ctx);
    const known = new Map<string, string>();
    for (const c of cases) {
      const filter = LISTS[c.list].filter;
      if (filter === undefined) continue;
      if (!known.has(`${c.list}:`)) {
        // The reads other checks share: what this token's list holds, and under each valid value.
        known.set(`${c.list}:`, ids(itemsOf(await firstPage(ctx, c.list, token)) ?? []));
        for (const v of filter.values) {
          known.set(`${c.list}:${v}`, ids(itemsOf(await filteredPage(ctx, c.list, v, token)) ?? []));
        }
      }
      const what = `${c.list}?${filter.param}=${show(c.value)}`;
      const ex = await ctx.http.send(listRequest(c.list, token, { limit: "200", [filter.param]: c.value }));
      const got = itemsOf(ex);
      const as =
        got === undefined ? undefined : filter.values.filter((v) => known.get(`${c.list}:${v}`) === ids(got));
      const did = isRefusal(ex)
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
    const token = tokenHolding(ctx, "contacts:read");
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
      const ex = await ctx.http.send(listRequest("contacts", auth, { limit: "1" }));
      const read = readErrorEnvelope(ex.json);
      const refused = ex.status === 401 && !isEnvelopeProblem(read) && read.code === "unauthorized";
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
    const token = tokenHolding(ctx, "contacts:read");
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
        ...listRequest("contacts", token, { limit: "1" }),
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

/** One form of a POST body. */
interface BodyForm {
  what: string;
  level: FormLevel;
  list: "contacts" | "products";
  /** The body as sent: JSON text, so that a number is written exactly. */
  text: string;
  contentType?: string;
  /** MUST be taken and read back, MUST be refused (and never stored), or open (either, within bounds). */
  expect: "accept" | "refuse" | "open";
  /** The field the form is about, and what it must read back as when taken. */
  field: string;
  stored: unknown;
  /** Whether a value read back is one the form allows (default: `stored` exactly). */
  keeps?: (value: unknown, stored: unknown) => boolean;
  /** Names a value read back in an observation (default: "as sent" or the value). */
  reading?: (value: unknown, stored: unknown) => string;
  /** A text only this form's record carries in its name (contacts) or sku (products). */
  tag: string;
}

/** The tokens of organization 0 that may write to `list`: the forms are spread over them. */
const writers = (ctx: CheckContext, list: "contacts" | "products"): ManifestToken[] => {
  const org = fullToken(ctx).organization;
  const all = usableTokens(ctx).filter((t) => t.organization === org && t.scopes.includes(`${list}:write`));
  return all.length === 0 ? [fullToken(ctx)] : all;
};

/** Sends every form, reads each list once, and judges each form on its answer and what was stored. */
async function runBodies(ctx: CheckContext, forms: readonly BodyForm[]): Promise<FormOutcome[]> {
  const sent: HttpExchange[] = [];
  for (const [i, form] of forms.entries()) {
    const pool = writers(ctx, form.list);
    sent.push(
      await ctx.http.send({
        method: "POST",
        path: LISTS[form.list].path,
        auth: pool[i % pool.length],
        headers: { "Content-Type": form.contentType ?? "application/json" },
        rawBody: form.text,
      } satisfies HttpRequest),
    );
  }
  const reads = new Map<string, { ex: HttpExchange; items: JsonObject[]; complete: boolean }>();
  for (const list of new Set(forms.map((f) => f.list)))
    reads.set(list, await plainPage(ctx, list, fullToken(ctx)));
  return forms.map((form, i) => judgeBody(form, sent[i], reads.get(form.list)));
}

/** One form's verdict, from its creation's answer and the list read after every form was sent. */
function judgeBody(
  form: BodyForm,
  ex: HttpExchange | undefined,
  read: { ex: HttpExchange; items: JsonObject[]; complete: boolean } | undefined,
): FormOutcome {
  const what = `${form.list === "contacts" ? "contact" : "product"} ${form.what}`;
  if (ex === undefined) return outcome(what, form.level, "not sent");
  {
    const data = isRecord(ex.json) && isRecord(ex.json.data) ? ex.json.data : undefined;
    const markField = form.list === "contacts" ? "name" : "sku";
    const item = read?.items.find(
      (it) =>
        (form.list === "contacts" && data?.id !== undefined && it.id === data.id) ||
        (typeof it[markField] === "string" && it[markField].includes(form.tag)),
    );
    const keeps = (v: unknown): boolean => (form.keeps ?? ((x, s) => x === s))(v, form.stored);
    const reading = (v: unknown): string =>
      form.reading?.(v, form.stored) ?? (v === form.stored ? "as sent" : show(v));
    if (is2xx(ex)) {
      if (form.expect === "refuse") {
        return outcome(
          what,
          form.level,
          "accepted",
          problem("accepted", "400 invalid_request", answer(ex), ex),
        );
      }
      // A contact's creation answer echoes name, email and phone (spec-gaps #5).
      const echoed =
        form.list === "contacts" && ["name", "email", "phone"].includes(form.field)
          ? data?.[form.field]
          : undefined;
      if (echoed !== undefined && !keeps(echoed)) {
        return outcome(
          what,
          form.level,
          `answered ${reading(echoed)}`,
          problem(
            "answered otherwise",
            `${form.field} ${show(form.stored)}`,
            `${form.field} ${show(echoed)}`,
            ex,
          ),
        );
      }
      if (item === undefined) {
        return read?.complete === true
          ? outcome(
              what,
              form.level,
              "accepted, not listed",
              problem(
                "created, not listed",
                "the record in the list",
                "no such item in the whole list",
                ex,
                read.ex,
              ),
            )
          : outcome(what, form.level, "accepted");
      }
      const value = item[form.field];
      return keeps(value)
        ? outcome(what, form.level, `accepted, read back ${reading(value)}`)
        : outcome(
            what,
            form.level,
            `accepted, read back ${reading(value)}`,
            problem(
              "read back otherwise",
              `${form.field} ${form.expect === "open" ? "a value the spec allows" : show(form.stored)}`,
              `${form.field} ${show(value)}`,
              ex,
              read?.ex,
            ),
          );
    }
    if (isRefusal(ex)) {
      if (item !== undefined)
        return outcome(
          what,
          form.level,
          "refused, yet stored",
          problem("refused, yet stored", "nothing stored", `listed: ${show(item[form.field])}`, ex, read?.ex),
        );
      return form.expect === "accept"
        ? outcome(what, form.level, "refused (400)", problem("refused", "accepted (2xx)", answer(ex), ex))
        : outcome(what, form.level, "refused (400)");
    }
    return outcome(
      what,
      form.level,
      statusAndCode(ex),
      problem(
        `status ${ex.status}`,
        form.expect === "accept" ? "accepted (2xx)" : "400 invalid_request",
        answer(ex),
        ex,
      ),
    );
  }
}

/** Builds forms of one list, each with a tag of its own in its name (contacts) or sku (products). */
function formMaker(ctx: CheckContext, list: "contacts" | "products") {
  return (
    what: string,
    level: FormLevel,
    expect: BodyForm["expect"],
    field: string,
    /** The field's value as JSON text (a number written exactly), or a value to stringify. */
    value: { json: string } | { value: unknown } | undefined,
    extra: Partial<Pick<BodyForm, "stored" | "keeps" | "reading" | "contentType">> & {
      /** The field's value carries the tag itself (a name or sku form). */
      tagged?: (tag: string) => unknown;
      /** Every character outside ASCII written as a JSON escape (\u00e9, surrogate pairs for astral ones). */
      escaped?: boolean;
    } = {},
  ): BodyForm => {
    // Unique in the run (the sequence every record's name or sku draws from); the x ends it, so that
    // no tag is the start of another (c-1x is not in c-12x).
    const tag = `${unique(ctx, list === "contacts" ? "c" : "p")}x`;
    const base: Record<string, string> =
      list === "contacts"
        ? { type: JSON.stringify("CLIENT"), name: JSON.stringify(tag) }
        : { sku: JSON.stringify(tag), name: JSON.stringify(`${tag} name`), unitPrice: "10" };
    const own = extra.tagged === undefined ? value : { value: extra.tagged(tag) };
    const json = own === undefined ? undefined : "json" in own ? own.json : JSON.stringify(own.value);
    const written =
      json !== undefined && extra.escaped === true
        ? json.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)
        : json;
    const entries = [
      ...Object.entries(base).filter(([k]) => k !== field),
      ...(written === undefined ? [] : [[field, written] as const]),
    ];
    const text = `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(",")}}`;
    const stored =
      "stored" in extra
        ? extra.stored
        : own === undefined
          ? undefined
          : "json" in own
            ? JSON.parse(own.json)
            : own.value;
    return {
      what,
      level,
      list,
      text,
      expect,
      field,
      stored,
      tag,
      ...(extra.keeps === undefined ? {} : { keeps: extra.keeps }),
      ...(extra.reading === undefined ? {} : { reading: extra.reading }),
      ...(extra.contentType === undefined ? {} : { contentType: extra.contentType }),
    };
  };
}

const codePoints = (s: unknown): number => (typeof s === "string" ? [...s].length : Number.NaN);

/**
 * Outer white space: kept, or trimmed, never anything else (spec-gaps #17 leaves which open); kept
 * only while the value stays within `max` characters.
 */
const keptOrTrimmed =
  (max = Number.POSITIVE_INFINITY) =>
  (v: unknown, sent: unknown): boolean =>
    typeof sent === "string" && ((v === sent && codePoints(v) <= max) || v === sent.trim());
const trimReading = (v: unknown, sent: unknown): string =>
  v === sent ? "as sent" : typeof sent === "string" && v === sent.trim() ? "trimmed" : show(v);

/** A line break kept, or turned into a space or a comma: the same text either way. */
const sameText = (v: unknown, sent: unknown): boolean =>
  typeof v === "string" &&
  typeof sent === "string" &&
  v.replace(/[\s,]+/g, " ").trim() === sent.replace(/[\s,]+/g, " ").trim();

/** Nothing stored for a null: absent, null or empty, never "None" or "null". */
const nothing = (v: unknown): boolean => v === undefined || v === null || v === "";

/** Content-Type: the media type's parameters and case (RFC 9110 §8.3.1); spec-gaps #13 for the rest. */
const contentTypeInput: CoverageInput = {
  id: "coverage.content-type",
  section: SECTION.endpoints,
  clause: "§4.2",
  gap: 13,
  writes: true,
  rule: "A POST with Content-Type application/json in another legal form (a charset parameter, upper case) is taken; another media type gets 400 or 415, or is taken (spec-gaps #13)",
  openRule:
    "What a quoted charset, a space before the semicolon, an extra parameter, another charset and other JSON media types get",
  run(ctx: CheckContext): Promise<FormOutcome[]> {
    const contact = formMaker(ctx, "contacts");
    const product = formMaker(ctx, "products");
    const taken = (type: string): BodyForm =>
      contact(`sent as ${type}`, "MUST", "accept", "type", { value: "CLIENT" }, { contentType: type });
    const open = (type: string): BodyForm =>
      contact(`sent as ${type}`, "PROBE", "open", "type", { value: "CLIENT" }, { contentType: type });
    return runBodies(ctx, [
      taken("application/json; charset=utf-8"),
      taken("application/json;charset=UTF-8"),
      taken("Application/JSON"),
      product(
        "sent as application/json; charset=utf-8",
        "MUST",
        "accept",
        "unitPrice",
        { json: "10" },
        {
          contentType: "application/json; charset=utf-8",
          stored: "10.0000",
        },
      ),
      open('application/json; charset="utf-8"'),
      open("application/json ; charset=utf-8"),
      open("application/json; charset=utf-8; version=1"),
      open("application/json; charset=iso-8859-1"),
      open("application/vnd.api+json"),
      open("text/json"),
      open("application/jsonx"),
    ]);
  },
};

/** Every field of §4's contact body table, §8's lengths (spec-gaps #16–#18). */
const contactFieldsInput: CoverageInput = {
  id: "coverage.contact-fields",
  section: SECTION.endpoints,
  clause: [...clauseRange("§4 Contacts body", 1, 7), "§8.3", "§8.4", "§8.5", "§2 Contact.4"],
  gap: 16,
  writes: true,
  rule: "Every contact field in its legal forms (each type, one character, the maximum with spaces, CJK, an emoji, quotes and markup, JSON escapes, e-mails with dots, plus, subdomains and capitals, phones with punctuation) is taken and read back as sent; illegal neighbours (a type that begins like one, one character past a limit with spaces, past it once outer spaces are stripped, an e-mail followed by junk, a line break, a second address or @) are refused and not stored",
  openRule:
    "What a contact gets for forms the spec leaves open: outer white space, lower-case or padded types, a line break, an apostrophe in an e-mail, non-ASCII in a phone or tax number, null for an optional field",
  run(ctx: CheckContext): Promise<FormOutcome[]> {
    const f = formMaker(ctx, "contacts");
    const max = MAX.contactName;
    const name = (
      what: string,
      level: FormLevel,
      expect: BodyForm["expect"],
      make: (tag: string) => string,
      extra: Parameters<typeof f>[5] = {},
    ): BodyForm => f(`name ${what}`, level, expect, "name", undefined, { tagged: make, ...extra });
    const padded201 = (tag: string): string => ` ${padWith(`${tag} `, max + 1, "x")} `;
    const atMaxSpace = (tag: string): string => `${padWith(tag, max, "x")} `;
    const email = (
      what: string,
      level: FormLevel,
      expect: BodyForm["expect"],
      value: string,
      extra: Parameters<typeof f>[5] = {},
    ): BodyForm => f(`email ${what}`, level, expect, "email", { value }, extra);
    const phone50 = padWith("+1 514 555 0199", MAX.contactPhone, " 99");
    return runBodies(ctx, [
      f("type SUPPLIER", "MUST", "accept", "type", { value: "SUPPLIER" }),
      f("type BOTH", "MUST", "accept", "type", { value: "BOTH" }),
      f("type CLIENTX", "MUST", "refuse", "type", { value: "CLIENTX" }),
      f("type CLIEN", "MUST", "refuse", "type", { value: "CLIEN" }),
      f("type CLIENT,SUPPLIER", "MUST", "refuse", "type", { value: "CLIENT,SUPPLIER" }),
      f(
        "type client",
        "PROBE",
        "open",
        "type",
        { value: "client" },
        { keeps: (v) => v === "CLIENT", reading: (v) => show(v) },
      ),
      f(
        "type ' CLIENT'",
        "PROBE",
        "open",
        "type",
        { value: " CLIENT" },
        { keeps: (v) => v === "CLIENT", reading: (v) => show(v) },
      ),
      name("of one character", "MUST", "accept", () => "x"),
      name(`of ${max} characters with spaces`, "MUST", "accept", (tag) => padWith(`${tag} `, max, "ab cd ")),
      name(`of ${max} CJK characters`, "MUST", "accept", (tag) => padWith(`${tag} `, max, "日本語")),
      name("with an emoji", "MUST", "accept", (tag) => `${tag} 🎉 party`),
      name(
        "with quotes, markup and a backslash",
        "MUST",
        "accept",
        (tag) => `${tag} O'Brien "Bob" <b>&amp; \\ /`,
      ),
      f("name written with JSON escapes", "MUST", "accept", "name", undefined, {
        tagged: (tag) => `${tag} é日🎉`,
        escaped: true,
      }),
      name(`of ${max + 1} characters with spaces`, "MUST", "refuse", (tag) =>
        padWith(`${tag} `, max + 1, "ab cd "),
      ),
      name(`of ${max + 1} CJK characters`, "MUST", "refuse", (tag) => padWith(`${tag} `, max + 1, "日本語")),
      name(
        `of ${max + 1} characters between spaces (past the limit once they are stripped)`,
        "MUST",
        "refuse",
        padded201,
      ),
      name(`of ${max} characters and a space`, "PROBE", "open", atMaxSpace, {
        keeps: keptOrTrimmed(max),
        reading: trimReading,
      }),
      name("between spaces", "PROBE", "open", (tag) => `  ${tag}  `, {
        keeps: keptOrTrimmed(),
        reading: trimReading,
      }),
      name("with a line break", "PROBE", "open", (tag) => `${tag}\nsecond line`, { keeps: sameText }),
      email("with dots, plus and a subdomain", "MUST", "accept", "first.last+tag@mail.example.co.uk"),
      email("with digits and a hyphen in the domain", "MUST", "accept", "a@my-host1.example"),
      email("in capitals", "MUST", "accept", "First.Last@Example.COM", {
        keeps: (v) => typeof v === "string" && v.toLowerCase() === "first.last@example.com",
        reading: (v) => (v === "First.Last@Example.COM" ? "as sent" : show(v)),
      }),
      email("followed by junk", "MUST", "refuse", "a@example.com junk"),
      email("followed by a line break", "MUST", "refuse", "a@example.com\n"),
      email("followed by a second address", "MUST", "refuse", "a@example.com,b@example.com"),
      email("followed by a second @", "MUST", "refuse", "a@example.com@example.com"),
      email("with two @", "MUST", "refuse", "a@@example.com"),
      email("with an empty domain label", "MUST", "refuse", "a@example..com"),
      ...[" a@example.com", "a@example.com "].map((value) =>
        email(`${JSON.stringify(value)} (outer space)`, "PROBE", "open", value, {
          keeps: (v) => v === "a@example.com",
          reading: trimReading,
        }),
      ),
      email("with an apostrophe", "PROBE", "open", "o'brien@example.com"),
      f("phone with punctuation and an extension", "MUST", "accept", "phone", {
        value: "+1 (514) 555-0199 ext. 12",
      }),
      f(`phone of ${MAX.contactPhone} characters with spaces`, "MUST", "accept", "phone", { value: phone50 }),
      f(`phone of ${MAX.contactPhone + 1} characters with spaces`, "MUST", "refuse", "phone", {
        value: `${phone50}9`,
      }),
      f(`phone of ${MAX.contactPhone + 1} characters between spaces`, "MUST", "refuse", "phone", {
        value: ` ${phone50}9 `,
      }),
      f("phone with non-ASCII", "PROBE", "open", "phone", { value: "+1 514 555 0199 poste 12 é" }),
      f(`address of ${MAX.contactAddress} characters with accents and spaces`, "MUST", "accept", "address", {
        value: padWith(`${ctx.marker} `, MAX.contactAddress, "rue Éloi "),
      }),
      f("address with an apostrophe, a comma and #", "MUST", "accept", "address", {
        value: "1234 rue de l'Église, app. #5, Montréal (Québec) H2X 3K8",
      }),
      f(`address of ${MAX.contactAddress + 1} characters with accents`, "MUST", "refuse", "address", {
        value: padWith(`${ctx.marker} `, MAX.contactAddress + 1, "rue Éloi "),
      }),
      f(
        "address on two lines",
        "PROBE",
        "open",
        "address",
        { value: "1234 rue Saint-Denis\nMontréal (Québec)" },
        { keeps: sameText },
      ),
      f("taxNumberTPS with a space", "MUST", "accept", "taxNumberTPS", { value: "123456789 RT0001" }),
      f(
        `taxNumberTVQ of ${MAX.contactTaxNumber + 1} characters between spaces`,
        "MUST",
        "refuse",
        "taxNumberTVQ",
        {
          value: ` ${padWith("1234567890TQ", MAX.contactTaxNumber + 1, "0")} `,
        },
      ),
      f("taxNumberTPS with non-ASCII", "PROBE", "open", "taxNumberTPS", { value: "123456789RT0001 é" }),
      ...(["email", "phone", "address"] as const).map((field) =>
        f(
          `${field} null`,
          "PROBE",
          "open",
          field,
          { value: null },
          { keeps: nothing, reading: (v) => (nothing(v) ? "as nothing" : show(v)) },
        ),
      ),
    ]);
  },
};

/** unitPrice as JSON text: its 4-decimal reading (§2), when a number reads as one. */
const money = (text: string): string => expectedMoney(text);

/** Every field of §4's product body table, §8's lengths, §2's money (spec-gaps #16, #17, #19). */
const productFieldsInput: CoverageInput = {
  id: "coverage.product-fields",
  section: SECTION.endpoints,
  clause: [...clauseRange("§4 Products body", 1, 6), "§8.6", "§8.7", "§8.8", "§8.9", "§2 Product.6"],
  gap: 19,
  writes: true,
  rule: 'Every product field in its legal forms (a sku at its maximum with - and _, names with spaces, markup and an emoji, a description of 2000 characters on several lines, each type, taxable false, unitPrice at realistic sizes up to 999999.9999 with 0 to 4 decimals) is taken and read back exactly; illegal neighbours (one past a limit with spaces or once outer spaces are stripped, a type that begins like one, a negative or non-numeric price, a taxable of 0 or "false") are refused and not stored',
  openRule:
    "What a product gets for forms the spec leaves open: a sku with dots, slashes, spaces or non-ASCII, lower-case or padded types, unitPrice in exponent form, past 15 significant digits or above 1 000 000, -0, a null taxable",
  run(ctx: CheckContext): Promise<FormOutcome[]> {
    const f = formMaker(ctx, "products");
    const price = (
      what: string,
      level: FormLevel,
      expect: BodyForm["expect"],
      json: string,
      extra: Parameters<typeof f>[5] = {},
    ): BodyForm =>
      f(
        `unitPrice ${what}`,
        level,
        expect,
        "unitPrice",
        { json },
        { stored: expect === "refuse" ? undefined : money(json), ...extra },
      );
    const exact = (json: string): Parameters<typeof f>[5] => ({
      keeps: (v) => v === money(json),
      reading: (v) => (v === money(json) ? "exactly" : show(v)),
    });
    const sku = (
      what: string,
      level: FormLevel,
      expect: BodyForm["expect"],
      make: (tag: string) => string,
    ): BodyForm => f(`sku ${what}`, level, expect, "sku", undefined, { tagged: make });
    return runBodies(ctx, [
      sku(`of ${MAX.productSku} characters with - and _`, "MUST", "accept", (tag) =>
        padWith(`${tag}-`, MAX.productSku, "Ab_9-"),
      ),
      sku(`of ${MAX.productSku + 1} characters with - and _`, "MUST", "refuse", (tag) =>
        padWith(`${tag}-`, MAX.productSku + 1, "Ab_9-"),
      ),
      sku(
        `of ${MAX.productSku + 1} characters between spaces`,
        "MUST",
        "refuse",
        (tag) => ` ${padWith(`${tag}-`, MAX.productSku + 1, "s")} `,
      ),
      sku("with a dot and a slash", "PROBE", "open", (tag) => `${tag}/A.1`),
      sku("with a space", "PROBE", "open", (tag) => `${tag} A 1`),
      sku("with non-ASCII", "PROBE", "open", (tag) => `${tag}-É`),
      f(`name of ${MAX.productName} characters with spaces`, "MUST", "accept", "name", {
        value: padWith(`${ctx.marker} `, MAX.productName, "ab cd "),
      }),
      f("name with quotes, markup and an emoji", "MUST", "accept", "name", {
        value: `${ctx.marker} <i>"Pro"</i> & co 🎉`,
      }),
      f(`name of ${MAX.productName + 1} characters between spaces`, "MUST", "refuse", "name", {
        value: ` ${padWith(`${ctx.marker} `, MAX.productName + 1, "x")} `,
      }),
      f(
        `description of ${MAX.productDescription} characters on several lines`,
        "MUST",
        "accept",
        "description",
        {
          value: padWith(`${ctx.marker}\n`, MAX.productDescription, "Ligne é.\n"),
        },
      ),
      f(
        `description of ${MAX.productDescription + 1} characters on several lines`,
        "MUST",
        "refuse",
        "description",
        {
          value: padWith(`${ctx.marker}\n`, MAX.productDescription + 1, "Ligne é.\n"),
        },
      ),
      f("type SERVICE", "MUST", "accept", "type", { value: "SERVICE" }),
      f("type PRODUCTX", "MUST", "refuse", "type", { value: "PRODUCTX" }),
      f("type SERVIC", "MUST", "refuse", "type", { value: "SERVIC" }),
      f(
        "type service",
        "PROBE",
        "open",
        "type",
        { value: "service" },
        { keeps: (v) => v === "SERVICE", reading: (v) => show(v) },
      ),
      f(
        "type ' PRODUCT'",
        "PROBE",
        "open",
        "type",
        { value: " PRODUCT" },
        { keeps: (v) => v === "PRODUCT", reading: (v) => show(v) },
      ),
      f("taxable false", "MUST", "accept", "taxable", { value: false }),
      f("taxable 0", "MUST", "refuse", "taxable", { value: 0 }),
      f('taxable "false"', "MUST", "refuse", "taxable", { value: "false" }),
      f(
        "taxable null",
        "PROBE",
        "open",
        "taxable",
        { value: null },
        { keeps: (v) => v === true, reading: (v) => show(v) },
      ),
      ...[
        "0",
        "0.0",
        "0.00",
        "1.0",
        "0.01",
        "0.1",
        "7",
        "9.99",
        "19.95",
        "49.5",
        "99999.99",
        "123456.7891",
        "999999.9999",
        "0.0001",
      ].map((json) => price(json, "MUST", "accept", json)),
      ...["1234567.89", "99999999999.9999", "100000000000000000000"].map((json) =>
        price(`${json} (above 1 000 000)`, "PROBE", "open", json, exact(json)),
      ),
      ...["1e2", "1E2", "2.5e-3", "1.5E+1"].map((json) =>
        price(`${json} (exponent form)`, "PROBE", "open", json, exact(json)),
      ),
      ...["1234567890.123456", "123456789012.3456", "0.1234567890123456789"].map((json) =>
        price(`${json} (past 15 significant digits)`, "PROBE", "open", json, {
          keeps: () => true,
          reading: (v) => show(v),
        }),
      ),
      price("-0", "PROBE", "open", "-0", {
        keeps: (v) => v === "0.0000" || v === "-0.0000",
        reading: (v) => show(v),
      }),
      ...["-0.0001", "-1e-4", "-5"].map((json) => price(json, "MUST", "refuse", json)),
      ...['"10abc"', '"12,50"', '"NaN"', '"Infinity"', '"-1"'].map((json) =>
        price(`${json} (a string that is no price)`, "MUST", "refuse", json),
      ),
    ]);
  },
};

const inputs = [
  limitInput,
  beforeInput,
  filterInput,
  authorizationInput,
  acceptInput,
  contentTypeInput,
  contactFieldsInput,
  productFieldsInput,
];

export const coverageChecksAll: readonly Check[] = inputs.flatMap(coverageChecks);
