import { describe, expect, it } from "vitest";
import { ManualClock } from "../model/clock.js";
import { SteerableClock } from "./clock.js";
import { loadFixtures, type FixtureSet } from "./fixtures/load.js";
import { defaultFixturesDir } from "./fixtures/paths.js";
import { SandboxLimitError, Sandboxes } from "./sandboxes.js";
import { ReferenceState } from "./state.js";

// The registry of sandboxes, below HTTP: what a sandbox copies, what it shares (nothing), how it is
// found from a token, and its bounds on the base clock.

const NOW = "2026-11-20T12:00:00.000Z";

async function setup(options: { max?: number; idleMs?: number } = {}) {
  const base = new ManualClock(NOW);
  const fixtures = await loadFixtures(defaultFixturesDir(), { now: base.now() });
  const main = new ReferenceState({
    fixtures,
    tokenPrefix: "acct",
    clock: new SteerableClock(base),
    rateLimit: { limit: 100, windowMs: 60_000 },
  });
  const sandboxes = new Sandboxes({
    fixtures,
    tokenPrefix: "acct",
    baseClock: base,
    defaultStart: () => main.clock.started(),
    rateLimit: { limit: 100, windowMs: 60_000 },
    latency: null,
    max: options.max,
    idleMs: options.idleMs,
  });
  return { base, fixtures, main, sandboxes };
}

const allIds = (state: ReferenceState): string[] => {
  const r = state.store.records();
  return [
    ...r.organizations.map((o) => o.id),
    ...r.accounts.map((a) => a.id),
    ...r.contacts.map((c) => c.id),
    ...r.products.map((p) => p.id),
    ...r.invoices.map((i) => i.id),
    ...r.expenses.map((e) => e.id),
  ];
};

describe("a sandbox's copy of the fixtures", () => {
  it("renames every organization and record, shares no id with the default state or another sandbox", async () => {
    const { main, sandboxes } = await setup();
    const a = sandboxes.create();
    const b = sandboxes.create();
    const ids = [allIds(main), allIds(a.state), allIds(b.state)];
    expect(ids[1]).toHaveLength(ids[0]?.length ?? -1);
    const seen = new Set(ids.flat());
    expect(seen.size).toBe(ids.flat().length);
    expect(a.organizations).toEqual({
      org_lumiere: `org_lumiere_${a.id}`,
      org_boreal: `org_boreal_${a.id}`,
      org_petitpas: `org_petitpas_${a.id}`,
    });
  });

  it("keeps the references between records: an invoice's contact, an expense's contact and account", async () => {
    const { sandboxes, fixtures } = await setup();
    const { state, organizations } = sandboxes.create();
    const records = state.store.records();
    for (const invoice of records.invoices) {
      const contact = state.store.contact(invoice.organizationId, invoice.contact.id);
      expect(contact?.name).toBe(invoice.contact.name);
    }
    for (const expense of records.expenses) {
      expect(state.store.contact(expense.organizationId, expense.contact.id)?.name).toBe(
        expense.contact.name,
      );
      expect(records.accounts.find((a) => a.id === expense.account.id)?.code).toBe(expense.account.code);
    }
    // The same records otherwise: what a client reads differs only by ids.
    const lumiere = organizations.org_lumiere ?? "";
    const served = state.store
      .listContacts(lumiere, { limit: 200 })
      .map((c) => ({ ...c, id: "", organizationId: "" }));
    const original = fixtures.contacts
      .filter((c) => c.organizationId === "org_lumiere")
      .map((c) => ({ ...c, id: "", organizationId: "" }));
    expect(new Set(served.map((c) => JSON.stringify(c)))).toEqual(
      new Set(original.map((c) => JSON.stringify(c))),
    );
  });

  it("gives every fixture token a new secret, with its label, scopes, state and organization", async () => {
    const { main, sandboxes } = await setup();
    const { state, organizations } = sandboxes.create();
    expect(state.manifest.tokens.map((t) => t.label)).toEqual(main.manifest.tokens.map((t) => t.label));
    for (const [i, t] of state.manifest.tokens.entries()) {
      const original = main.manifest.tokens[i];
      expect(t.token).toMatch(/^acct_[0-9A-Za-z]{40}$/);
      expect(t.token).not.toBe(original?.token);
      expect(t).toMatchObject({
        scopes: original?.scopes,
        state: original?.state,
        organization: organizations[original?.organization ?? ""],
      });
      expect(main.tokens.lookup(t.token)).toMatchObject({ ok: false, reason: "unknown" });
    }
    expect(state.manifest.organizations.map((o) => o.id)).toEqual(Object.values(organizations));
  });

  it("starts its clock at the default state's start, or where told, and counts its expiring token from there", async () => {
    const { base, main, sandboxes } = await setup();
    main.clock.advance(86_400_000);
    base.advance(5_000);
    const plain = sandboxes.create();
    expect(plain.state.clock.now().toISOString()).toBe("2026-11-20T12:00:05.000Z");
    const later = sandboxes.create({ now: new Date("2031-01-01T00:00:00.000Z") });
    expect(later.state.clock.now().toISOString()).toBe("2031-01-01T00:00:00.000Z");
    const expiring = later.state.manifest.tokens.find((t) => t.label === "lumiere-expires-tomorrow");
    expect(expiring?.expiresAt).toBe("2031-01-02T00:00:00.000Z");
  });
});

