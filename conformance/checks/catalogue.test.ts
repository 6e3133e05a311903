import { describe, expect, it } from "vitest";
import { clauseById, clauseList, SECTION, SECTION_ORDER, SECTIONS } from "../spec/clauses.js";
import { FOUNDATION_RULES, FOUNDATIONS } from "../failures.js";
import { LEVELS } from "../types.js";
import { catalogue } from "./index.js";

/** spec-gaps.md rows whose kit stance is something other than "nothing". */
const GAPS_WITH_A_STANCE = [...range(3, 27), 29, ...range(31, 36)];

/** The sections of the spec that state rules (§6 Events states none). */
const RULE_SECTIONS = [
  SECTION.service,
  SECTION.resources,
  SECTION.states,
  SECTION.endpoints,
  SECTION.auth,
  SECTION.errors,
  SECTION.limits,
  SECTION.versioning,
];

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

describe("the check catalogue", () => {
  it("needs only checks of the catalogue that run before the check needing them", () => {
    const order = (id: string): number => catalogue.findIndex((c) => c.id === id);
    for (const c of catalogue) {
      for (const need of c.needs ?? []) {
        expect(order(need), `${c.id} needs ${need}`).toBeGreaterThanOrEqual(0);
        expect(order(need), `${c.id} needs ${need}`).toBeLessThan(order(c.id));
      }
    }
  });

  it("has unique ids of the form area.rule-name", () => {
    const ids = catalogue.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z0-9]+(\.[a-z0-9-]+)+$/);
  });

  it("gives every check a known section, a level and a rule", () => {
    for (const c of catalogue) {
      expect(SECTION_ORDER, c.id).toContain(c.section);
      expect(LEVELS, c.id).toContain(c.level);
      expect(c.rule.trim(), c.id).not.toBe("");
    }
  });

  it("names, for every check, clauses that exist in the clause table", () => {
    for (const c of catalogue) {
      const cited = clauseList(c.clause);
      expect(cited.length, c.id).toBeGreaterThan(0);
      for (const id of cited) expect(clauseById(id), `${c.id} cites ${id}`).toBeDefined();
      expect(new Set(cited).size, c.id).toBe(cited.length);
    }
  });

  it("cites, for every check, at least one clause of the section it reports under", () => {
    // The plan rule is only in §7's table (403 "plan insufficient"); the check reports with the token rules of §5.
    const elsewhere = new Set(["auth.plan"]);
    for (const c of catalogue.filter((x) => !elsewhere.has(x.id))) {
      const number = SECTIONS.find((s) => s.name === c.section)?.number;
      expect(
        clauseList(c.clause).some((id) => clauseById(id)?.section === number),
        c.id,
      ).toBe(true);
    }
  });

  it("names, for every foundation rule the assertions judge, checks of the catalogue that judge it alone", () => {
    const levels = new Map(catalogue.map((c) => [c.id, c.level]));
    for (const rule of FOUNDATION_RULES) {
      for (const id of FOUNDATIONS[rule].checks)
        expect(["MUST", "SHOULD"], `${rule}: ${id}`).toContain(levels.get(id));
    }
  });

  it("has at least one MUST check in every section that states rules", () => {
    for (const section of RULE_SECTIONS) {
      expect(
        catalogue.some((c) => c.section === section && c.level === "MUST"),
        section,
      ).toBe(true);
    }
  });

  it("takes a stance on every spec-gaps row that asks for one", () => {
    const referenced = new Set(catalogue.map((c) => c.gap));
    const missing = GAPS_WITH_A_STANCE.filter((g) => !referenced.has(g));
    expect(missing).toEqual([]);
  });

  it("cites only rows that exist", () => {
    for (const c of catalogue) if (c.gap !== undefined) expect(c.gap, c.id).toBeGreaterThanOrEqual(1);
    for (const c of catalogue) if (c.gap !== undefined) expect(c.gap, c.id).toBeLessThanOrEqual(36);
  });

  it("is in spec order, the final phase last with the rate-limit bursts before the run's judges", () => {
    const firstFinal = catalogue.findIndex((c) => c.phase === "final");
    expect(firstFinal).toBeGreaterThan(0);
    expect(catalogue.slice(firstFinal).every((c) => c.phase === "final")).toBe(true);
    const main = catalogue.slice(0, firstFinal).filter((c) => c.phase !== "coverage");
    const ranks = main.map((c) => SECTION_ORDER.indexOf(c.section));
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
    const final = catalogue.slice(firstFinal).map((c) => c.id);
    // The exact burst first, on a budget no other burst spent; what reads it; then the burst of refused
    // requests, on a token of its own.
    expect(final.slice(0, 5)).toEqual([
      "ratelimit.burst",
      "ratelimit.scope",
      "ratelimit.headers",
      "ratelimit.reference-headers",
      "ratelimit.counts-failures",
    ]);
    const judges = final.filter((id) => id.startsWith("run."));
    expect(final.slice(-judges.length)).toEqual(judges);
  });

  it("marks slow checks opt-in and keeps them in the final phase when they exhaust the limit", () => {
    for (const c of catalogue.filter((x) => x.slow === true)) expect(c.phase, c.id).toBe("final");
  });

  it("names REFERENCE checks as such, so that a report reader knows they are the reference's own answers", () => {
    for (const c of catalogue.filter((x) => x.level === "REFERENCE")) expect(c.id).toMatch(/\.reference-/);
  });
});
