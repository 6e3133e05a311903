import { failureKey } from "../failures.js";
import type { Check, CheckContext, HttpExchange, Level } from "../types.js";
import type { ClauseRef } from "../spec/clauses.js";
import { fail, snippet } from "./assert.js";

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
 * target did with each open form. Both read one experiment (ctx.shared.coverage).
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
  /** The MUST check's rule: what every form must get. */
  rule: string;
  /** The PROBE companion's rule, when the input has open forms. */
  openRule?: string;
  writes?: boolean;
  /** Sends every form and judges each answer. */
  run(ctx: CheckContext): Promise<FormOutcome[]>;
}

/** A form's outcome: what it did, and the problem when `broken` names one. */
export const outcome = (
  what: string,
  level: FormLevel,
  did: string,
  problem?: FormProblem,
): FormOutcome => ({ what, level, did, ...(problem === undefined ? {} : { problem }) });

/** The two checks of an input: its MUST expectations and bounds, and the open forms' observations. */
export function coverageChecks(input: CoverageInput): Check[] {
  const outcomes = (ctx: CheckContext): Promise<FormOutcome[]> =>
    ctx.shared.coverage.get(input.id, () => input.run(ctx));
  const common = {
    section: input.section,
    clause: input.clause,
    ...(input.gap === undefined ? {} : { gap: input.gap }),
    ...(input.writes === undefined ? {} : { writes: input.writes }),
  };
  const must: Check = {
    ...common,
    id: input.id,
    level: "MUST",
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
      const listed = broken.map((o) => `${o.what} (${o.problem.actual})`);
      fail(
        `${broken.length} of ${all.length} forms broke what the spec expects of them: ${snippet(listed.join("; "), 900)}`,
        {
          key: failureKey(first.what, first.problem.kind),
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
