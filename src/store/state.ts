import { defaultSpec, type Spec } from "../../spec/index.js";
import type { SteerableClock } from "./clock.js";
import { FaultRegistry } from "./faults.js";
import { manifestAt, type FixtureSet } from "./fixtures/load.js";
import type { CheckedRecords } from "./fixtures/records.js";
import type { TokenManifest } from "./fixtures/manifest.js";
import { Journal } from "./journal.js";
import type { Change, StateImage } from "./persistence/format.js";
import { Store, additionsOf } from "./store.js";
import { TokenRegistry, type TokenChange } from "./tokens.js";
import { RollingWindows, rateLimitOf, type RateLimitOptions } from "./windows.js";

/** A random delay before every API answer, in ms (`--latency 200-800`). */
export interface Latency {
  minMs: number;
  maxMs: number;
}

export interface ReferenceStateOptions {
  /** What a reset goes back to; its manifest already carries the tokens as this server accepts them. */
  fixtures: FixtureSet;
  tokenPrefix: string;
  clock: SteerableClock;
  /** The spec this state serves (the default file's unless told); its API answers by it. */
  spec?: Spec | undefined;
  /** The rate limit, when it is not the spec's `limits.rate` (`--rate-limit`, a test's). */
  rateLimit?: RateLimitOptions | undefined;
  latency?: Latency | null | undefined;
  /** A store of one's own (tests that make the store fail); it is cleared and seeded here. */
  store?: Store | undefined;
}

/**
 * Where the state's changes go to be kept (`--data DIR`): each change is recorded as it is applied,
 * and a door that promises a change was made (a 201) awaits `durable()` first.
 */
export interface PersistenceHook {
  record(change: Change): void;
  /** The whole state is to be written as it is (a reset); `reseeded`: all of it from the fixtures. */
  snapshot(reseeded: boolean): void;
  durable(): Promise<void>;
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
  /** The spec this state serves: the API door reads its compiled form (src/routes/compile.ts). */
  readonly spec: Spec;
  readonly rateLimits: RollingWindows;
  readonly faults = new FaultRegistry();
  readonly journal: Journal;
  /** The delay before every API answer, or null; the control surface may change it. */
  latency: Latency | null;
  /** The latency it started with: a reset and `DELETE /__control/latency` go back to it. */
  readonly startLatency: Latency | null;
  readonly fixtures: FixtureSet;
  /**
   * The fixture tokens as this state accepts them: tokens.json's, and the expiring ones with their
   * expiry counted from the instant the state started.
   */
  readonly manifest: TokenManifest;
  /** Fixture tokens' ids and creation instants by label, drawn once, so that a reset gives them back as they were. */
  readonly #fixtureTokens = new Map<string, { id: string; createdAt: Date }>();
  #persistence: PersistenceHook | undefined;
  /** Above 0 while seeding or restoring: what is done then is covered by a snapshot, not journaled. */
  #quiet = 0;
  /** Tokens used since their usage was last written: usage is kept lazily (DECISIONS.md). */
  readonly #used = new Set<string>();

