import { randomBytes } from "node:crypto";
import type { Spec } from "../../spec/index.js";
import type { Clock } from "../model/clock.js";
import { SteerableClock } from "./clock.js";
import type { FixtureSet } from "./fixtures/load.js";
import { checkFixturesUnder } from "./fixtures/under-spec.js";
import { drawBase62 } from "./ids.js";
import { ReferenceState, type Latency } from "./state.js";
import { TokenForm, type TokenDigest } from "./tokens.js";
import type { RateLimitOptions } from "./windows.js";

/**
 * Sandboxes: many worlds on one reference. Each is a `ReferenceState` of its own (records, tokens,
 * clock, rate-limit windows, faults, journal, latency) seeded from a copy of the fixtures in which
 * every organization, record and token is renamed: nothing is shared with the default state or with
 * another sandbox, and the API reaches a sandbox only through its own tokens. Sandboxes live in
 * memory only (never in `--data`), up to a maximum, and end when deleted or after an idle time.
 */

/** How many sandboxes at once, by default (`--max-sandboxes`). */
export const DEFAULT_MAX_SANDBOXES = 200;
/** How long a sandbox lives without a request or a control call, by default (`--sandbox-idle`). */
export const DEFAULT_SANDBOX_IDLE_MS = 30 * 60_000;

export interface SandboxesOptions {
  /** The fixtures every sandbox copies (the default state's, prefix applied). */
  fixtures: FixtureSet;
  tokenPrefix: string;
  /** The clock sandboxes' own clocks follow and idle time is measured on (the system's, or a test's). */
  baseClock: Clock;
  /** Where a sandbox's clock starts when not told: the default state's clock as it started. */
  defaultStart: () => Date;
  /** The reference's spec: a sandbox serves it unless it is made with a variant of its own. */
  spec?: Spec | undefined;
  /** The reference's rate limit when it is not its spec's (`--rate-limit`): a sandbox without a spec of its own keeps it. */
  rateLimit?: RateLimitOptions | undefined;
  latency: Latency | null;
  max?: number | undefined;
  idleMs?: number | undefined;
  /** Random bytes for ids and tokens (crypto's by default). */
  randomBytes?: ((n: number) => Uint8Array) | undefined;
}

/** One sandbox: its id, its state, and what tells whether it is still in use. */
export class Sandbox {
  readonly id: string;
  readonly state: ReferenceState;
  /** Fixture organization id → this sandbox's id for it. */
  readonly organizations: Readonly<Record<string, string>>;
  /** On the base clock, as `lastUsedAt`. */
  readonly createdAt: Date;
  #lastUsedAt: Date;

  constructor(id: string, state: ReferenceState, organizations: Record<string, string>, now: Date) {
    this.id = id;
    this.state = state;
    this.organizations = organizations;
    this.createdAt = now;
    this.#lastUsedAt = now;
  }

  get lastUsedAt(): Date {
    return this.#lastUsedAt;
  }

  touch(now: Date): void {
    this.#lastUsedAt = now;
  }
}

/** More sandboxes than the maximum: the caller says so (429). */
export class SandboxLimitError extends Error {
  override readonly name = "SandboxLimitError";
  constructor(
    readonly max: number,
    /** When the least recently used sandbox expires, in ms from now. */
    readonly retryAfterMs: number,
  ) {
    super(`at most ${max} sandboxes at once`);
  }
}

export class Sandboxes {
  readonly max: number;
  readonly idleMs: number;
  readonly #options: SandboxesOptions;
  readonly #random: (n: number) => Uint8Array;
  readonly #byId = new Map<string, Sandbox>();
  /** The fixture tokens' digests, to find a request's sandbox without asking each one. */
  readonly #byDigest = new Map<string, Sandbox>();
  /** Each sandbox's digests, to forget them when it ends. */
  readonly #digests = new WeakMap<Sandbox, string[]>();
  /** What a token of this reference looks like: anything else is the default state's to refuse. */
  readonly #form: TokenForm;

