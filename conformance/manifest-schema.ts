import { z } from "zod";
import { kitSpec, type KitSpec } from "./spec/kit-spec.js";

/**
 * The token manifest as the kit reads it: the format of the reference's `fixtures/tokens.json` (README
 * "Token manifest"), written here from the README and the spec rather than imported from the
 * reference, so that a mistake in the reference's schema does not pass both (manifest-schema.test.ts
 * compares the two). The kit adds one optional field, `rateLimit`: what the target enforces (§8).
 */
export const TOKEN_STATES = ["active", "revoked", "expired"] as const;

/**
 * What the rate limit counts (spec-gaps #21): each token apart, each organization apart, or every
 * request from the kit's address together. Requests without an active manifest token always share one
 * budget (the reference counts them per client address).
 */
export const RATE_LIMIT_SCOPES = ["token", "organization", "address"] as const;
export type RateLimitScope = (typeof RATE_LIMIT_SCOPES)[number];

export const RateLimitSchema = z.strictObject({
  /** Requests allowed per minute (§8: 100). */
  requests: z.int().positive(),
  per: z.enum(RATE_LIMIT_SCOPES),
});
export type RateLimitPolicy = z.infer<typeof RateLimitSchema>;

/**
 * Absent from the manifest: the spec's rate (§8: 100 a minute), per token (spec-gaps #21's recommended
 * scope). A run under a variant reads its own spec's rate instead (index.ts).
 */
export const defaultRateLimit = (spec: KitSpec): RateLimitPolicy => ({
  requests: spec.RATE.requests,
  per: "token",
});
export const DEFAULT_RATE_LIMIT: RateLimitPolicy = defaultRateLimit(kitSpec());

export const ManifestOrganizationSchema = z.strictObject({
  id: z.string().min(1),
  name: z.string().min(1).optional(),
  /** false: the organization's plan has no API access (§7 "plan insufficient", spec-gaps #25). */
  apiAccess: z.boolean(),
});

/** A token's fields; its scopes are those of the run's spec (§5, `enums.scopes`). */
const tokenSchema = (spec: KitSpec) =>
  z.strictObject({
    label: z.string().min(1),
    token: z.string().min(1),
    organization: z.string().min(1),
    scopes: z.array(z.enum(spec.SCOPES as [string, ...string[]])),
    state: z.enum(TOKEN_STATES),
    expiresAt: z.iso.datetime({ offset: true }).nullable(),
    description: z.string().optional(),
  });

export const ManifestTokenSchema = tokenSchema(kitSpec());

/** The manifest format under a spec: its scopes are the spec's. */
export const manifestSchema = (spec: KitSpec) =>
  z
    .strictObject({
      $schema: z.string().optional(),
      version: z.literal(1),
      tokenPrefix: z.string().min(1),
      rateLimit: RateLimitSchema.optional(),
      organizations: z.array(ManifestOrganizationSchema).min(1),
      tokens: z.array(tokenSchema(spec)).min(1),
    })
    .superRefine((manifest, ctx) => {
      const orgIds = new Set(manifest.organizations.map((o) => o.id));
      const labels = new Set<string>();
      const secrets = new Set<string>();
      manifest.tokens.forEach((t, i) => {
        const at = (field: string): PropertyKey[] => ["tokens", i, field];
        if (!orgIds.has(t.organization))
          ctx.addIssue({
            code: "custom",
            path: at("organization"),
            message: `unknown organization "${t.organization}"`,
          });
        if (labels.has(t.label))
          ctx.addIssue({ code: "custom", path: at("label"), message: `duplicate label "${t.label}"` });
        labels.add(t.label);
        if (secrets.has(t.token))
          ctx.addIssue({ code: "custom", path: at("token"), message: "duplicate token" });
        secrets.add(t.token);
        if (!t.token.startsWith(`${manifest.tokenPrefix}_`)) {
          ctx.addIssue({
            code: "custom",
            path: at("token"),
            message: `does not start with the manifest's prefix "${manifest.tokenPrefix}_"`,
          });
        }
        if (t.state === "expired" && t.expiresAt === null)
          ctx.addIssue({
            code: "custom",
            path: at("expiresAt"),
            message: "an expired token needs its expiry instant",
          });
      });
    });

/** The manifest format under the spec as written. */
export const TokenManifestSchema = manifestSchema(kitSpec());

export type TokenManifest = z.infer<typeof TokenManifestSchema>;
export type ManifestToken = z.infer<typeof ManifestTokenSchema>;
export type ManifestOrganization = z.infer<typeof ManifestOrganizationSchema>;
