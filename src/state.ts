import { TokenRegistry } from "./auth/tokens.js";
import type { SteerableClock } from "./clock.js";
import { FaultRegistry } from "./control/faults.js";
import { Journal } from "./control/journal.js";
import type { FixtureSet } from "./fixtures/load.js";
import type { TokenManifest } from "./fixtures/manifest.js";
import { RollingWindowStore, type RateLimitOptions } from "./routing/rate-limit.js";
import { Store } from "./store/store.js";

export interface ReferenceStateOptions {
  /** What a reset goes back to; its manifest already carries the tokens as this server accepts them. */
  fixtures: FixtureSet;
  tokenPrefix: string;
  clock: SteerableClock;
  rateLimit: RateLimitOptions;
  /** A store of one's own (tests that make the store fail); it is cleared and seeded here. */
  store?: Store;
}

/**
 * The one reference state that every door (API, control surface, web pages) reads and changes:
 * records, tokens and their usage, the clock, rate-limit counters, armed faults and the journal.
 * A reset puts it back to the fixtures in place, so that every door keeps the objects it holds.
 */
export class ReferenceState {
  readonly store: Store;
  readonly tokens: TokenRegistry;
  readonly clock: SteerableClock;
  readonly rateLimits: RollingWindowStore;
  readonly faults = new FaultRegistry();
  readonly journal = new Journal();
  readonly fixtures: FixtureSet;
  /** Fixture tokens' ids and creation instants by label, drawn once, so that a reset gives them back as they were. */
  readonly #fixtureTokens = new Map<string, { id: string; createdAt: Date }>();

  constructor(options: ReferenceStateOptions) {
    this.fixtures = options.fixtures;
    this.clock = options.clock;
    this.store = options.store ?? new Store();
    this.tokens = new TokenRegistry({ prefix: options.tokenPrefix, clock: options.clock });
    this.rateLimits = new RollingWindowStore(options.rateLimit, options.clock);
    this.#seed();
  }

  get manifest(): TokenManifest {
    return this.fixtures.manifest;
  }

  /**
   * Everything back to the fixtures: records, tokens with their usage, rate-limit counters, faults
   * and the journal; or only what belongs to one organization. The clock is left where it is.
   */
  reset(organizationId?: string): void {
    if (organizationId === undefined) {
      this.store.clear();
      this.tokens.remove();
      this.rateLimits.resetAll();
      this.faults.clear();
      this.journal.clear();
      this.#seed();
      return;
    }
    if (this.store.organization(organizationId) === undefined) {
      throw new RangeError(`unknown organization ${organizationId}`);
    }
    for (const token of this.tokens.list(organizationId)) this.rateLimits.resetKey(`token:${token.id}`);
    this.store.clearOrganization(organizationId);
    this.tokens.remove(organizationId);
    this.faults.clear(organizationId);
    this.journal.clear(organizationId);
    this.#seed(organizationId);
  }

  #seed(only?: string): void {
    const mine = <T extends { organizationId: string }>(records: T[]) =>
      only === undefined ? records : records.filter((r) => r.organizationId === only);
    const f = this.fixtures;
    if (only === undefined) f.organizations.forEach((o) => this.store.addOrganization(o));
    mine(f.accounts).forEach((a) => this.store.addAccount(a));
    mine(f.contacts).forEach((c) => this.store.addContact(c));
    mine(f.products).forEach((p) => this.store.addProduct(p));
    mine(f.invoices).forEach((i) => this.store.addInvoice(i));
    mine(f.expenses).forEach((e) => this.store.addExpense(e));
    for (const t of f.manifest.tokens) {
      if (only !== undefined && t.organization !== only) continue;
      const first = this.#fixtureTokens.get(t.label);
      const view = this.tokens.import({
        token: t.token,
        organizationId: t.organization,
        name: t.label,
        scopes: t.scopes,
        expiresAt: t.expiresAt === null ? null : new Date(t.expiresAt),
        revoked: t.state === "revoked",
        ...first,
      });
      this.#fixtureTokens.set(t.label, { id: view.id, createdAt: view.createdAt });
    }
  }
}
