import { kitSpec } from "../spec/kit-spec.js";
import { describe, expect, it } from "vitest";
import { filterExpectation, filterProblems, matchesFilter } from "./filters.js";

const contact = (type: string) => ({ id: `c-${type}`, type });

describe("the kit's reading of the list filters", () => {
  it("lets a BOTH contact answer type=CLIENT and type=SUPPLIER, or not: the point is open", () => {
    expect(matchesFilter(kitSpec(), "contacts", "CLIENT", contact("BOTH"))).toBe(true);
    expect(matchesFilter(kitSpec(), "contacts", "SUPPLIER", contact("BOTH"))).toBe(true);
    expect(matchesFilter(kitSpec(), "contacts", "CLIENT", contact("SUPPLIER"))).toBe(false);
  });

  it("keeps type=BOTH to BOTH contacts under either reading", () => {
    expect(matchesFilter(kitSpec(), "contacts", "BOTH", contact("CLIENT"))).toBe(false);
    expect(matchesFilter(kitSpec(), "contacts", "BOTH", contact("BOTH"), "exact")).toBe(true);
  });

  it("reads the reference's answer exactly: type=CLIENT holds CLIENT contacts only", () => {
    expect(matchesFilter(kitSpec(), "contacts", "CLIENT", contact("BOTH"), "exact")).toBe(false);
    expect(
      filterProblems(kitSpec(), "contacts", "CLIENT", [contact("CLIENT"), contact("BOTH")], "exact"),
    ).toEqual(['"c-BOTH" has type "BOTH"']);
  });

  it("matches a status exactly, and says what an answer may hold", () => {
    expect(matchesFilter(kitSpec(), "invoices", "PAID", { status: "PAID" })).toBe(true);
    expect(matchesFilter(kitSpec(), "invoices", "PAID", { status: "paid" })).toBe(false);
    expect(filterExpectation(kitSpec(), "invoices", "PAID")).toBe("only status PAID");
    expect(filterExpectation(kitSpec(), "contacts", "CLIENT")).toBe("only type CLIENT or BOTH");
    expect(filterExpectation(kitSpec(), "contacts", "BOTH")).toBe("only type BOTH");
  });
});
