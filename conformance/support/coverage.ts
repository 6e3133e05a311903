import type { ManifestToken } from "../manifest-schema.js";
import { failureKey, type Cause } from "../failures.js";
import type { Check, CheckContext, HttpExchange, HttpRequest, Level } from "../types.js";
import type { ClauseRef } from "../spec/clauses.js";
import { type KitSpec, type ListName } from "../spec/kit-spec.js";
import {
  answer,
  fail,
  is2xx,
  envelopeCauseOf,
  isEnvelopeProblem,
  isRecord,
  readErrorEnvelope,
  requestLine,
  snippet,
  statusAndCode,
  statusCause,
  type JsonObject,
} from "./assert.js";
import { itemsOf, listRequest, reader, tokenHolding, unique } from "./data.js";
import { memoSlot } from "./shared.js";

/**
 * The coverage phase's machinery (Schemathesis has such a phase): every input of §4, §5 and §8 sent
 * in each legal form the spec allows and in the illegal neighbours of each, every form with a stated
 * expectation. A form is
 * - MUST: the spec (or spec-gaps' MUST stance) says what the target does with it: a legal form is
 *   taken and read back as sent, an illegal one refused (and never stored);
 * - PROBE: the spec leaves it open (spec-gaps): any reasonable answer passes and is shown, within
 *   bounds every answer keeps (a refusal is §7's 400, what is stored is still a valid value).
 * One input gives two checks: `coverage.<input>` (MUST) judges every form, and fails on the MUST
 * expectations and on the bounds of the open ones; `coverage.<input>-open` (PROBE) shows what the
 * target did with each open form. Both read one experiment (OUTCOMES, in the run's shared store).
 */

export type FormLevel = Extract<Level, "MUST" | "PROBE">;

/** What one form of an input came to. */
export interface FormOutcome {
  /** The input and the form, as a report line names it: `Content-Type: Application/JSON`. */
  what: string;
  level: FormLevel;
  /** What the target did, without the run's values (an observation's key): `refused (400)`. */
  did: string;
  /** The expectation the answer broke, if it broke one. */
  problem?: FormProblem | undefined;
}

export interface FormProblem {
  /** What broke, without the run's values: the failure's key (the form's `what` leads it). */
  kind: string;
  /**
   * The foundation rule (failures.ts) the problem breaks, when it is not the input's own: the list a
   * form is read back from answered otherwise (list.largest-page). Default: from the envelope.
   */
  cause?: Cause | undefined;
  expected: string;
  actual: string;
  /** The requests that show it, in order (a creation, then the read that shows what was stored). */
  evidence: ReadonlyArray<HttpExchange | undefined>;
}

export interface CoverageInput {
  /** `coverage.<input>`; the PROBE companion is `<id>-open`. */
  id: string;
  section: string;
  clause: ClauseRef;
  gap?: number;
  /** The judging check's rule: what every form must get. */
  rule: string;
  /**
   * The judging check's level: MUST (default) where a sentence of the spec says what its forms get;
   * SHOULD where it follows from the spec without being said (the issue 29 audit, DECISIONS.md).
   */
  level?: "MUST" | "SHOULD";
  /** The PROBE companion's rule, when the input has open forms. */
  openRule?: string;
  writes?: boolean;
  /** Sends every form and judges each answer. */
  run(ctx: CheckContext): Promise<FormOutcome[]>;
}

/** The forms of each list, read as organization 0 with the list's reader token: every outcome, in order. */
export async function forEachList(
  ctx: CheckContext,
  forms: (list: ListName, token: ManifestToken) => Promise<FormOutcome[]>,
): Promise<FormOutcome[]> {
  const out: FormOutcome[] = [];
  for (const list of ["contacts", "invoices", "products", "expenses"] as const)
    out.push(...(await forms(list, reader(ctx, list))));
  return out;
}

/** A form's outcome: what it did, and the problem when `broken` names one. */
export const outcome = (what: string, level: FormLevel, did: string, problem?: FormProblem): FormOutcome => ({
  what,
  level,
  did,
  ...(problem === undefined ? {} : { problem }),
});

/** The two checks of an input: its MUST expectations and bounds, and the open forms' observations. */
/** Each input's forms, judged by its MUST check and shown by its PROBE, by input id. */
const OUTCOMES = memoSlot<string, FormOutcome[]>("the coverage phase's outcomes");

