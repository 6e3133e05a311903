import type { ManifestOrganization, ManifestToken, TokenManifest } from "../manifest-schema.js";
import { kitSpec, type KitSpec } from "../spec/kit-spec.js";
import type { TokenNeed, TokenPool } from "../types.js";

/** The scopes that have an endpoint (§4's table): a "full" token holds all of them. */
export const fullScopes = (spec: KitSpec): readonly string[] => [
  ...new Set(spec.ENDPOINTS.map((e) => e.scope)),
];

/** The full scopes of the spec as written (tests and mutation variants of the kit). */
export const FULL_SCOPES: readonly string[] = fullScopes(kitSpec());

export interface TokenPoolOptions {
  /** Ends the current check as skipped (the runner's skip signal). */
  skip: (reason: string) => never;
  /** The run's spec: which scopes make a token "full" (default the spec as written). */
  spec?: KitSpec | undefined;
  /** For expiry instants; default the system clock. */
  now?: () => Date;
  /**
   * The token kept out of the run's traffic for the rate-limit burst (`reserveForBurst`): handed to no
   * need another token meets while it is kept, and offered as `reserved`.
   */
  reservation?: BurstReservation | undefined;
}

const DAY_MS = 86_400_000;

/**
 * The token kept for the rate-limit burst, while it is kept. A target that says in its headers how
 * many requests remain in a budget tells the burst what it needs without a fresh budget: the pacer
 * then releases the token to the run's traffic (engine/pacer.ts).
 */
export class BurstReservation {
  #token: ManifestToken | undefined;
  #released = false;

  constructor(token: ManifestToken | undefined) {
    this.#token = token;
  }

  /** The token kept, or undefined: none could be, or it was released. */
  get token(): ManifestToken | undefined {
    return this.#released ? undefined : this.#token;
  }

  /** The token that was kept, released or not (for the report). */
  get chosen(): ManifestToken | undefined {
    return this.#token;
  }

  get released(): boolean {
    return this.#released;
  }

  release(): void {
    this.#released = true;
  }
}

/**
 * The token the run keeps away from its own traffic, so that the rate-limit burst (checks/ratelimit.ts)
 * meets a budget no request of the run touched, where the target counts per token: the last, in
 * manifest order, of the largest class of interchangeable tokens (same organization, same scopes,
 * active for a day more) holding contacts:read in the organization of the first full-access token,
 * when that class has another member to carry its share of the traffic. Undefined when there is none:
 * the burst then waits for a window without requests before it judges (spec-gaps #21).
 */
export function reserveForBurst(
  manifest: TokenManifest,
  now: number,
  spec: KitSpec = kitSpec(),
): ManifestToken | undefined {
  const full = fullScopes(spec);
  const orgs = new Map(manifest.organizations.map((o) => [o.id, o]));
  const lasting = (t: ManifestToken): boolean =>
    t.state === "active" &&
    orgs.get(t.organization)?.apiAccess === true &&
    (t.expiresAt === null || Date.parse(t.expiresAt) > now + DAY_MS);
  const home = manifest.tokens.find((t) => lasting(t) && full.every((s) => t.scopes.includes(s)));
  if (home === undefined) return undefined;
  const classes = new Map<string, ManifestToken[]>();
  for (const t of manifest.tokens) {
    if (!lasting(t) || t.organization !== home.organization || !t.scopes.includes(spec.LISTS.contacts.scope))
      continue;
    const key = [...t.scopes].sort().join(" ");
    classes.set(key, [...(classes.get(key) ?? []), t]);
  }
  const largest = [...classes.values()].reduce<ManifestToken[]>(
    (best, members) => (members.length > best.length ? members : best),
    [],
  );
  return largest.length >= 2 ? largest[largest.length - 1] : undefined;
}

/** Picks manifest tokens for checks, in manifest order so that a run is reproducible. */
export class ManifestTokenPool implements TokenPool {
  readonly manifest: TokenManifest;
  readonly #reservation: BurstReservation;
  readonly #skip: (reason: string) => never;
  readonly #now: () => Date;
  readonly #orgs: ReadonlyMap<string, ManifestOrganization>;

  readonly #full: readonly string[];

  constructor(manifest: TokenManifest, options: TokenPoolOptions) {
    this.manifest = manifest;
    this.#skip = options.skip;
    this.#now = options.now ?? (() => new Date());
    this.#orgs = new Map(manifest.organizations.map((o) => [o.id, o]));
    this.#reservation = options.reservation ?? new BurstReservation(undefined);
    this.#full = fullScopes(options.spec ?? kitSpec());
  }

  get reserved(): ManifestToken | undefined {
    return this.#reservation.token;
  }

  /** The first token meeting the need, the reserved one only when no other does. */
  find(need: TokenNeed): ManifestToken | undefined {
    const reserved = this.reserved;
    const others = this.manifest.tokens.filter((t) => t !== reserved);
    return this.#find(need, others) ?? (reserved === undefined ? undefined : this.#find(need, [reserved]));
  }

  #find(need: TokenNeed, tokens: readonly ManifestToken[]): ManifestToken | undefined {
    switch (need.kind) {
      case "full": {
        const full = tokens.filter((t) => this.#usable(t) && this.#full.every((s) => t.scopes.includes(s)));
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
    return this.find(need) ?? this.#skip(`the token manifest has no ${describeNeed(need, this.#full)}`);
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
export function describeNeed(need: TokenNeed, full: readonly string[] = FULL_SCOPES): string {
  switch (need.kind) {
    case "full":
      return `${need.org === 1 ? "second organization with an " : ""}active full-access token (${full.join(", ")}) in an organization with API access`;
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
