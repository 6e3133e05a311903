import type { KitIdentity } from "../kit.js";
import { CLAUSES, clauseList, isTestable, quoteText, SECTIONS, type Clause } from "../spec/clauses.js";
import { stanceAnchor } from "../spec/stance.js";
import { LEVELS, type Check } from "../types.js";
import type { Spec } from "../../spec/schema.js";
import { defaultSpec } from "../../spec/variant.js";
import { CLAUSE_READS, valuesAt } from "../spec/reads.js";

/**
 * The clause document (`conformance --list --format markdown`), for spec authors and certifiers, as
 * Kubernetes publishes its conformance document: every clause of the spec by section and number, the
 * spec's own words it rests on, what it says in the kit's words, the checks that hold a target to it
 * with their level, and the clauses no check covers. An open point links to the kit's stance on it
 * (docs/kit-stance.md, beside it). `docs/conformance-clauses.md` is the committed copy; a test keeps
 * it current.
 */

/** The kit's stance document, relative to the clause document (both in docs/). */
export const STANCE_DOCUMENT = "kit-stance.md";

/** `[kit stance #8](kit-stance.md#gap-8)`: a link to the row of the stance document. */
export const stanceLink = (gap: number, text = `kit stance #${gap}`): string =>
  `[${text}](${STANCE_DOCUMENT}#${stanceAnchor(gap)})`;

export interface ClauseCoverage {
  clause: Clause;
  checks: readonly Check[];
}

export function clauseCoverage(catalogue: readonly Check[]): ClauseCoverage[] {
  return CLAUSES.map((clause) => ({
    clause,
    checks: catalogue.filter((c) => clauseList(c.clause).includes(clause.id)),
  }));
}

export interface CoverageCounts {
  clauses: number;
  covered: number;
  rules: number;
  rulesCovered: number;
}

export function coverageCounts(rows: readonly ClauseCoverage[]): CoverageCounts {
  const rules = rows.filter((r) => isTestable(r.clause));
  return {
    clauses: rows.length,
    covered: rows.filter((r) => r.checks.length > 0).length,
    rules: rules.length,
    rulesCovered: rules.filter((r) => r.checks.length > 0).length,
  };
}

const KIND: Record<Clause["kind"], string> = {
  rule: "rule",
  unseen: "rule, not seen through the API",
  open: "open point",
  informative: "informative",
};

const cell = (text: string): string => text.replace(/\|/g, "\\|").replace(/\s*\n\s*/g, " ");

const checksCell = (checks: readonly Check[]): string =>
  checks.length === 0
    ? "—"
    : [...checks]
        .sort((a, b) => LEVELS.indexOf(a.level) - LEVELS.indexOf(b.level) || a.id.localeCompare(b.id))
        .map(
          (c) =>
            `\`${c.id}\` ${c.level}${c.slow === true ? " (slow)" : ""}${c.gap === undefined ? "" : ` (${stanceLink(c.gap, `#${c.gap}`)})`}`,
        )
        .join("<br>");

const kindCell = (c: Clause): string =>
  c.gap === undefined ? KIND[c.kind] : `${KIND[c.kind]} (${stanceLink(c.gap)})`;

/** The spec's words, quoted: a table row keeps its cells, shown without the outer bars. */
const quoteCell = (c: Clause): string => `“${cell(quoteText(c.quote))}”`;

/** A value of the spec file as a reader takes it in: a list joined, an error answer as `409 conflict`. */
export function showSpecValue(value: unknown): string {
  if (Array.isArray(value)) return value.map(String).join(", ");
  if (typeof value === "object" && value !== null) {
    const { status, code } = value as { status?: unknown; code?: unknown };
    if (typeof status === "number" && typeof code === "string") return `${status} ${code}`;
    return JSON.stringify(value);
  }
  return value === undefined ? "(absent)" : String(value);
}

const isErrorAnswer = (v: object): boolean => "status" in v && "code" in v;

/** A value split into the values a reader compares: an object's keys one by one, an error answer whole. */
function leaves(v: { path: string; value: unknown }): Array<{ path: string; value: unknown }> {
  const { path, value } = v;
  if (typeof value !== "object" || value === null || Array.isArray(value) || isErrorAnswer(value)) return [v];
  return Object.entries(value).flatMap(([k, inner]) => leaves({ path: `${path}.${k}`, value: inner }));
}

/**
 * What a clause's words become under a spec variant: the quote stays the spec's sentence, and each value
 * of the file the clause reads that the variant changes is said beside it (the spec as written's value
 * after it). Nothing under the default file.
 */