export function coverageChecks(input: CoverageInput): Check[] {
  const outcomes = (ctx: CheckContext): Promise<FormOutcome[]> =>
    ctx.shared.get(OUTCOMES).get(input.id, () => input.run(ctx));
  const common = {
    section: input.section,
    clause: input.clause,
    ...(input.gap === undefined ? {} : { gap: input.gap }),
    ...(input.writes === undefined ? {} : { writes: input.writes }),
  };
  const must: Check = {
    ...common,
    id: input.id,
    level: input.level ?? "MUST",
    rule: input.rule,
    async run(ctx) {
      const all = await outcomes(ctx);
      const broken = all.filter((o): o is FormOutcome & { problem: FormProblem } => o.problem !== undefined);
      const first = broken[0];
      if (first === undefined) {
        const open = all.filter((o) => o.level === "PROBE").length;
        ctx.observe(
          "every form as expected",
          `${all.length - open} forms met their MUST; ${open} open forms kept within bounds.`,
        );
        return;
      }
      const listed = broken.map((o) => `${o.what} (${snippet(o.problem.actual, 80)})`);
      // Every broken form an error answer whose envelope alone is wrong: the envelope's defect, then.
      const causes = new Set(
        broken.map(
          (o) =>
            o.problem.cause ??
            o.problem.evidence
              .map((ex) => (ex === undefined ? undefined : envelopeCauseOf(ex)))
              .find((c) => c !== undefined),
        ),
      );
      const [cause] = causes;
      fail(
        `${broken.length} of ${all.length} forms broke what the spec expects of them: ${snippet(listed.join("; "), 900)}`,
        {
          key: failureKey(first.what, first.problem.kind),
          ...(causes.size === 1 && cause !== undefined ? { cause } : {}),
          expected: `${first.what}: ${first.problem.expected}`,
          actual: first.problem.actual,
          exchange: first.problem.evidence.filter((ex) => ex !== undefined).at(-1),
          evidence: first.problem.evidence,
        },
      );
    },
  };
  if (input.openRule === undefined) return [must];
  const probe: Check = {
    ...common,
    id: `${input.id}-open`,
    level: "PROBE",
    rule: input.openRule,
    async run(ctx) {
      for (const o of (await outcomes(ctx)).filter((x) => x.level === "PROBE")) {
        ctx.observe(`${o.what}: ${o.did}`, `${o.what}: ${o.did}.`);
      }
    },
  };
  return [must, probe];
}

/**
 * `prefix` followed by repeats of `unit` up to exactly `length` code points, never ending in white
 * space (outer white space is a form of its own, whose reading is open: spec-gaps #17).
 */
export function padWith(prefix: string, length: number, unit: string): string {
  const chars = [...prefix];
  const fill = [...unit];
  for (let i = 0; chars.length < length; i += 1) chars.push(fill[i % fill.length] ?? "x");
  const out = chars.slice(0, length);
  if (/\s/.test(out[out.length - 1] ?? "")) out[out.length - 1] = "x";
  return out.join("");
}

// ---- what the forms of every input share -----------------------------------------------------------

export const show = (value: unknown): string => (value === undefined ? "absent" : JSON.stringify(value));

/** A refusal as §7 writes it: 400 invalid_request in the error envelope. */
export function isRefusal(spec: KitSpec, ex: HttpExchange): boolean {
  const read = readErrorEnvelope(ex.json);
  const { status, code } = spec.ERRORS.invalidRequest;
  return ex.status === status && !isEnvelopeProblem(read) && read.code === code;
}

export const problem = (
  kind: string,
  expected: string,
  actual: string,
  ...evidence: Array<HttpExchange | undefined>
): FormProblem => ({ kind, expected, actual, evidence });

/** A problem whose rule is a foundation's (failures.ts), not the input's own: a list it could not read. */
export const withCause = (cause: Cause, p: FormProblem): FormProblem =>
  cause === "rule" ? p : { ...p, cause };

/** A list's largest page as read: its items, and whether it could be read at all and holds the whole list. */
export interface PlainPage {
  ex: HttpExchange;
  /** The page's items; none when it could not be read. */
  items: JsonObject[];
  /** The page was read (200, a list of objects). */
  read: boolean;
  /** The page was read and is shorter than a full page: it is the whole list. */
  complete: boolean;
}

/** The list's largest page now, read with a token holding exactly its read scope where there is one. */
export async function plainPage(ctx: CheckContext, list: ListName, token: ManifestToken): Promise<PlainPage> {
  const ex = await ctx.http.send(listRequest(ctx, list, token, { limit: String(ctx.spec.MAX.pageMax) }));
  const items = itemsOf(ex);
  return {
    ex,
    items: items ?? [],
    read: items !== undefined,
    complete: items !== undefined && items.length < ctx.spec.MAX.pageMax,
  };
}

export const ids = (items: readonly JsonObject[]): string => JSON.stringify(items.map((i) => i.id).sort());

// ---- bodies: forms of a POST body, sent, read back and judged ------------------------------------------

/** One form of a POST body. */
export interface BodyForm {
  what: string;
  level: FormLevel;
  list: "contacts" | "products";
  /** The body as sent: JSON text, so that a number is written exactly. */
  text: string;
  contentType?: string;
  /** A refusal other than §7's 400 the spec allows for this form (415 for a media type: spec-gaps #13). */
  alsoRefusedWith?: number;
  /** MUST be taken and read back, MUST be refused (and never stored), or open (either, within bounds). */
  expect: "accept" | "refuse" | "open";
  /** The field the form is about, and what it must read back as when taken. */
  field: string;
  stored: unknown;
  /** Whether a value read back is one the form allows (default: `stored` exactly). */
  keeps?: (value: unknown, stored: unknown) => boolean;
  /** Names a value read back in an observation, without the run's values (default: "as sent" or "otherwise"). */
  reading?: (value: unknown, stored: unknown) => string;
  /** A text only this form's record carries in its name (contacts) or sku (products). */
  tag: string;
}

