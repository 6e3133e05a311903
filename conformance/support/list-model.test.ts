import { describe, expect, it } from "vitest";
import type { JsonObject } from "./assert.js";
import { kitSpec } from "../spec/kit-spec.js";
import { judgeRead as judgeProblems, type ListModel, type ReadQuery } from "./list-model.js";

/** Two organizations with contacts and invoices known in full; invoices' `before` supported. */
function model(): ListModel {
  const contacts = (org: string, ids: string[], type = "CLIENT"): Map<string, JsonObject> =>
    new Map(
      ids.map((id, i) => [
        id,
        { id, type, name: `${org} ${id}`, createdAt: `2026-01-0${i + 1}T00:00:00.000Z` },
      ]),
    );
  const empty = () => ({ byId: new Map<string, JsonObject>(), complete: true, created: [] });
  const m: ListModel = {
    spec: kitSpec(),
    orgs: [0, 1],
    tokens: { 0: undefined, 1: undefined },
    lists: {
      0: {
        contacts: { byId: contacts("a", ["1", "2", "3"]), complete: true, created: [] },
        products: empty(),
        invoices: empty(),
        expenses: empty(),
      },
      1: {
        contacts: { byId: contacts("b", ["1", "9"]), complete: true, created: [] },
        products: empty(),
        invoices: empty(),
        expenses: empty(),
      },
    },
    before: { contacts: "supported", products: "supported", invoices: "supported", expenses: "supported" },
  };
  m.lists[0].contacts.byId.set("4", {
    id: "4",
    type: "BOTH",
    name: "a 4",
    createdAt: "2026-01-04T00:00:00.000Z",
  });
  return m;
}

/** The problems' texts, as a failure shows them. */
const judgeRead = (m: ListModel, q: ReadQuery, items: readonly JsonObject[]): string[] =>
  judgeProblems(m, q, items).map((p) => p.text);

const own = (m: ListModel, ...ids: string[]): JsonObject[] =>
  ids.map((id) => m.lists[0].contacts.byId.get(id) ?? {}).reverse();

describe("judgeRead", () => {
  it("passes the organization's own records, as many as it holds up to the limit", () => {
    const m = model();
    expect(judgeRead(m, { org: 0, list: "contacts" }, own(m, "1", "2", "3", "4"))).toEqual([]);
    expect(judgeRead(m, { org: 0, list: "contacts", limit: "2" }, own(m, "3", "4"))).toEqual([]);
  });

  it("accepts either reading of type=CLIENT (with or without BOTH), and counts by it", () => {
    const m = model();
    expect(judgeRead(m, { org: 0, list: "contacts", filter: "CLIENT" }, own(m, "1", "2", "3"))).toEqual([]);
    expect(judgeRead(m, { org: 0, list: "contacts", filter: "CLIENT" }, own(m, "1", "2", "3", "4"))).toEqual(
      [],
    );
    expect(judgeRead(m, { org: 0, list: "contacts", filter: "CLIENT" }, own(m, "1", "2"))[0]).toMatch(
      /2 items, where the organization holds 3 to 4 matching/,
    );
  });

  it("names another organization's record, matched as a whole, even when the ids coincide", () => {
    const m = model();
    const theirs = m.lists[1].contacts.byId.get("9") ?? {};
    expect(judgeRead(m, { org: 0, list: "contacts" }, [...own(m, "1", "2", "3", "4"), theirs])).toContain(
      '"9" is organization 1\'s (§1)',
    );
    // Organization 1's record "1" is not organization 0's "1": same id, other content, no leak.
    expect(judgeRead(m, { org: 0, list: "contacts" }, own(m, "1", "2", "3", "4"))).toEqual([]);
  });

  it("names a record the organization does not hold, when the model knows the whole list", () => {
    const m = model();
    const stranger = { id: "77", type: "CLIENT", name: "x", createdAt: "2026-01-05T00:00:00.000Z" };
    expect(judgeRead(m, { org: 0, list: "contacts" }, [stranger, ...own(m, "1", "2", "3")])).toContain(
      '"77" is no record of organization 0\'s contacts (§1)',
    );
  });

  it("judges before as strictly earlier when it is supported, and ignores it when the target does", () => {
    const m = model();
    const before = "2026-01-03T00:00:00.000Z";
    expect(judgeRead(m, { org: 0, list: "contacts", before }, own(m, "1", "2"))).toEqual([]);
    expect(judgeRead(m, { org: 0, list: "contacts", before }, own(m, "1", "2", "3"))).toContain(
      '"3" is not strictly before 2026-01-03T00:00:00.000Z (spec-gaps #8)',
    );
    m.before.contacts = "ignored";
    expect(judgeRead(m, { org: 0, list: "contacts", before }, own(m, "1", "2", "3", "4"))).toEqual([]);
  });

  it("names a page longer than the limit, and a created record read back otherwise than sent", () => {
    const m = model();
    expect(judgeRead(m, { org: 0, list: "contacts", limit: "1" }, own(m, "3", "4"))[0]).toMatch(
      /more than the 1 asked/,
    );
    const exchange = {
      request: { method: "POST", path: "/api/v1/contacts" },
      status: 201,
      headers: {},
      text: "",
      json: undefined,
      curl: "",
    };
    m.lists[0].contacts.created.push({
      sent: { type: "CLIENT", name: "a 3", address: "x".repeat(500) },
      key: "a 3",
      exchange,
    });
    const problems = judgeRead(m, { org: 0, list: "contacts" }, own(m, "1", "2", "3", "4"));
    expect(
      problems.some((p) => /^"3", created by the kit, reads back otherwise: address: sent "x{10}/.test(p)),
    ).toBe(true);
  });

  it("says what kind of departure each problem is, for a failure's key", () => {
    const m = model();
    const theirs = m.lists[1].contacts.byId.get("9") ?? {};
    const kinds = judgeProblems(m, { org: 0, list: "contacts", limit: "4" }, [
      ...own(m, "1", "2", "3", "4"),
      theirs,
    ]).map((p) => p.kind);
    expect(new Set(kinds)).toEqual(new Set(["longer than the limit", "another organization's", "count"]));
  });
});
