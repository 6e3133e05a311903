import { inspect } from "node:util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ManualClock } from "../model/clock.js";
import type { Scope } from "../model/records.js";
import { TokenRegistry } from "./tokens.js";
import type { TokenView } from "./tokens.js";
import {
  base,
  BASE62,
  catchTokenError,
  fcParams,
  foreignToken,
  ID_RE,
  leakWindows,
  MINUTE,
  PREFIX,
  randomSeedArb,
  seededRandomBytes,
  setup,
  T0,
  TOKEN_RE,
} from "../test-support/tokens.js";

// The token registry: the tokens it issues and imports, what it never keeps, how it lists and shows them.

describe("token format", () => {
  it("issues the prefix, an underscore and 40 base62 chars, with a tok_ id of 16 base62 chars", () => {
    const { registry } = setup();
    const { token, view } = registry.create(base);
    expect(token).toMatch(TOKEN_RE);
    expect(view.id).toMatch(ID_RE);
    expect(registry.prefix).toBe(PREFIX);
  });

  it("issues unique tokens and ids over 5000 creations with the default random source", () => {
    const { registry } = setup();
    const tokens = new Set<string>();
    const ids = new Set<string>();
    for (let i = 0; i < 5000; i++) {
      const { token, view } = registry.create(base);
      expect(token).toMatch(TOKEN_RE);
      tokens.add(token);
      ids.add(view.id);
    }
    expect(tokens.size).toBe(5000);
    expect(ids.size).toBe(5000);
  });

  it("rejects bytes 248..255 instead of folding them onto the first chars", () => {
    // 255 and 248 would give BASE62[7] and BASE62[0] under a plain modulo; 61 and 123 both give "z".
    const pattern = [255, 248, 61, 123];
    const { registry } = setup({
      randomBytes: (n) => Uint8Array.from({ length: n }, (_, i) => pattern[i % 4] ?? 0),
    });
    const { token, view } = registry.create(base);
    expect(token).toBe(`${PREFIX}_${"z".repeat(40)}`);
    expect(view.id).toBe(`tok_${"z".repeat(16)}`);
  });

  it("spreads chars uniformly over the base62 alphabet (chi-square over 80 000 chars)", () => {
    const { registry } = setup();
    const counts = new Map<string, number>([...BASE62].map((c) => [c, 0]));
    for (let i = 0; i < 2000; i++) {
      for (const c of registry.create(base).token.slice(PREFIX.length + 1))
        counts.set(c, (counts.get(c) ?? 0) + 1);
    }
    const expected = 80_000 / 62;
    const chiSquare = [...counts.values()].reduce((sum, n) => sum + (n - expected) ** 2 / expected, 0);
    // 61 degrees of freedom: a fair source exceeds 150 with p < 1e-9; a modulo-biased one scores ~500.
    expect(chiSquare).toBeLessThan(150);
  });

  it("fails loudly rather than looping or reusing a token when the random source repeats itself", () => {
    const { registry } = setup({ randomBytes: (n) => new Uint8Array(n).fill(7) });
    registry.create(base);
    expect(() => registry.create(base)).toThrow(/random source/);
    expect(registry.list(base.organizationId)).toHaveLength(1);
  });

  it.each(["", "1acct", "ac_ct", "ac-ct", "acct_", " acct", "accté"])("refuses the prefix %j", (prefix) => {
    const err = catchTokenError(() => new TokenRegistry({ prefix, clock: new ManualClock(T0) }));
    expect(err.reason).toBe("invalid");
    expect(err.field).toBe("prefix");
  });

  it.each(["A", "acct", "Acct2", "x9"])("accepts the prefix %j", (prefix) => {
    const { registry } = setup({ prefix });
    expect(registry.create(base).token.startsWith(`${prefix}_`)).toBe(true);
  });
});

describe("the clear token is not retained", () => {
  it("appears in no view, listing, serialisation or inspection of the registry", () => {
    const { registry } = setup();
    const { token, view } = registry.create(base);
    registry.recordUse(view.id);
    const surfaces = [
      JSON.stringify(view),
      JSON.stringify(registry.get(view.id)),
      JSON.stringify(registry.list(base.organizationId)),
      JSON.stringify(registry.lookup(token)),
      inspect(structuredClone(view), { depth: Infinity }),
      inspect(registry, { showHidden: true, depth: Infinity }),
      JSON.stringify(registry),
    ];
    for (const surface of surfaces) {
      for (const window of leakWindows(token)) expect(surface).not.toContain(window);
    }
    expect(Object.values(view)).not.toContain(token);
  });

  it("exposes exactly the TokenView fields: no token, secret or hash field", () => {
    const { registry } = setup();
    const { view } = registry.create(base);
    expect(Object.keys(view).sort()).toEqual(
      [
        "id",
        "name",
        "organizationId",
        "scopes",
        "createdAt",
        "expiresAt",
        "revokedAt",
        "lastUsedAt",
        "requestCount",
        "status",
        "hint",
      ].sort(),
    );
  });

  it("hints with the prefix and the last 4 chars only, never more of the secret", () => {
    fc.assert(
      fc.property(randomSeedArb, (seed) => {
        const { registry } = setup({ randomBytes: seededRandomBytes(seed) });
        const { token, view } = registry.create(base);
        expect(view.hint).toBe(`${PREFIX}_…${token.slice(-4)}`);
        for (const window of leakWindows(token)) expect(JSON.stringify(view)).not.toContain(window);
      }),
      fcParams,
    );
  });
});

