import { inspect } from "node:util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ManualClock } from "../model/clock.js";
import { SCOPES } from "../model/records.js";
import type { Scope } from "../model/records.js";
import { creationProblems, TokenError, TokenRegistry } from "./tokens.js";
import type { TokenStatus, TokenView } from "./tokens.js";

import {
  base,
  BASE62,
  catchTokenError,
  expiryOffsetArb,
  fcParams,
  foreignToken,
  ID_RE,
  leakWindows,
  MINUTE,
  nameArb,
  PREFIX,
  randomSeedArb,
  scopeSetArb,
  seededRandomBytes,
  setup,
  T0,
  TOKEN_RE,
} from "../test-support/tokens.js";

// --- tests -------------------------------------------------------------------------------------------

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

describe("status", () => {
  it.each<{ expiresIn: number | null; revoked: boolean; status: TokenStatus }>([
    { expiresIn: null, revoked: false, status: "Active" },
    { expiresIn: 1, revoked: false, status: "Active" },
    { expiresIn: 0, revoked: false, status: "Expired" },
    { expiresIn: -1, revoked: false, status: "Expired" },
    { expiresIn: null, revoked: true, status: "Revoked" },
    { expiresIn: 1, revoked: true, status: "Revoked" },
    { expiresIn: 0, revoked: true, status: "Revoked" },
    { expiresIn: -1, revoked: true, status: "Revoked" },
  ])(
    "is $status with expiresAt at now + $expiresIn ms and revoked $revoked",
    ({ expiresIn, revoked, status }) => {
      const { registry } = setup();
      const view = registry.import({
        ...base,
        token: foreignToken(),
        expiresAt: expiresIn === null ? null : new Date(T0.getTime() + expiresIn),
        revoked,
      });
      expect(view.status).toBe(status);
      expect(registry.get(view.id)?.status).toBe(status);
    },
  );

  it("moves from Active to Expired as the clock reaches expiresAt, without any write", () => {
    const { clock, registry } = setup();
    const { view } = registry.create({ ...base, expiresAt: new Date(T0.getTime() + MINUTE) });
    expect(view.status).toBe("Active");
    clock.advance(MINUTE - 1);
    expect(registry.get(view.id)?.status).toBe("Active");
    clock.advance(1);
    expect(registry.get(view.id)?.status).toBe("Expired");
  });

  it("follows the model Revoked > Expired (expiresAt <= now) > Active over any history", () => {
    const stepArb = fc.oneof(
      fc.record({ op: fc.constant("advance" as const), ms: fc.integer({ min: 0, max: 10 * MINUTE }) }),
      fc.record({ op: fc.constant("revoke" as const) }),
      fc.record({ op: fc.constant("use" as const) }),
    );
    fc.assert(
      fc.property(expiryOffsetArb, fc.array(stepArb, { maxLength: 20 }), (expiresIn, steps) => {
        const { clock, registry } = setup({ randomBytes: seededRandomBytes(1) });
        const expiresAt = expiresIn === null ? null : T0.getTime() + expiresIn;
        const { token, view } = registry.create({
          ...base,
          expiresAt: expiresAt === null ? null : new Date(expiresAt),
        });
        let revokedAt: number | null = null;
        let uses = 0;
        for (const step of steps) {
          if (step.op === "advance") clock.advance(step.ms);
          else if (step.op === "revoke") {
            registry.revoke(view.id);
            revokedAt ??= clock.now().getTime();
          } else {
            registry.recordUse(view.id);
            uses++;
          }
          const now = clock.now().getTime();
          const status: TokenStatus =
            revokedAt !== null ? "Revoked" : expiresAt !== null && expiresAt <= now ? "Expired" : "Active";
          const current = registry.get(view.id);
          expect(current).toMatchObject({ status, requestCount: uses });
          expect(current?.revokedAt?.getTime() ?? null).toBe(revokedAt);
          const resolution = registry.lookup(token);
          expect(resolution.ok ? "Active" : resolution.reason).toBe(
            status === "Active" ? "Active" : status.toLowerCase(),
          );
        }
      }),
      fcParams,
    );
  });
});

