import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  base,
  BASE62,
  bearerCaseArb,
  fcParams,
  foreignToken,
  MINUTE,
  PREFIX,
  randomSeedArb,
  scopeSetArb,
  seededRandomBytes,
  setup,
  T0,
} from "../test-support/tokens.js";
import type { TokenRegistry } from "../store/tokens.js";
import { identify } from "./authenticate.js";

/** What the `Authorization` header's values present to one registry. */
const present = (registry: TokenRegistry, values: string[]) =>
  identify(values, { tokens: registry }).presented;

/** What one `Authorization` header (or none) presents. */
const resolve = (registry: TokenRegistry, header: string | undefined) =>
  present(registry, header === undefined ? [] : [header]);

/** The unchanging part of a token, as a request presenting it acts for. */
const identityOf = (registry: TokenRegistry, id: string) => registry.identity(id);

describe("identify: from the Authorization header to a token", () => {
  function world() {
    const { clock, registry } = setup();
    const active = registry.create({ ...base, expiresAt: new Date(T0.getTime() + MINUTE) });
    const revoked = registry.create(base);
    registry.revoke(revoked.view.id);
    const expired = registry.import({
      ...base,
      token: `${PREFIX}_${"E".repeat(40)}`,
      expiresAt: new Date(T0.getTime() - 1),
    });
    return { clock, registry, active, revoked, expired };
  }
  type World = ReturnType<typeof world>;

  it.each<{
    case: string;
    header: (w: World) => string | undefined;
    reason: string;
    tokenId?: (w: World) => string;
  }>([
    { case: "no header", header: () => undefined, reason: "missing" },
    { case: "an empty header", header: () => "", reason: "missing" },
    { case: "another scheme", header: () => "Basic x", reason: "malformed" },
    { case: "Basic with a valid token", header: (w) => `Basic ${w.active.token}`, reason: "malformed" },
    { case: "Bearer alone", header: () => "Bearer", reason: "malformed" },
    { case: "Bearer and a space", header: () => "Bearer ", reason: "malformed" },
    { case: "a double space", header: (w) => `Bearer  ${w.active.token}`, reason: "malformed" },
    { case: "a trailing space", header: (w) => `Bearer ${w.active.token} `, reason: "malformed" },
    { case: "a leading space", header: (w) => ` Bearer ${w.active.token}`, reason: "malformed" },
    { case: "a tab as separator", header: (w) => `Bearer\t${w.active.token}`, reason: "malformed" },
    { case: "the token without scheme", header: (w) => w.active.token, reason: "malformed" },
    { case: "a third part", header: (w) => `Bearer ${w.active.token} x`, reason: "malformed" },
    { case: "the wrong prefix", header: () => `Bearer other_${"Q".repeat(40)}`, reason: "unknown" },
    {
      case: "the prefix in another case",
      header: () => `Bearer ACCT_${"Q".repeat(40)}`,
      reason: "unknown",
    },
    { case: "no underscore", header: () => `Bearer acct${"Q".repeat(40)}`, reason: "unknown" },
    { case: "the prefix alone", header: () => "Bearer acct_", reason: "unknown" },
    { case: "31 chars after the prefix", header: () => `Bearer acct_${"Q".repeat(31)}`, reason: "unknown" },
    {
      case: "a non-base62 char",
      header: (w) => `Bearer ${w.active.token.slice(0, -1)}-`,
      reason: "unknown",
    },
    {
      case: "a non-ASCII letter",
      header: (w) => `Bearer ${w.active.token.slice(0, -1)}é`,
      reason: "unknown",
    },
    { case: "an unknown well-formed token", header: () => `Bearer ${foreignToken()}`, reason: "unknown" },
    {
      case: "a revoked token",
      header: (w) => `Bearer ${w.revoked.token}`,
      reason: "revoked",
      tokenId: (w) => w.revoked.view.id,
    },
    {
      case: "an expired token",
      header: () => `Bearer ${PREFIX}_${"E".repeat(40)}`,
      reason: "expired",
      tokenId: (w) => w.expired.id,
    },
  ])("answers $reason for $case", ({ header, reason, tokenId }) => {
    const w = world();
    const resolution = resolve(w.registry, header(w));
    expect(resolution).toMatchObject({ ok: false, reason });
    if (tokenId !== undefined) {
      expect(resolution).toMatchObject({ token: identityOf(w.registry, tokenId(w)) });
    } else {
      expect(resolution).not.toHaveProperty("token");
    }
  });

  it.each(["Bearer", "bearer", "BEARER", "bEaReR"])("accepts the scheme spelled %s", (scheme) => {
    const w = world();
    const resolution = resolve(w.registry, `${scheme} ${w.active.token}`);
    expect(resolution).toEqual({ ok: true, token: identityOf(w.registry, w.active.view.id) });
  });

  it.each<{ offset: number; expected: string }>([
    { offset: -1, expected: "ok" },
    { offset: 0, expected: "expired" },
    { offset: 1, expected: "expired" },
  ])("at expiresAt $offset ms answers $expected", ({ offset, expected }) => {
    const w = world();
    w.clock.set(T0.getTime() + MINUTE + offset);
    const resolution = resolve(w.registry, `Bearer ${w.active.token}`);
    if (expected === "ok") expect(resolution.ok).toBe(true);
    else
      expect(resolution).toEqual({
        ok: false,
        reason: "expired",
        token: identityOf(w.registry, w.active.view.id),
      });
  });

  it("never records a use", () => {
    const w = world();
    for (let i = 0; i < 3; i++) resolve(w.registry, `Bearer ${w.active.token}`);
    expect(w.registry.get(w.active.view.id)).toMatchObject({ requestCount: 0, lastUsedAt: null });
  });

  it("resolves every issued token, under any casing of the scheme, to its own view", () => {
    fc.assert(
      fc.property(randomSeedArb, scopeSetArb, bearerCaseArb, (seed, scopes, scheme) => {
        const { registry } = setup({ randomBytes: seededRandomBytes(seed) });
        const other = registry.create(base);
        const { token, view } = registry.create({ ...base, scopes });
        const resolution = resolve(registry, `${scheme} ${token}`);
        expect(resolution).toEqual({ ok: true, token: identityOf(registry, view.id) });
        expect(resolution.ok && resolution.token.id).not.toBe(other.view.id);
      }),
      fcParams,
    );
  });

  it("never resolves a token altered by one inserted, removed or replaced char", () => {
    const editArb = fc.record({
      kind: fc.constantFrom("insert", "remove", "replace"),
      at: fc.nat(),
      char: fc.constantFrom(...BASE62, "-", "_", " ", "é"),
    });
    fc.assert(
      fc.property(randomSeedArb, editArb, (seed, { kind, at, char }) => {
        const { registry } = setup({ randomBytes: seededRandomBytes(seed) });
        const { token } = registry.create(base);
        const i = at % token.length;
        const altered =
          kind === "insert"
            ? token.slice(0, i) + char + token.slice(i)
            : kind === "remove"
              ? token.slice(0, i) + token.slice(i + 1)
              : token.slice(0, i) + char + token.slice(i + 1);
        fc.pre(altered !== token);
        expect(resolve(registry, `Bearer ${altered}`).ok).toBe(false);
      }),
      fcParams,
    );
  });
});

describe("identify: several Authorization headers", () => {
  it("refuses two values, even both valid, as repeated", () => {
    const { registry } = setup();
    const { token } = registry.create(base);
    expect(present(registry, [`Bearer ${token}`, `Bearer ${token}`])).toEqual({
      ok: false,
      reason: "repeated",
    });
  });
});