describe("finding a request's sandbox from its token", () => {
  it("finds the sandbox of each of its tokens, whatever their state, and nothing for other text", async () => {
    const { main, sandboxes } = await setup();
    const a = sandboxes.create();
    const b = sandboxes.create();
    for (const sandbox of [a, b]) {
      for (const t of sandbox.state.manifest.tokens)
        expect(sandboxes.stateForToken(t.token)).toBe(sandbox.state);
    }
    for (const t of main.manifest.tokens) expect(sandboxes.stateForToken(t.token)).toBeUndefined();
    expect(sandboxes.stateForToken(`acct_${"Q".repeat(40)}`)).toBeUndefined();
    expect(sandboxes.stateForToken("not a token")).toBeUndefined();
  });

  it("finds a token made inside a sandbox after its creation", async () => {
    const { sandboxes } = await setup();
    const a = sandboxes.create();
    const made = a.state.tokens.create({
      organizationId: a.organizations.org_boreal ?? "",
      name: "made later",
      scopes: ["contacts:read"],
    });
    expect(sandboxes.stateForToken(made.token)).toBe(a.state);
  });

  it("forgets a deleted sandbox's tokens at once", async () => {
    const { sandboxes } = await setup();
    const a = sandboxes.create();
    const token = a.state.manifest.tokens[0]?.token ?? "";
    expect(sandboxes.delete(a.id)).toBe(true);
    expect(sandboxes.stateForToken(token)).toBeUndefined();
    expect(sandboxes.use(a.id)).toBeUndefined();
    expect(sandboxes.delete(a.id)).toBe(false);
  });
});

describe("bounds, on the base clock", () => {
  it("refuses a sandbox past the maximum, saying when the least recently used one ends", async () => {
    const { base, sandboxes } = await setup({ max: 2, idleMs: 60_000 });
    const first = sandboxes.create();
    base.advance(10_000);
    sandboxes.create();
    base.advance(5_000);
    const error = (() => {
      try {
        sandboxes.create();
      } catch (err) {
        return err;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(SandboxLimitError);
    expect(error).toMatchObject({ max: 2, retryAfterMs: 45_000 });
    sandboxes.delete(first.id);
    expect(() => sandboxes.create()).not.toThrow();
  });

  it("ends a sandbox idle for the idle time; a request or a control call keeps it alive", async () => {
    const { base, sandboxes } = await setup({ idleMs: 60_000 });
    const kept = sandboxes.create();
    const idle = sandboxes.create();
    base.advance(59_999);
    expect(sandboxes.stateForToken(kept.state.manifest.tokens[0]?.token ?? "")).toBe(kept.state);
    base.advance(1);
    expect(sandboxes.list().map((s) => s.id)).toEqual([kept.id]);
    expect(sandboxes.use(idle.id)).toBeUndefined();
    base.advance(59_998);
    expect(sandboxes.use(kept.id)).toBe(kept);
    base.advance(59_999);
    expect(sandboxes.size).toBe(1);
    base.advance(1);
    expect(sandboxes.stateForToken(kept.state.manifest.tokens[0]?.token ?? "")).toBeUndefined();
    expect(sandboxes.size).toBe(0);
  });

  it("measures idle time on the base clock, not on the sandbox's own clock", async () => {
    const { sandboxes } = await setup({ idleMs: 60_000 });
    const a = sandboxes.create();
    a.state.clock.advance(365 * 86_400_000);
    expect(sandboxes.list()).toEqual([a]);
  });
});

describe("what a sandbox costs the fixtures", () => {
  it("shares the fixtures' dates and amounts, never their records", async () => {
    const { fixtures, sandboxes } = await setup();
    const copy: FixtureSet = sandboxes.create().state.fixtures;
    expect(copy.invoices[0]).not.toBe(fixtures.invoices[0]);
    expect(copy.invoices[0]?.total).toBe(fixtures.invoices[0]?.total);
    expect(copy.invoices[0]?.contact).not.toBe(fixtures.invoices[0]?.contact);
  });
});