/** Sends every form, reads each list once, and judges each form on its answer and what was stored. */
export async function runBodies(ctx: CheckContext, forms: readonly BodyForm[]): Promise<FormOutcome[]> {
  const sent: HttpExchange[] = [];
  for (const form of forms) {
    sent.push(
      await ctx.http.send({
        method: "POST",
        path: ctx.spec.LISTS[form.list].path,
        // Spread where the budgets have room: the answer depends only on holding the scope.
        auth: tokenHolding(ctx, `${form.list}:write`),
        headers: { "Content-Type": form.contentType ?? "application/json" },
        rawBody: form.text,
      } satisfies HttpRequest),
    );
  }
  const reads = new Map<string, PlainPage>();
  for (const list of new Set(forms.map((f) => f.list)))
    reads.set(list, await plainPage(ctx, list, reader(ctx, list)));
  return forms.map((form, i) => judgeBody(ctx.spec, form, sent[i], reads.get(form.list)));
}

/** One form's verdict, from its creation's answer and the list read after every form was sent. */
export function judgeBody(
  spec: KitSpec,
  form: BodyForm,
  ex: HttpExchange | undefined,
  read: PlainPage | undefined,
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
      // Never the value itself by default: an observation's key must not carry the run's marker.
      form.reading?.(v, form.stored) ?? (v === form.stored ? "as sent" : "otherwise");
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
      if (item === undefined && read?.read === false) {
        // Taken, and not read back: the list read answered otherwise. Said as seen, never as "not listed".
        return outcome(
          what,
          form.level,
          "accepted, not read back",
          withCause(
            statusCause(read.ex, [200]),
            problem(
              "not read back",
              `the record in the list (${requestLine(read.ex.request)} answering 200)`,
              `the list could not be read: ${answer(read.ex)}`,
              ex,
              read.ex,
            ),
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
    const envelope = readErrorEnvelope(ex.json);
    const refused =
      isRefusal(spec, ex) || (ex.status === form.alsoRefusedWith && !isEnvelopeProblem(envelope));
    if (refused) {
      const did = `refused (${ex.status})`;
      if (item !== undefined)
        return outcome(
          what,
          form.level,
          "refused, yet stored",
          problem("refused, yet stored", "nothing stored", `listed: ${show(item[form.field])}`, ex, read?.ex),
        );
      return form.expect === "accept"
        ? outcome(what, form.level, did, problem("refused", "accepted (2xx)", answer(ex), ex))
        : outcome(what, form.level, did);
    }
    return outcome(
      what,
      form.level,
      statusAndCode(ex),
      problem(
        `status ${ex.status}`,
        form.expect === "accept"
          ? "accepted (2xx)"
          : `400 invalid_request${form.alsoRefusedWith === undefined ? "" : ` (or ${form.alsoRefusedWith})`}`,
        answer(ex),
        ex,
      ),
    );
  }
}

/** Builds forms of one list, each with a tag of its own in its name (contacts) or sku (products). */
export function formMaker(ctx: CheckContext, list: "contacts" | "products") {
  return (
    what: string,
    level: FormLevel,
    expect: BodyForm["expect"],
    field: string,
    /** The field's value as JSON text (a number written exactly), or a value to stringify. */
    value: { json: string } | { value: unknown } | undefined,
    extra: Partial<Pick<BodyForm, "stored" | "keeps" | "reading" | "contentType" | "alsoRefusedWith">> & {
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
        ? { type: JSON.stringify(ctx.spec.SAMPLE.contactType), name: JSON.stringify(tag) }
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
      ...(extra.alsoRefusedWith === undefined ? {} : { alsoRefusedWith: extra.alsoRefusedWith }),
    };
  };
}

export const codePoints = (s: unknown): number => (typeof s === "string" ? [...s].length : Number.NaN);

/**
 * Outer white space: kept, or trimmed, never anything else (spec-gaps #17 leaves which open); kept
 * only while the value stays within `max` characters.
 */
export const keptOrTrimmed =
  (max = Number.POSITIVE_INFINITY) =>
  (v: unknown, sent: unknown): boolean =>
    typeof sent === "string" && ((v === sent && codePoints(v) <= max) || v === sent.trim());
export const trimReading = (v: unknown, sent: unknown): string =>
  v === sent ? "as sent" : typeof sent === "string" && v === sent.trim() ? "trimmed" : "otherwise";

/** A line break kept, or turned into a space or a comma: the same text either way. */
export const sameText = (v: unknown, sent: unknown): boolean =>
  typeof v === "string" &&
  typeof sent === "string" &&
  v.replace(/[\s,]+/g, " ").trim() === sent.replace(/[\s,]+/g, " ").trim();

/** Nothing stored for a null: absent, null or empty, never "None" or "null". */
export const nothing = (v: unknown): boolean => v === undefined || v === null || v === "";
