import type { ManifestOrganization, ManifestToken, TokenManifest } from "../manifest-schema.js";
import type { TokenNeed, TokenPool } from "../types.js";

/** The scopes that have an endpoint today (§4): a "full" token holds all of them. */
export const FULL_SCOPES = [
  "contacts:read",
  "contacts:write",
  "products:read",
  "products:write",
  "invoices:read",
  "expenses:read",
] as const;

export interface TokenPoolOptions {
  /** Ends the current check as skipped (the runner's skip signal). */
  skip: (reason: string) => never;
  /** For expiry instants; default the system clock. */
  now?: () => Date;
}

/** Picks manifest tokens for checks, in manifest order so that a run is reproducible. */
export class ManifestTokenPool implements TokenPool {
  readonly manifest: TokenManifest;
  readonly #skip: (reason: string) => never;
  readonly #now: () => Date;
  readonly #orgs: ReadonlyMap<string, ManifestOrganization>;

  constructor(manifest: TokenManifest, options: TokenPoolOptions) {
    this.manifest = manifest;
    this.#skip = options.skip;
    this.#now = options.now ?? (() => new Date());
    this.#orgs = new Map(manifest.organizations.map((o) => [o.id, o]));
  }

  find(need: TokenNeed): ManifestToken | undefined {
    const tokens = this.manifest.tokens;
    switch (need.kind) {
      case "full": {
        const full = tokens.filter((t) => this.#usable(t) && FULL_SCOPES.every((s) => t.scopes.includes(s)));
        const org = this.manifest.organizations.filter((o) => full.some((t) => t.organization === o.id))[
          need.org ?? 0
        ];
        return org === undefined ? undefined : full.find((t) => t.organization === org.id);
      }
      case "scopes":
        return tokens.find((t) => {
          const held: readonly string[] = t.scopes;
          return (
            this.#usable(t) &&
            need.scopes.every((s) => held.includes(s)) &&
            (need.exact !== true || held.every((s) => need.scopes.includes(s)))
          );
        });
      case "no-scope":
        return tokens.find((t) => this.#usable(t) && t.scopes.length === 0);
      case "revoked":
        return tokens.find((t) => t.state === "revoked");
      case "expired":
        return tokens.find((t) => t.state === "expired");
      case "no-api-plan":
        return tokens.find((t) => this.#active(t) && this.#orgs.get(t.organization)?.apiAccess === false);
    }
  }

  get(need: TokenNeed): ManifestToken {
    return this.find(need) ?? this.#skip(`the token manifest has no ${describeNeed(need)}`);
  }

  /**
   * Active by state, and not past an expiry instant: a manifest written long ago must not hand a check
   * a token the target has since expired.
   */
  #active(t: ManifestToken): boolean {
    return t.state === "active" && (t.expiresAt === null || Date.parse(t.expiresAt) > this.#now().getTime());
  }

  #usable(t: ManifestToken): boolean {
    return this.#active(t) && this.#orgs.get(t.organization)?.apiAccess === true;
  }
}

/** The kind of token a need asks for, as the skip reason names it. */
export function describeNeed(need: TokenNeed): string {
  switch (need.kind) {
    case "full":
      return `${need.org === 1 ? "second organization with an " : ""}active full-access token (${FULL_SCOPES.join(", ")}) in an organization with API access`;
    case "scopes":
      return `active token with ${need.exact === true ? "exactly the scopes" : "the scopes"} ${need.scopes.length === 0 ? "(none)" : need.scopes.join(", ")} in an organization with API access`;
    case "no-scope":
      return "active token without any scope in an organization with API access";
    case "revoked":
      return "revoked token";
    case "expired":
      return "expired token";
    case "no-api-plan":
      return "active token of an organization whose plan has no API access";
  }
}
