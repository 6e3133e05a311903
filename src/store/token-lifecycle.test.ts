import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { TokenStatus } from "./tokens.js";
import {
  base,
  catchTokenError,
  expiryOffsetArb,
  fcParams,
  foreignToken,
  MINUTE,
  seededRandomBytes,
  setup,
  T0,
} from "../test-support/tokens.js";

// A token's life (§3): Active, Expired, Revoked, and the uses it counts.

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
