import type { KitIdentity } from "../kit.js";
import { STANCES, stanceAnchor } from "../spec/stance.js";
import { LEVELS, type Check } from "../types.js";

/**
 * The kit's stance document (`conformance --list --format stance`): for each point the spec leaves
 * open, what an implementation may do and still pass, what fails it, and the checks and clauses that
 * take their stance from it. `docs/kit-stance.md` is the committed copy, shipped beside the clause
 * document, whose open points and checks link to its rows; a test keeps it current.
 */
export function renderStanceDocument(catalogue: readonly Check[], kit: KitIdentity): string {
  const out: string[] = [
    "# The conformance kit's stance on the spec's open points",
    "",
    "<!-- Written by `npx conformance --list --format stance`; a test keeps this copy current. -->",
    "",
    `Where the spec (\`${kit.spec.file}\`) says "not shown", or leaves a point to the implementation, the`,
    `conformance kit (${kit.name} ${kit.version}) must not fail an implementation for a reasonable answer, and`,
    "must still catch a real violation. Each row below says, in the kit's words, what it holds an",
    "implementation to on one such point in the default `spec` profile (**MUST** fails a run, **SHOULD**",
    "fails it with `--strict`) and what it only shows (**PROBE**, never failing). Rows are numbered as the",
    "spec-gaps guide the project was given numbers the open points; checks and clauses cite them by that",
    "number. The reference server's own answers, checked only with `--profile reference` (**REFERENCE**),",
    "are in DECISIONS.md. Each clause is in [conformance-clauses.md](conformance-clauses.md).",
    "",
  ];
  for (const s of STANCES) {
    const checks = catalogue
      .filter((c) => c.gap === s.gap)
      .sort((a, b) => LEVELS.indexOf(a.level) - LEVELS.indexOf(b.level) || a.id.localeCompare(b.id));
    out.push(
      `## <a id="${stanceAnchor(s.gap)}"></a>#${s.gap} ${s.point}`,
      "",
      `Where the spec leaves it open: ${s.where}.`,
      "",
      s.stance,
      "",
      checks.length === 0
        ? "Checks: none take their stance from this row."
        : `Checks: ${checks.map((c) => `\`${c.id}\` ${c.level}`).join(", ")}.`,
      "",
    );
  }
  return `${out.join("\n").trimEnd()}\n`;
}