describe("revoke", () => {
  it("takes effect immediately: the same instant the token no longer resolves", () => {
    const { registry } = setup();
    const { token, view } = registry.create(base);
    expect(registry.lookup(token).ok).toBe(true);
    const revoked = registry.revoke(view.id);
    expect(revoked).toMatchObject({ status: "Revoked", revokedAt: T0 });
    expect(registry.lookup(token)).toEqual({ ok: false, reason: "revoked", tokenId: view.id });
  });

  it("is irreversible: the token stays revoked however much time passes", () => {
    const { clock, registry } = setup();
    const { token, view } = registry.create(base);
    registry.revoke(view.id);
    clock.advance(365 * 24 * 60 * MINUTE);
    expect(registry.get(view.id)?.status).toBe("Revoked");
    expect(registry.lookup(token)).toMatchObject({ ok: false, reason: "revoked" });
  });

  it("is idempotent: a second revoke returns the view unchanged and keeps the first revokedAt", () => {
    const { clock, registry } = setup();
    const { view } = registry.create(base);
    const first = registry.revoke(view.id);
    clock.advance(MINUTE);
    const second = registry.revoke(view.id);
    expect(second).toEqual(first);
    expect(second.revokedAt).toEqual(T0);
  });

  it("applies to an expired token, which becomes Revoked", () => {
    const { clock, registry } = setup();
    const { token, view } = registry.create({ ...base, expiresAt: new Date(T0.getTime() + MINUTE) });
    clock.advance(2 * MINUTE);
    expect(registry.get(view.id)?.status).toBe("Expired");
    const revoked = registry.revoke(view.id);
    expect(revoked).toMatchObject({ status: "Revoked", revokedAt: clock.now() });
    expect(registry.lookup(token)).toMatchObject({ reason: "revoked" });
  });

  it("leaves the organization's other tokens active", () => {
    const { registry } = setup();
    const kept = registry.create(base);
    const gone = registry.create(base);
    registry.revoke(gone.view.id);
    expect(registry.lookup(kept.token).ok).toBe(true);
  });

  it("refuses an unknown id with not_found", () => {
    const { registry } = setup();
    expect(catchTokenError(() => registry.revoke("tok_nope")).reason).toBe("not_found");
  });
});

describe("recordUse", () => {
  it("starts a token at zero requests and no last use", () => {
    const { registry } = setup();
    expect(registry.create(base).view).toMatchObject({ requestCount: 0, lastUsedAt: null });
  });

  it("counts each use and stamps it with the clock's now", () => {
    const { clock, registry } = setup();
    const { view } = registry.create(base);
    registry.recordUse(view.id);
    clock.advance(MINUTE);
    registry.recordUse(view.id);
    clock.advance(MINUTE);
    registry.recordUse(view.id);
    expect(registry.get(view.id)).toMatchObject({
      requestCount: 3,
      lastUsedAt: new Date(T0.getTime() + 2 * MINUTE),
    });
  });

  it("counts only the token it is given", () => {
    const { registry } = setup();
    const used = registry.create(base);
    const idle = registry.create(base);
    registry.recordUse(used.view.id);
    expect(registry.get(idle.view.id)).toMatchObject({ requestCount: 0, lastUsedAt: null });
  });

  it("refuses an unknown id with not_found", () => {
    const { registry } = setup();
    expect(catchTokenError(() => registry.recordUse("tok_nope")).reason).toBe("not_found");
  });
});

