import { FOUNDATIONS, type Cause, type FoundationRule } from "../failures.js";
import type { CheckResult } from "../types.js";

/**
 * One failure per defect. A check whose failure names a foundation rule as its cause (failures.ts: the
 * envelopes, JSON answers, CORS…) failed because an answer it read broke that rule, not its own. When a
 * check that judges that rule on its own failed too, the defect is that check's: the other is listed
 * under it as blocked by it. When none did (it did not run, or passed), the checks failing on the same
 * foundation rule are one defect, headed by the first of them. Every other failure is its own defect.
 */

export interface Defect {
  /** The failure shown in full: the foundation's own check, or the first failure of the defect. */
  head: CheckResult;
  /** The foundation rule the defect broke, when it is one (the first its failures name). */
  rule?: FoundationRule | undefined;
  /** The other failures of the defect, in run order: listed under the head, not as failures of their own. */
  blocked: CheckResult[];
  /** Whether any of its failures fails the run. */
  failsRun: boolean;
}

const isFoundation = (cause: Cause): cause is FoundationRule => cause !== "rule" && cause !== "error";

/**
 * The check that owns a foundation rule's defect in this run: the first check, in FOUNDATIONS' order,
 * that judges the rule on its own and failed by its own verdict (its cause its own rule, or that rule).
 */
function ownerOf(rule: FoundationRule, results: readonly CheckResult[]): CheckResult | undefined {
  for (const id of FOUNDATIONS[rule].checks) {
    const owner = results.find((r) => r.id === id);
    const cause = owner?.failure?.cause;
    if (owner?.outcome === "fail" && (cause === "rule" || cause === rule)) return owner;
  }
  return undefined;
}

/** The check a failure is blocked by: the owner of its cause (above), when that is another check. */
export function blockerOf(result: CheckResult, results: readonly CheckResult[]): string | undefined {
  const cause = result.failure?.cause;
  if (result.outcome !== "fail" || cause === undefined || !isFoundation(cause)) return undefined;
  const owner = ownerOf(cause, results);
  return owner === undefined || owner.id === result.id ? undefined : owner.id;
}

/** The results with `failure.blockedBy` set on every failure that is blocked by another check's. */
export function attributeBlockers(results: readonly CheckResult[]): CheckResult[] {
  return results.map((r) => {
    const blockedBy = blockerOf(r, results);
    if (r.failure === undefined || blockedBy === undefined) return r;
    return { ...r, failure: { ...r.failure, blockedBy } };
  });
}

/**
 * The run's failures grouped by defect: defects with failures under them first, then the others, each
 * group in run order. `include` picks the failures considered (default: every failure); a failure
 * whose owner is not among them is grouped with the others failing on the same rule.
 */
export function defectsOf(
  results: readonly CheckResult[],
  include: (r: CheckResult) => boolean = () => true,
): Defect[] {
  const failures = results.filter((r) => r.outcome === "fail" && include(r));
  const groups = new Map<string, Defect>();
  for (const r of failures) {
    const cause = r.failure?.cause;
    const rule = cause !== undefined && isFoundation(cause) ? cause : undefined;
    const owner = rule === undefined ? undefined : ownerOf(rule, failures);
    const head = owner ?? r;
    // A foundation's own check and the failures it blocks are one group, whichever came first.
    const key = owner !== undefined || rule === undefined ? `check ${head.id}` : `rule ${rule}`;
    let defect = groups.get(key);
    if (defect === undefined) {
      defect = { head, rule, blocked: [], failsRun: head.failsRun };
      groups.set(key, defect);
    }
    defect.rule ??= rule;
    if (r !== defect.head) defect.blocked.push(r);
    if (r.failsRun) defect.failsRun = true;
  }
  const defects = [...groups.values()];
  return [...defects.filter((d) => d.blocked.length > 0), ...defects.filter((d) => d.blocked.length === 0)];
}