  constructor(options: SandboxesOptions) {
    this.#options = options;
    this.#form = new TokenForm(options.tokenPrefix);
    this.max = options.max ?? DEFAULT_MAX_SANDBOXES;
    this.idleMs = options.idleMs ?? DEFAULT_SANDBOX_IDLE_MS;
    this.#random = options.randomBytes ?? ((n) => randomBytes(n));
  }

  get size(): number {
    return this.#byId.size;
  }

  /** The spec a sandbox serves unless it is made with one of its own. */
  get spec(): Spec | undefined {
    return this.#options.spec;
  }

  /**
   * A new sandbox, its clock at `now` (the default state's start instant when not given), serving
   * `spec` (a variant already merged over the reference's; the reference's own when not given).
   */
  create(options: { now?: Date | undefined; spec?: Spec | undefined } = {}): Sandbox {
    // A spec of its own must serve the fixtures every sandbox copies (SpecVariantError otherwise).
    if (options.spec !== undefined)
      checkFixturesUnder(options.spec, this.#options.fixtures, "the sandbox's spec");
    const now = this.#options.baseClock.now();
    this.#sweep(now);
    if (this.#byId.size >= this.max) {
      const oldest = Math.min(...[...this.#byId.values()].map((s) => s.lastUsedAt.getTime()));
      throw new SandboxLimitError(this.max, oldest + this.idleMs - now.getTime());
    }
    const draw = pooled(this.#random);
    let id = `sbx_${drawBase62(draw, 16)}`;
    while (this.#byId.has(id)) id = `sbx_${drawBase62(draw, 16)}`;
    const { fixtures, organizations } = renamed(this.#options.fixtures, id, draw);
    const o = this.#options;
    const state = new ReferenceState({
      fixtures,
      tokenPrefix: o.tokenPrefix,
      clock: new SteerableClock(o.baseClock, options.now ?? o.defaultStart()),
      spec: options.spec ?? o.spec,
      rateLimit: options.spec === undefined ? o.rateLimit : undefined,
      latency: o.latency,
    });
    const sandbox = new Sandbox(id, state, organizations, now);
    const digests = state.manifest.tokens.flatMap((t) => this.#form.digest(t.token)?.hex ?? []);
    for (const digest of digests) this.#byDigest.set(digest, sandbox);
    this.#digests.set(sandbox, digests);
    this.#byId.set(id, sandbox);
    return sandbox;
  }

  /** The sandboxes alive, oldest first. */
  list(): Sandbox[] {
    this.#sweep(this.#options.baseClock.now());
    return [...this.#byId.values()];
  }

  /** The sandbox with this id, marked as used; undefined when there is none (or it has expired). */
  use(id: string): Sandbox | undefined {
    const now = this.#options.baseClock.now();
    const sandbox = this.#byId.get(id);
    if (sandbox === undefined || this.#expired(sandbox, now)) {
      if (sandbox !== undefined) this.delete(id);
      return undefined;
    }
    sandbox.touch(now);
    return sandbox;
  }

  /** Ends a sandbox: its tokens are unknown from now on. False when there was none. */
  delete(id: string): boolean {
    const sandbox = this.#byId.get(id);
    if (sandbox === undefined) return false;
    this.#byId.delete(id);
    for (const digest of this.#digests.get(sandbox) ?? []) this.#byDigest.delete(digest);
    return true;
  }

  /** Ends every sandbox. */
  clear(): void {
    for (const id of [...this.#byId.keys()]) this.delete(id);
  }

  /**
   * The state of the sandbox whose token this is (a digest of `TokenForm.digest`), marked as used;
   * undefined for any other (the default state's tokens, unknown ones), which the default state answers.
   */
  stateFor(digest: TokenDigest): ReferenceState | undefined {
    if (this.#byId.size === 0) return undefined;
    let sandbox = this.#byDigest.get(digest.hex);
    // A token made inside a sandbox after it was created (in process) is found by asking each one.
    if (sandbox === undefined) {
      for (const s of this.#byId.values()) if (s.state.tokens.holds(digest.hex)) sandbox = s;
    }
    return sandbox === undefined ? undefined : this.use(sandbox.id)?.state;
  }

  /** `stateFor` a token given in clear; undefined for text that cannot be a token of this reference. */
  stateForToken(token: string): ReferenceState | undefined {
    const digest = this.#form.digest(token);
    return digest === undefined ? undefined : this.stateFor(digest);
  }

  /** When an idle sandbox ends, on the base clock. */
  expiresAt(sandbox: Sandbox): Date {
    return new Date(sandbox.lastUsedAt.getTime() + this.idleMs);
  }

  #expired(sandbox: Sandbox, now: Date): boolean {
    return now.getTime() - sandbox.lastUsedAt.getTime() >= this.idleMs;
  }

  #sweep(now: Date): void {
    for (const sandbox of [...this.#byId.values()]) {
      if (this.#expired(sandbox, now)) this.delete(sandbox.id);
    }
  }
}

/** Random bytes drawn in one call and handed out in pieces: a sandbox draws a few thousand. */
function pooled(random: (n: number) => Uint8Array): (n: number) => Uint8Array {
  let pool = random(4096);
  let at = 0;
  return (n) => {
    if (at + n > pool.length) {
      pool = random(Math.max(4096, n));
      at = 0;
    }
    const out = pool.subarray(at, at + n);
    at += n;
    return out;
  };
}

/**
 * The fixtures with every id renamed (organizations `<id>_<sandbox id>`, records a fresh random id of
 * their kind, the references between them following) and every token given a fresh secret, with its
 * label, scopes and state. Dates and amounts are shared with the fixtures: nothing changes them.
 */
function renamed(
  fixtures: FixtureSet,
  sandboxId: string,
  draw: (n: number) => Uint8Array,
): { fixtures: FixtureSet; organizations: Record<string, string> } {
  const newId = (prefix: string) => `${prefix}_${drawBase62(draw, 16)}`;
  const organizations: Record<string, string> = {};
  for (const o of fixtures.organizations) organizations[o.id] = `${o.id}_${sandboxId}`;
  const org = (id: string): string => organizations[id] ?? id;
  const renames = new Map<string, string>();
  const rename = (prefix: string, id: string): string => {
    const to = newId(prefix);
    renames.set(id, to);
    return to;
  };
  const to = (id: string): string => renames.get(id) ?? id;
  // As many characters as the registry's own tokens (spec-gaps #2).
  const secret = (): string => `${fixtures.manifest.tokenPrefix}_${drawBase62(draw, 40)}`;

  const accounts = fixtures.accounts.map((a) => ({
    ...a,
    id: rename("acc", a.id),
    organizationId: org(a.organizationId),
  }));
  const contacts = fixtures.contacts.map((c) => ({
    ...c,
    id: rename("con", c.id),
    organizationId: org(c.organizationId),
  }));
  const products = fixtures.products.map((p) => ({
    ...p,
    id: newId("prd"),
    organizationId: org(p.organizationId),
  }));
  const invoices = fixtures.invoices.map((i) => ({
    ...i,
    id: newId("inv"),
    organizationId: org(i.organizationId),
    contact: { ...i.contact, id: to(i.contact.id) },
  }));
  const expenses = fixtures.expenses.map((e) => ({
    ...e,
    id: newId("exp"),
    organizationId: org(e.organizationId),
    contact: { ...e.contact, id: to(e.contact.id) },
    account: { ...e.account, id: to(e.account.id) },
  }));
  const manifest = {
    ...fixtures.manifest,
    organizations: fixtures.manifest.organizations.map((o) => ({ ...o, id: org(o.id) })),
    tokens: fixtures.manifest.tokens.map((t) => ({
      ...t,
      token: secret(),
      organization: org(t.organization),
    })),
  };
  const expiringTokens = fixtures.expiringTokens.map((t) => ({
    ...t,
    token: secret(),
    organization: org(t.organization),
  }));
  return {
    fixtures: {
      organizations: fixtures.organizations.map((o) => ({ ...o, id: org(o.id) })),
      accounts,
      contacts,
      products,
      invoices,
      expenses,
      manifest,
      expiringTokens,
    },
    organizations,
  };
}