describe("create validation", () => {
  it.each<{ case: string; patch: Record<string, unknown>; field: string }>([
    { case: "an empty name", patch: { name: "" }, field: "name" },
    { case: "a blank name", patch: { name: " \t\n " }, field: "name" },
    { case: "a name of 101 code points", patch: { name: "a".repeat(101) }, field: "name" },
    { case: "a name of 101 astral code points", patch: { name: "😀".repeat(101) }, field: "name" },
    { case: "no scopes", patch: { scopes: [] }, field: "scopes" },
    { case: "an unknown scope", patch: { scopes: ["contacts:read", "contacts:delete"] }, field: "scopes" },
    { case: "a past expiry", patch: { expiresAt: new Date(T0.getTime() - 1) }, field: "expiresAt" },
    { case: "an expiry at exactly now", patch: { expiresAt: new Date(T0) }, field: "expiresAt" },
    { case: "an invalid date", patch: { expiresAt: new Date("nope") }, field: "expiresAt" },
    { case: "a blank organization id", patch: { organizationId: " " }, field: "organizationId" },
  ])("rejects $case as invalid on $field, creating nothing", ({ patch, field }) => {
    const { registry } = setup();
    const input = { ...base, ...patch } as Parameters<TokenRegistry["create"]>[0];
    const err = catchTokenError(() => registry.create(input));
    expect(err).toMatchObject({ reason: "invalid", field, name: "TokenError" });
    expect(registry.list(input.organizationId)).toEqual([]);
  });

  it("accepts a name of 100 astral code points (200 UTF-16 units)", () => {
    const { registry } = setup();
    const name = "😀".repeat(100);
    expect(name.length).toBe(200);
    expect(registry.create({ ...base, name }).view.name).toBe(name);
  });

  it("accepts an expiry 1 ms ahead and no expiry at all", () => {
    const { registry } = setup();
    const soon = new Date(T0.getTime() + 1);
    expect(registry.create({ ...base, expiresAt: soon }).view).toMatchObject({
      expiresAt: soon,
      status: "Active",
    });
    expect(registry.create({ ...base, expiresAt: null }).view.expiresAt).toBeNull();
    expect(registry.create(base).view.expiresAt).toBeNull();
  });

  it("keeps any valid name, and stores scopes once each in SCOPES order", () => {
    fc.assert(
      fc.property(nameArb, scopeSetArb, expiryOffsetArb, (name, scopes, expiresIn) => {
        const { registry } = setup({ randomBytes: seededRandomBytes(expiresIn ?? 0) });
        const expiresAt = expiresIn === null ? null : new Date(T0.getTime() + expiresIn);
        const { view } = registry.create({ ...base, name, scopes, expiresAt });
        expect(view).toMatchObject({ name, expiresAt, createdAt: T0, status: "Active" });
        expect(view.scopes).toEqual(SCOPES.filter((s) => scopes.includes(s)));
      }),
      fcParams,
    );
  });
});

describe("creationProblems", () => {
  it("names every refused field at once, with create's own messages", () => {
    const problems = creationProblems({ name: " ", scopes: [], expiresAt: new Date(T0) }, T0);
    expect(problems).toEqual({
      name: "name must not be blank",
      scopes: "at least one scope is required",
      expiresAt: "expiresAt must be in the future",
    });
  });

  it("finds nothing in an input create accepts, with or without an expiry", () => {
    expect(creationProblems(base, T0)).toEqual({});
    expect(creationProblems({ ...base, expiresAt: new Date(T0.getTime() + 1) }, T0)).toEqual({});
  });

  it("agrees with create on any input: no problem exactly when create succeeds", () => {
    const anyName = fc.oneof(nameArb, fc.constantFrom("", " ", "a".repeat(101)));
    const anyScopes = fc.oneof(scopeSetArb, fc.constant([]), fc.constant(["contacts:delete"]));
    const anyExpiry = fc.option(fc.integer({ min: -MINUTE, max: MINUTE }), { nil: null });
    fc.assert(
      fc.property(anyName, anyScopes, anyExpiry, (name, scopes, offset) => {
        const { registry } = setup();
        const expiresAt = offset === null ? null : new Date(T0.getTime() + offset);
        const problems = creationProblems({ name, scopes, expiresAt }, T0);
        let created = true;
        try {
          registry.create({ ...base, name, scopes: scopes as Scope[], expiresAt });
        } catch (err) {
          if (!(err instanceof TokenError)) throw err;
          created = false;
          expect(Object.values(problems)).toContain(err.message);
        }
        expect(Object.keys(problems).length === 0).toBe(created);
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
