import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SCOPES } from "../model/records.js";
import type { Scope } from "../model/records.js";
import { creationProblems, TokenError } from "./token-rules.js";
import type { TokenRegistry } from "./tokens.js";
import {
  base,
  catchTokenError,
  expiryOffsetArb,
  fcParams,
  MINUTE,
  nameArb,
  scopeSetArb,
  seededRandomBytes,
  setup,
  T0,
} from "../test-support/tokens.js";

// The rules of a token's fields: what create refuses, and creationProblems, which names every refusal at
// once.

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
