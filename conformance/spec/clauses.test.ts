import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { specFile } from "../test-support/spec-file.js";
import {
  CLAUSE_PARTS,
  CLAUSES,
  clauseById,
  clauseRange,
  formatClauses,
  isTestable,
  SECTION,
  SECTIONS,
  sectionHasRules,
} from "./clauses.js";

describe("the clause table", () => {
  it("gives every clause a unique id", () => {
    const ids = CLAUSES.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("covers every section of the spec, §1 to §9", () => {
    expect(SECTIONS.map((s) => s.number)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    for (const s of SECTIONS)
      expect(
        CLAUSES.some((c) => c.section === s.number),
        s.name,
      ).toBe(true);
  });

  it("names each section with its number and title", () => {
    for (const s of SECTIONS) expect(s.name).toBe(`§${s.number} ${s.title}`);
    expect(SECTIONS.map((s) => s.name)).toEqual(Object.values(SECTION));
  });

  it("is in the spec's order, each part's clauses numbered 1, 2, 3… without a gap", () => {
    const order = CLAUSES.map((c) => CLAUSE_PARTS.indexOf(c.part));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    for (const part of CLAUSE_PARTS) {
      const numbers = CLAUSES.filter((c) => c.part === part).map((c) => c.number);
      expect(numbers, part).toEqual(numbers.map((_, i) => i + 1));
    }
  });

  it("keeps each clause in the section its id names", () => {
    for (const c of CLAUSES) expect(c.id.startsWith(`§${c.section}`), c.id).toBe(true);
  });

  it("says each clause in one short sentence", () => {
    for (const c of CLAUSES) {
      expect(c.says, c.id).toMatch(/^\S.*[.)]$/);
      expect(c.says.length, c.id).toBeLessThanOrEqual(180);
    }
  });

  it("quotes, for each clause, the spec's own words it rests on, found exactly in the spec text", () => {
    const file = specFile();
    expect(file, "no shared/spec/accounting-api.md above the project; set SPEC_FILE").toBeDefined();
    const spec = readFileSync(file ?? "", "utf8");
    const missing = CLAUSES.filter((c) => c.quote.trim() === "" || !spec.includes(c.quote)).map((c) => c.id);
    expect(missing).toEqual([]);
    // A table row is quoted whole, bullets and sentences without their list marker.
    expect(clauseById("§8.2")?.quote).toBe("| Page size (limit) | default 50, min 1, max 200 |");
    expect(clauseById("§5.6")?.quote).toMatch(/^A token that is missing, invalid, expired or revoked/);
  });

  it("counts as testable only the rules seen through the API; §6 states none", () => {
    expect(CLAUSES.filter(isTestable).every((c) => c.kind === "rule")).toBe(true);
    expect(SECTIONS.filter((s) => !sectionHasRules(s.number)).map((s) => s.number)).toEqual([6]);
  });

  it("ties an open point only to a spec-gaps row that exists", () => {
    for (const c of CLAUSES.filter((x) => x.gap !== undefined)) {
      expect(c.kind, c.id).toBe("open");
      expect(c.gap, c.id).toBeGreaterThanOrEqual(1);
      expect(c.gap, c.id).toBeLessThanOrEqual(36);
    }
  });

  it("finds clauses by id, and a part's clauses by range", () => {
    expect(clauseById("§5.6")?.part).toBe("§5");
    expect(clauseById("§4 Pagination.2")).toMatchObject({ section: 4, part: "§4 Pagination", number: 2 });
    expect(clauseById("§5.99")).toBeUndefined();
    expect(clauseRange("§8", 6, 9)).toEqual(["§8.6", "§8.7", "§8.8", "§8.9"]);
  });

  it("writes consecutive clauses of a part as a range, others one by one", () => {
    expect(formatClauses(["§4 Products body.1", "§4 Products body.2", "§4 Products body.3", "§7.4"])).toBe(
      "§4 Products body.1–3, §7.4",
    );
    expect(formatClauses(["§8.1", "§7.8", "§7.9"])).toBe("§8.1, §7.8–9");
    expect(formatClauses(["§9.1", "§99.1"])).toBe("§9.1, §99.1");
  });
});
