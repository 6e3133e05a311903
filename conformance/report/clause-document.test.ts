import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { main } from "../cli.js";
import { loadDefaultCatalogue } from "../index.js";
import { kitIdentity } from "../kit.js";
import { CLAUSES } from "../spec/clauses.js";
import type { Check } from "../types.js";
import { clauseCoverage, coverageCounts, renderClauseDocument } from "./clause-document.js";

const COMMITTED = new URL("../../docs/conformance-clauses.md", import.meta.url);

const check = (id: string, clause: Check["clause"], level: Check["level"]): Check => ({
  id,
  section: "§5 Authentication",
  clause,
  level,
  rule: "r",
  run: async () => {},
});

describe("the clause document", () => {
  it("lists every clause by section and number with the checks citing it and their level, and what no check covers", () => {
    const doc = renderClauseDocument(
      [check("auth.missing", ["§5.6", "§7.5"], "MUST"), check("auth.scheme", "§5.6", "PROBE")],
      kitIdentity(),
    );
    for (const c of CLAUSES) expect(doc).toContain(`| ${c.id} |`);
    expect(doc).toContain("`auth.missing` MUST<br>`auth.scheme` PROBE |");
    // The spec's words beside the kit's: a sentence as written, a table row's cells joined by ·.
    expect(doc).toContain(
      "| §5.6 | rule | “A token that is missing, invalid, expired or revoked gives 401 unauthorized. A valid token without the scope required by the endpoint gives 403 forbidden.” |",
    );
    expect(doc).toContain("| §8.2 | rule | “Page size (limit) · default 50, min 1, max 200” |");
    expect(doc).toContain("| §4 Pagination.4 | open point ([kit stance #10](kit-stance.md#gap-10)) |");
    expect(doc).toMatch(/^## §6 Events$/m);
    expect(doc).toContain("## Coverage\n\n2 of the 115 rules seen through the API have a check;");
    expect(doc).toContain("Rules seen through the API, without a check (113):");
    expect(doc).toContain("- §3 Token status.3: Contacts and products carry no status.");
    expect(doc).toContain(kitIdentity().spec.sha256);
  });

  it("is committed as docs/conformance-clauses.md, current with the catalogue (npm run clauses writes it)", async () => {
    const catalogue = await loadDefaultCatalogue();
    const committed = await readFile(COMMITTED, "utf8");
    expect(committed).toBe(renderClauseDocument(catalogue, kitIdentity()));
  });

  it("is what `conformance --list --format markdown` prints", async () => {
    let stdout = "";
    const code = await main(["node", "conformance", "--list", "--format", "markdown"], {
      stdout: (t) => void (stdout += t),
      stderr: () => {},
      setExitCode: () => {},
    });
    expect(code).toBe(0);
    expect(stdout).toBe(await readFile(COMMITTED, "utf8"));
  });

  it("is the one place that counts coverage: README and DECISIONS link to it and restate no figure", async () => {
    for (const file of ["README.md", "DECISIONS.md"]) {
      const text = await readFile(new URL(`../../${file}`, import.meta.url), "utf8");
      expect(text, file).toContain("(docs/conformance-clauses.md#coverage)");
      expect(text, file).not.toMatch(/\d+ of (the|all) \d+ (rules|clauses)/);
      expect(text, file).not.toMatch(/rules? (has|have) no check/);
    }
    expect(await readFile(COMMITTED, "utf8")).toMatch(/^## Coverage\n\n\d+ of the \d+ rules/m);
  });

  it("counts the shipped catalogue's coverage: every rule seen through the API but one has a check", async () => {
    const counts = coverageCounts(clauseCoverage(await loadDefaultCatalogue()));
    expect(counts.rules).toBe(115);
    expect(counts.rules - counts.rulesCovered).toBeLessThanOrEqual(1);
  });
});
