import { describe, expect, it } from "vitest";
import { testManifest } from "../test-support/local.js";
import { BurstReservation, ManifestTokenPool, describeNeed, reserveForBurst } from "./tokens.js";
import type { TokenNeed } from "../types.js";

class Skipped extends Error {}
const skip = (reason: string): never => {
  throw new Skipped(reason);
};

const label = (pool: ManifestTokenPool, need: TokenNeed): string | undefined => pool.find(need)?.label;

describe("ManifestTokenPool", () => {
  const pool = new ManifestTokenPool(testManifest(), { skip });

  it("finds one token per kind, in manifest order", () => {
    expect(label(pool, { kind: "full" })).toBe("a-full");
    expect(label(pool, { kind: "full", org: 1 })).toBe("b-full");
    expect(label(pool, { kind: "no-scope" })).toBe("a-none");
    expect(label(pool, { kind: "revoked" })).toBe("a-revoked");
    expect(label(pool, { kind: "expired" })).toBe("a-expired");
    expect(label(pool, { kind: "no-api-plan" })).toBe("starter-full");
  });

  it("matches scopes as a subset, or exactly when asked", () => {
    expect(label(pool, { kind: "scopes", scopes: ["contacts:read"] })).toBe("a-full");
    expect(label(pool, { kind: "scopes", scopes: ["contacts:read"], exact: true })).toBe("a-contacts-read");
    expect(
      label(pool, { kind: "scopes", scopes: ["contacts:read", "products:read"], exact: true }),
    ).toBeUndefined();
  });

  it("never hands out a token of an organization without API access as a usable one", () => {
    const manifest = testManifest();
    const onlyStarter = {
      ...manifest,
      tokens: manifest.tokens.filter((t) => t.organization === "org_starter"),
    };
    const p = new ManifestTokenPool(onlyStarter, { skip });
    expect(p.find({ kind: "full" })).toBeUndefined();
    expect(p.find({ kind: "scopes", scopes: [] })).toBeUndefined();
    expect(label(p, { kind: "no-api-plan" })).toBe("starter-full");
  });

  it("treats an active token whose expiry instant has passed as unusable", () => {
    const manifest = testManifest();
    const stale = {
      ...manifest,
      tokens: manifest.tokens.map((t) =>
        t.label === "a-full" ? { ...t, expiresAt: "2025-01-01T00:00:00.000Z" } : t,
      ),
    };
    const later = new ManifestTokenPool(stale, { skip, now: () => new Date("2025-06-01T00:00:00Z") });
    expect(label(later, { kind: "full" })).toBe("b-full");
    const earlier = new ManifestTokenPool(stale, { skip, now: () => new Date("2024-06-01T00:00:00Z") });
    expect(label(earlier, { kind: "full" })).toBe("a-full");
  });

  it("needs a second organization with a full token for org 1", () => {
    const manifest = testManifest();
    const one = { ...manifest, tokens: manifest.tokens.filter((t) => t.organization !== "org_b") };
    expect(new ManifestTokenPool(one, { skip }).find({ kind: "full", org: 1 })).toBeUndefined();
  });

  it("skips through the runner's signal with a reason naming the missing kind", () => {
    const manifest = testManifest();
    const p = new ManifestTokenPool({ ...manifest, tokens: manifest.tokens.slice(0, 1) }, { skip });
    expect(() => p.get({ kind: "revoked" })).toThrow(new Skipped("the token manifest has no revoked token"));
    expect(() => p.get({ kind: "no-api-plan" })).toThrow(
      /no active token of an organization whose plan has no API access/,
    );
    expect(p.get({ kind: "full" }).label).toBe("a-full");
    expect(describeNeed({ kind: "scopes", scopes: ["contacts:read"], exact: true })).toBe(
      "active token with exactly the scopes contacts:read in an organization with API access",
    );
  });
});

describe("the token kept for the rate-limit burst", () => {
  const base = testManifest();
  const full = base.tokens[0];
  if (full === undefined) throw new Error("no full token");
  const spare = { ...full, label: "a-full-2", token: "tst_aFullSpare0002" };
  const withSpare = { ...base, tokens: [...base.tokens, spare] };
  const now = Date.parse("2026-01-01");

  it("is the last of the largest class of interchangeable readers in the first organization, when it has another member", () => {
    expect(reserveForBurst(withSpare, now)?.label).toBe("a-full-2");
    // Alone in its class, no token is kept: the burst then waits for a window without requests.
    expect(reserveForBurst(base, now)).toBeUndefined();
    // A token expiring within a day is no stand-in.
    const soon = { ...spare, expiresAt: new Date(now + 3_600_000).toISOString() };
    expect(reserveForBurst({ ...base, tokens: [...base.tokens, soon] }, now)).toBeUndefined();
  });

  it("is handed to no need another token meets while it is kept, and is handed once released", () => {
    const reservation = new BurstReservation(reserveForBurst(withSpare, now));
    const pool = new ManifestTokenPool(
      { ...withSpare, tokens: [spare, ...base.tokens] },
      { skip, now: () => new Date(now), reservation },
    );
    expect(pool.reserved?.label).toBe("a-full-2");
    expect(label(pool, { kind: "full" })).toBe("a-full");
    expect(label(pool, { kind: "scopes", scopes: ["products:write"] })).toBe("a-full");
    reservation.release();
    expect(pool.reserved).toBeUndefined();
    expect(label(pool, { kind: "full" })).toBe("a-full-2");
  });
});
