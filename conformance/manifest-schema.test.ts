import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import * as reference from "../src/store/fixtures/manifest.js";
import { defaultManifestPath } from "./manifest.js";
import { DEFAULT_RATE_LIMIT, TOKEN_STATES, TokenManifestSchema } from "./manifest-schema.js";
import { testManifest } from "./test-support/local.js";

/**
 * The kit reads the token manifest with its own schema (docs/implementers.md, "Token manifest"), so that a mistake in
 * the reference's cannot pass both; here the two meet.
 */
describe("the kit's manifest schema", () => {
  it("reads the reference fixtures' manifest exactly as the reference does", async () => {
    const raw: unknown = JSON.parse(await readFile(defaultManifestPath(), "utf8"));
    const kit = TokenManifestSchema.parse(raw);
    expect(kit).toEqual(reference.TokenManifestSchema.parse(raw));
  });

  it("knows the same token states as the reference", () => {
    expect([...TOKEN_STATES]).toEqual([...reference.TOKEN_STATES]);
  });

  it.each([
    ["an unknown scope", { scopes: ["contacts:delete"] }],
    ["an unknown state", { state: "suspended" }],
    ["an unknown field", { colour: "red" }],
    ["an expired token without its instant", { state: "expired", expiresAt: null }],
    ["a token without the manifest's prefix", { token: "other_secret" }],
  ])("refuses %s, as the reference does", (_what, change) => {
    const base = testManifest();
    const [first, ...rest] = base.tokens;
    const bad = { ...base, tokens: [{ ...first, ...change }, ...rest] };
    expect(TokenManifestSchema.safeParse(bad).success).toBe(false);
    expect(reference.TokenManifestSchema.safeParse(bad).success).toBe(false);
  });

  it("adds rateLimit, optional, with a documented default of 100 a minute per token", () => {
    const declared = { ...testManifest(), rateLimit: { requests: 60, per: "organization" } };
    expect(TokenManifestSchema.parse(declared).rateLimit).toEqual({ requests: 60, per: "organization" });
    expect(TokenManifestSchema.parse(testManifest()).rateLimit).toBeUndefined();
    expect(DEFAULT_RATE_LIMIT).toEqual({ requests: 100, per: "token" });
    for (const rateLimit of [
      { requests: 0, per: "token" },
      { requests: 100, per: "user" },
      { requests: 100 },
    ]) {
      expect(
        TokenManifestSchema.safeParse({ ...testManifest(), rateLimit }).success,
        JSON.stringify(rateLimit),
      ).toBe(false);
    }
  });
});