describe("import", () => {
  const fixture = `${PREFIX}_${"F".repeat(32)}`;

  it("seeds a fixture token that then resolves, with the given fields", () => {
    const { registry } = setup();
    const createdAt = new Date("2024-06-01T00:00:00.000Z");
    const view = registry.import({ ...base, token: fixture, expiresAt: null, createdAt });
    expect(view).toMatchObject({ createdAt, status: "Active", hint: `${PREFIX}_…FFFF`, revokedAt: null });
    expect(view.id).toMatch(ID_RE);
    expect(registry.lookup(fixture)).toEqual({ ok: true, token: view });
  });

  it.each([
    ["another prefix", `other_${"F".repeat(32)}`],
    ["31 chars after the prefix", `${PREFIX}_${"F".repeat(31)}`],
    ["a non-base62 char", `${PREFIX}_${"F".repeat(31)}-`],
    ["no underscore", `${PREFIX}${"F".repeat(32)}`],
    ["an empty string", ""],
    ["surrounding spaces", ` ${fixture} `],
  ])("rejects a token with %s as invalid on token", (_case, token) => {
    const { registry } = setup();
    expect(catchTokenError(() => registry.import({ ...base, token, expiresAt: null }))).toMatchObject({
      reason: "invalid",
      field: "token",
    });
  });

  it("rejects a token imported twice", () => {
    const { registry } = setup();
    registry.import({ ...base, token: fixture, expiresAt: null });
    const again = () =>
      registry.import({ ...base, organizationId: "org_boreal", token: fixture, expiresAt: null });
    expect(catchTokenError(again)).toMatchObject({ reason: "invalid", field: "token" });
  });

  it("accepts an expiry in the past, for expired fixtures", () => {
    const { registry } = setup();
    const view = registry.import({ ...base, token: fixture, expiresAt: new Date(T0.getTime() - MINUTE) });
    expect(view.status).toBe("Expired");
  });

  it("imports revoked at createdAt when given, else at now", () => {
    const { registry } = setup();
    const createdAt = new Date("2024-06-01T00:00:00.000Z");
    const dated = registry.import({ ...base, token: fixture, expiresAt: null, revoked: true, createdAt });
    const undated = registry.import({ ...base, token: foreignToken(), expiresAt: null, revoked: true });
    expect(dated).toMatchObject({ status: "Revoked", revokedAt: createdAt });
    expect(undated).toMatchObject({ status: "Revoked", revokedAt: T0, createdAt: T0 });
  });

  it("accepts a fixture without scopes (a token that meets 403 everywhere) but not an unknown scope", () => {
    const { registry } = setup();
    expect(registry.import({ ...base, token: fixture, scopes: [], expiresAt: null }).scopes).toEqual([]);
    const bad = () =>
      registry.import({ ...base, token: foreignToken(), scopes: ["nope" as Scope], expiresAt: null });
    expect(catchTokenError(bad)).toMatchObject({ reason: "invalid", field: "scopes" });
  });
});

describe("list", () => {
  it("returns only the organization's tokens, newest first", () => {
    const { clock, registry } = setup();
    const a = registry.create(base);
    clock.advance(1);
    registry.create({ ...base, organizationId: "org_boreal" });
    clock.advance(1);
    const c = registry.create(base);
    expect(registry.list(base.organizationId).map((v) => v.id)).toEqual([c.view.id, a.view.id]);
    expect(registry.list("org_none")).toEqual([]);
  });

  it("orders by createdAt desc then id desc, whatever the order of creation", () => {
    const entryArb = fc.record({
      minutesAgo: fc.integer({ min: 0, max: 5 }),
      org: fc.constantFrom("a", "b"),
    });
    fc.assert(
      fc.property(randomSeedArb, fc.array(entryArb, { maxLength: 30 }), (seed, entries) => {
        const { registry } = setup({ randomBytes: seededRandomBytes(seed) });
        const imported = entries.map((e, i) =>
          registry.import({
            ...base,
            organizationId: e.org,
            token: `${PREFIX}_${String(i).padStart(32, "0")}`,
            expiresAt: null,
            createdAt: new Date(T0.getTime() - e.minutesAgo * MINUTE),
          }),
        );
        const expected = imported
          .filter((v) => v.organizationId === "a")
          .sort((x, y) => y.createdAt.getTime() - x.createdAt.getTime() || (x.id < y.id ? 1 : -1));
        expect(registry.list("a")).toEqual(expected);
      }),
      fcParams,
    );
  });
});

describe("views", () => {
  it("are fresh copies: mutating one changes nothing inside the registry", () => {
    const { registry } = setup();
    const { view } = registry.create({ ...base, expiresAt: new Date(T0.getTime() + MINUTE) });
    // A deep copy: if views shared state with the registry, `before` would change along with them.
    const before = structuredClone(registry.get(view.id));
    const mutable: TokenView = view;
    mutable.scopes.push("expenses:write");
    mutable.createdAt.setTime(0);
    mutable.expiresAt?.setTime(0);
    mutable.name = "changed";
    mutable.requestCount = 99;
    mutable.status = "Revoked";
    for (const listed of registry.list(base.organizationId)) listed.scopes.length = 0;
    expect(registry.get(view.id)).toEqual(before);
    expect(before?.scopes).toEqual(["contacts:read"]);
  });

  it("are undefined for an unknown id", () => {
    const { registry } = setup();
    expect(registry.get("tok_nope")).toBeUndefined();
  });
});