export function underThisSpec(clause: Clause, spec: Spec): string[] {
  const base = defaultSpec();
  return (CLAUSE_READS[clause.id as keyof typeof CLAUSE_READS] ?? []).flatMap((key) => {
    const written = new Map(
      valuesAt(base, key)
        .flatMap(leaves)
        .map((v) => [v.path, v.value]),
    );
    const now = valuesAt(spec, key).flatMap(leaves);
    const paths = [...new Set([...written.keys(), ...now.map((v) => v.path)])];
    return paths.flatMap((path) => {
      const value = now.find((v) => v.path === path)?.value;
      const before = written.get(path);
      if (JSON.stringify(value) === JSON.stringify(before)) return [];
      return [`\`${path}\` = ${showSpecValue(value)} (as written: ${showSpecValue(before)})`];
    });
  });
}

export function renderClauseDocument(
  catalogue: readonly Check[],
  kit: KitIdentity,
  spec: Spec = defaultSpec(),
): string {
  const rows = clauseCoverage(catalogue);
  const variant = spec !== defaultSpec();
  const n = coverageCounts(rows);
  const out: string[] = [
    "# Conformance clauses of the accounting API",
    "",
    "<!-- Written by `npx conformance --list --format markdown`; a test keeps this copy current. -->",
    "",
    `Every clause of the spec (\`${kit.spec.file}\`, SHA-256 \`${kit.spec.sha256}\`) by section and number,`,
    `what it says in the kit's words, and the checks of the conformance kit (${kit.name} ${kit.version})`,
    "that hold an implementation to it, with their level: **MUST** fails a run; **SHOULD** fails it with",
    "`--strict`; **REFERENCE** is the reference server's answer to an open point (`--profile reference`);",
    '**PROBE** shows what an implementation does on an open point and never fails. "The spec\'s words" quotes',
    "the sentence, bullet or table row (its cells joined by ·) each clause rests on. Where the spec leaves a",
    `point open, the kit's stance on it is in [${STANCE_DOCUMENT}](${STANCE_DOCUMENT}) (its rows are numbered`,
    'as the spec-gaps guide numbers the open points). Clause ids are explained in DECISIONS.md ("Clause ids").',
    "",
    ...(variant
      ? [
          `**Under a spec variant** (${kit.spec.title ?? spec.title}): each clause quotes the spec as written; where`,
          "the variant changes a value the clause rests on, its row says **Under this spec:** with the variant's",
          "value and the one as written. `conformance spec-diff` lists the clauses and checks a variant changes.",
          "",
        ]
      : []),
    "## Coverage",
    "",
    `${n.rulesCovered} of the ${n.rules} rules seen through the API have a check; ` +
      `${n.covered} of all ${n.clauses} clauses are cited by one, ${n.clauses - n.covered} by none ` +
      "(listed at the end).",
    "",
  ];
  for (const section of SECTIONS) {
    out.push(
      `## ${section.name}`,
      "",
      "| Clause | Kind | The spec's words | In the kit's words | Checks (level) |",
      "|---|---|---|---|---|",
    );
    for (const { clause, checks } of rows.filter((r) => r.clause.section === section.number)) {
      const under = underThisSpec(clause, spec);
      const says =
        under.length === 0
          ? cell(clause.says)
          : `${cell(clause.says)}<br>**Under this spec:** ${under.map(cell).join("; ")}`;
      out.push(
        `| ${clause.id} | ${kindCell(clause)} | ${quoteCell(clause)} | ${says} | ${checksCell(checks)} |`,
      );
    }
    out.push("");
  }
  const added = Object.entries(spec.fields).flatMap(([resource, fields]) =>
    Object.entries(fields).map(([name, f]) => `- \`fields.${resource}.${name}\`: ${JSON.stringify(f)}`),
  );
  if (added.length > 0) {
    out.push(
      "## Fields this spec adds",
      "",
      "No clause of the spec as written names them; the checks of §4's list and creation rows (§4.5–§4.8) hold a",
      "target to them (served in the list with their type, taken by the creation body, their rules enforced):",
      "",
      ...added,
      "",
    );
  }
  const uncovered = rows.filter((r) => r.checks.length === 0);
  const rules = uncovered.filter((r) => isTestable(r.clause));
  const others = uncovered.filter((r) => !isTestable(r.clause));
  out.push("## Clauses no check covers", "");
  out.push(
    rules.length === 0
      ? "Every rule seen through the API has a check."
      : `Rules seen through the API, without a check (${rules.length}):`,
    "",
  );
  for (const { clause } of rules) out.push(`- ${clause.id}: ${clause.says}`);
  if (rules.length > 0) out.push("");
  out.push(
    `Clauses no check can hold a target to, or open points not probed (${others.length}): rules seen only ` +
      "in the web interface or at rest, informative text, and open points:",
    "",
  );
  for (const { clause } of others) out.push(`- ${clause.id} (${kindCell(clause)}): ${clause.says}`);
  return `${out.join("\n")}\n`;
}