  constructor(options: ReferenceStateOptions) {
    this.fixtures = options.fixtures;
    this.clock = options.clock;
    this.store = options.store ?? new Store();
    this.tokens = new TokenRegistry({
      prefix: options.tokenPrefix,
      clock: options.clock,
      onChange: (change) => this.#tokenChanged(change),
    });
    this.spec = options.spec ?? defaultSpec();
    const rateLimit = options.rateLimit ?? rateLimitOf(this.spec);
    this.rateLimits = new RollingWindows(rateLimit, options.clock);
    this.journal = new Journal({ tokenPrefix: options.tokenPrefix });
    this.latency = options.latency ?? null;
    this.startLatency = this.latency;
    const manifest = manifestAt(options.fixtures, options.clock.now());
    // The manifest says what this state counts (`--rate-limit`, or the spec's §8 limit), not what the
    // fixture file was written with: the kit paces by it.
    this.manifest =
      manifest.rateLimit === undefined
        ? manifest
        : { ...manifest, rateLimit: { ...manifest.rateLimit, requests: rateLimit.limit } };
    // Hooked here, below every door, so that whatever door adds a record, makes, revokes or uses a
    // token, or moves the clock, the change is kept.
    this.store.observe((addition) => this.#record(addition));
    this.clock.observe(() => this.#record({ type: "clock", data: this.clock.setting() }));
    this.#quietly(() => this.#seed());
  }

  /**
   * Everything back to the fixtures: records, tokens with their usage, rate-limit counters, faults,
   * the journal, the clock (as it started) and the latency; or only what belongs to one organization
   * (the clock and the latency, which every organization shares, stay as they are).
   */
  reset(organizationId?: string): void {
    this.#quietly(() => this.#reset(organizationId));
    this.#persistence?.snapshot(organizationId === undefined);
  }

  /**
   * Adds records already checked by the fixtures' rules (`checkRecords`), all of them, each kept
   * like a creation through the API.
   */
  addRecords(records: CheckedRecords): void {
    for (const addition of additionsOf({ organizations: [], ...records })) this.store.add(addition);
  }

  /** From now on, every change goes to `persistence`. */
  attach(persistence: PersistenceHook): void {
    this.#persistence = persistence;
  }

  /** Resolves once every change made so far is kept (at once without persistence). */
  durable(): Promise<void> {
    return this.#persistence?.durable() ?? Promise.resolve();
  }

  /** The whole state, for a snapshot: records, tokens with their hash and usage, the clock's setting. */
  image(): StateImage {
    return { ...this.store.records(), tokens: this.tokens.export(), clock: this.clock.setting() };
  }

  /** The usage counted since the last call, as token changes: persistence writes it with its next write. */
  takeLazy(): Change[] {
    const changes: Change[] = [];
    for (const id of this.#used) {
      const data = this.tokens.exportOne(id);
      if (data !== undefined) changes.push({ type: "token", data });
    }
    this.#used.clear();
    return changes;
  }

  /** Replaces the whole state with one read back from a data directory (rate limits start afresh). */
  restore(image: StateImage): void {
    this.#quietly(() => {
      this.store.clear();
      this.tokens.remove();
      this.rateLimits.resetAll();
      for (const addition of additionsOf(image)) this.store.add(addition);
      image.tokens.forEach((t) => this.tokens.restore(t));
      this.clock.applySetting(image.clock);
      // A later reset gives the fixture tokens back with the ids and instants they have here.
      this.#fixtureTokens.clear();
      for (const t of this.manifest.tokens) {
        const found = this.tokens.lookup(t.token);
        const id = found.ok ? found.token.id : found.tokenId;
        const view = id === undefined ? undefined : this.tokens.get(id);
        if (view !== undefined) this.#fixtureTokens.set(t.label, { id: view.id, createdAt: view.createdAt });
      }
    });
  }

  /** Applies one change read back from a journal. */
  apply(change: Change): void {
    this.#quietly(() => {
      switch (change.type) {
        case "token":
          return this.tokens.restore(change.data);
        case "clock":
          return this.clock.applySetting(change.data);
        default:
          return this.store.add(change);
      }
    });
  }

  #quietly(run: () => void): void {
    this.#quiet += 1;
    try {
      run();
    } finally {
      this.#quiet -= 1;
    }
  }

  #record(change: Change): void {
    if (this.#quiet === 0) this.#persistence?.record(change);
  }

  #tokenChanged(change: TokenChange): void {
    if (this.#quiet > 0 || this.#persistence === undefined) return;
    if (change.type === "used") {
      this.#used.add(change.id);
      return;
    }
    this.#used.delete(change.data.id); // the record written now carries its usage
    this.#record({ type: "token", data: change.data });
  }

  #reset(organizationId: string | undefined): void {
    if (organizationId === undefined) {
      this.store.clear();
      this.tokens.remove();
      this.rateLimits.resetAll();
      this.faults.clear();
      this.journal.clear();
      this.clock.restore();
      this.latency = this.startLatency;
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

  /**
   * When the fixture tokens were issued, as the token pages show it: all together, 30 days before
   * the earliest of the start instant and every fixture token's expiry, so that none is shown created
   * after it expired (a manifest says nothing of creation).
   */
  #fixtureTokensIssuedAt(): Date {
    const expiries = this.manifest.tokens.flatMap((t) =>
      t.expiresAt === null ? [] : [Date.parse(t.expiresAt)],
    );
    return new Date(Math.min(this.clock.now().getTime(), ...expiries) - 30 * 86_400_000);
  }

  #seed(only?: string): void {
    for (const addition of additionsOf(this.fixtures)) {
      // One organization's reset keeps the organization itself and adds back only its records.
      const organizationId = addition.type === "organization" ? undefined : addition.data.organizationId;
      if (only === undefined || organizationId === only) this.store.add(addition);
    }
    for (const t of this.manifest.tokens) {
      if (only !== undefined && t.organization !== only) continue;
      const first = this.#fixtureTokens.get(t.label);
      const view = this.tokens.import({
        token: t.token,
        organizationId: t.organization,
        name: t.label,
        scopes: t.scopes,
        expiresAt: t.expiresAt === null ? null : new Date(t.expiresAt),
        revoked: t.state === "revoked",
        id: first?.id,
        createdAt: first?.createdAt ?? this.#fixtureTokensIssuedAt(),
      });
      this.#fixtureTokens.set(t.label, { id: view.id, createdAt: view.createdAt });
    }
  }
}
