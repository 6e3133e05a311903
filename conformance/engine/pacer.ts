import type { ManifestToken, RateLimitScope, TokenManifest } from "../manifest-schema.js";
import { remainingOf } from "../exchange.js";
import type { HttpExchange, HttpRequest } from "../types.js";
import type { BurstReservation } from "./tokens.js";

/**
 * Rolling-window pacers: the kit's own requests stay under the rate limit the target enforces. `Pacer`
 * keeps one budget; `RatePacer` keeps one per budget the target keeps (per token, per organization, or
 * one for the whole run), as the manifest declares it (spec-gaps #21).
 */

/** Time, injected so that the pacer can be tested without real waiting. */
export interface PacerTimer {
  /** Milliseconds on a monotonic scale. */
  now(): number;
  /** `reason`: why the run waits, for the progress line. */
  sleep(ms: number, reason?: string): Promise<void>;
}

export const realTimer: PacerTimer = {
  now: () => performance.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

export interface PacerOptions {
  /** Requests per window the target is expected to enforce. */
  rateLimit: number;
  windowMs: number;
  /** Requests kept in reserve below the limit; default `defaultSafetyMargin(rateLimit)`. */
  safetyMargin?: number;
  timer?: PacerTimer;
}

/**
 * The reserve absorbs what the kit cannot see: a request's arrival lags its sending, and a target's
 * fixed window can straddle two of ours. A tenth of the limit, at least one.
 */
export function defaultSafetyMargin(rateLimit: number): number {
  return Math.max(1, Math.floor(rateLimit / 10));
}

export class Pacer implements RequestPacer {
  /** Requests allowed in any window of `windowMs`. */
  readonly allowance: number;
  readonly windowMs: number;
  readonly #timer: PacerTimer;
  /** Send instants still inside the window, oldest first. */
  readonly #stamps: number[] = [];
  /** Serializes waiters: two concurrent acquires must not both take the one free slot. */
  #tail: Promise<void> = Promise.resolve();
  #total = 0;

  constructor(options: PacerOptions) {
    if (!Number.isInteger(options.rateLimit) || options.rateLimit < 1) {
      throw new RangeError(`rate limit must be a positive integer, got ${options.rateLimit}`);
    }
    if (!(options.windowMs > 0)) {
      throw new RangeError(`rate window must be positive, got ${options.windowMs} ms`);
    }
    const margin = options.safetyMargin ?? defaultSafetyMargin(options.rateLimit);
    this.allowance = Math.max(1, options.rateLimit - margin);
    this.windowMs = options.windowMs;
    this.#timer = options.timer ?? realTimer;
  }

  /** Requests counted so far (paced and unpaced). */
  get total(): number {
    return this.#total;
  }

  /** Waits until one more request fits in the window, and counts it. */
  acquire(_request?: HttpRequest): Promise<undefined> {
    const turn = this.#tail.then(() => this.#waitForSlot()).then(() => undefined);
    // A rejected sleep must not poison every later acquire.
    this.#tail = turn.catch(() => undefined);
    return turn;
  }

  /** Counts a request sent without waiting (the rate-limit burst): later acquires wait for it too. */
  record(_request?: HttpRequest): void {
    this.#stamps.push(this.#timer.now());
    this.#total += 1;
  }

  async #waitForSlot(): Promise<void> {
    for (;;) {
      const now = this.#timer.now();
      this.#prune(now);
      if (this.#stamps.length < this.allowance) {
        this.#stamps.push(now);
        this.#total += 1;
        return;
      }
      // The slot frees when the request `allowance` places back leaves the window; with unpaced
      // requests in it that is not necessarily the oldest one.
      const freeing = this.#stamps[this.#stamps.length - this.allowance];
      if (freeing === undefined) continue;
      await this.#timer.sleep(
        Math.max(1, freeing + this.windowMs - now),
        `pacing: ${this.allowance} requests per ${this.windowMs / 1000} s`,
      );
    }
  }

  #prune(now: number): void {
    let drop = 0;
    while (drop < this.#stamps.length && now - (this.#stamps[drop] ?? now) >= this.windowMs) drop += 1;
    if (drop > 0) this.#stamps.splice(0, drop);
  }
}

// ---- pacing per token, per organization or for the whole run ------------------------------------------

/** What the client asks of a pacer: one budget for the run (Pacer) or one per token (RatePacer). */
export interface RequestPacer {
  readonly windowMs: number;
  /** Requests counted so far (paced and unpaced). */
  readonly total: number;
  /**
   * Waits until the request fits and counts it. A RatePacer may hand back the request carrying another
   * token equivalent to its own (same organization, same scopes) that has more room.
   */
  acquire(request: HttpRequest): Promise<HttpRequest | undefined>;
  /** Counts a request sent without waiting (the rate-limit burst). */
  record(request: HttpRequest): void;
  /**
   * The target answered 429 to `request`: hold its budgets `waitMs`. `paced`: the kit thought it had
   * room (the client sends it again once); otherwise it was a burst's, which expects 429s.
   */
  limited?(request: HttpRequest, waitMs: number, paced: boolean): void;
  /** Told of every answer, 429s included: what the target counted may show how it counts. */
  observe?(request: HttpRequest, exchange: HttpExchange): void;
  /**
   * `request` went out as `limited` and got a 429: the same request with an equivalent token that has
   * room now, if there is one (the client sends it at once instead of waiting), else undefined.
   */
  instead?(request: HttpRequest, limited: HttpRequest): HttpRequest | undefined;
}

/** The budget every request of the run is counted in, whatever the scope. */
const EVERYTHING = "everything";
/** Requests without an active manifest token: the reference counts them per client address. */
const ANONYMOUS = "no active token";
/** The scopes from the narrowest to the widest: the pacer only ever widens. */
const WIDTH: readonly RateLimitScope[] = ["token", "organization", "address"];

export interface RatePacerOptions {
  rateLimit: number;
  windowMs: number;
  per: RateLimitScope;
  manifest: TokenManifest;
  safetyMargin?: number;
  timer?: PacerTimer;
  /** Wall-clock ms, for token expiry; default Date.now. */
  wallClock?: () => number;
  /**
   * The token kept out of the run's traffic (the rate-limit burst's fresh budget, engine/tokens.ts):
   * no work is spread onto it while it is kept. Released once the target's headers say how many
   * requests remain in a budget: the burst can then be judged on any token.
   */
  reservation?: BurstReservation | undefined;
}

/** What the pacer paces by, and why: the manifest's word (or the default), or what the target showed. */
export interface ScopeReading {
  per: RateLimitScope;
  source: "declared" | "observed";
  /** For an observed scope: what showed it. */
  why?: string;
}

/**
 * Paces each budget the target keeps (manifest `rateLimit.per`, spec-gaps #21) under its own rolling
 * window, and spreads the work of a token over the tokens equivalent to it. A request is counted in
 * every budget the target might count it in: its token's (or organization's), and for a request without
 * an active manifest token, the one shared budget of the kit's address (with the token's too, when a
 * raw Authorization header carries a manifest secret).
 *
 * A 429 holds the budgets of the request it answered for the wait the target asked, and only those:
 * one 429 does not show why the target refused (an earlier run's requests still in its window, another
 * client, a wider count than declared). What does show a wider count is the target counting more of
 * the run's requests than the declared scope holds once the run has seen a whole window of its own (so
 * that no request from before it can count): a 429, or a rate-limit header's remaining count, when the
 * declared budget holds fewer than that and a wider one (the organization's, every request's) holds as
 * many. The pacer then paces by the wider scope for the rest of the run (`scope`), and never narrows.
 */
export class RatePacer implements RequestPacer {
  readonly allowance: number;
  readonly windowMs: number;
  readonly #limit: number;
  readonly #timer: PacerTimer;
  readonly #wallClock: () => number;
  readonly #tokens: readonly ManifestToken[];
  readonly #stamps = new Map<string, number[]>();
  readonly #blockedUntil = new Map<string, number>();
  /** Per token label: the tokens interchangeable with it, in manifest order. */
  readonly #equivalents = new Map<string, readonly ManifestToken[]>();
  readonly #cursor = new Map<readonly ManifestToken[], number>();
  #scope: ScopeReading;
  readonly #reservation: BurstReservation | undefined;
  /** When the first request of the run was counted. */
  #first: number | undefined;
  #tail: Promise<unknown> = Promise.resolve();
  #total = 0;

  constructor(options: RatePacerOptions) {
    if (!Number.isInteger(options.rateLimit) || options.rateLimit < 1) {
      throw new RangeError(`rate limit must be a positive integer, got ${options.rateLimit}`);
    }
    if (!(options.windowMs > 0))
      throw new RangeError(`rate window must be positive, got ${options.windowMs} ms`);
    const margin = options.safetyMargin ?? defaultSafetyMargin(options.rateLimit);
    this.allowance = Math.max(1, options.rateLimit - margin);
    this.windowMs = options.windowMs;
    this.#limit = options.rateLimit;
    this.#scope = { per: options.per, source: "declared" };
    this.#timer = options.timer ?? realTimer;
    this.#wallClock = options.wallClock ?? Date.now;
    this.#tokens = options.manifest.tokens;
    this.#reservation = options.reservation;
    const classes = new Map<string, ManifestToken[]>();
    for (const t of this.#tokens.filter((x) => this.#lasting(x))) {
      const key = `${t.organization} ${[...t.scopes].sort().join(" ")}`;
      const members = classes.get(key) ?? [];
      members.push(t);
      classes.set(key, members);
    }
    for (const members of classes.values()) for (const t of members) this.#equivalents.set(t.label, members);
  }

  get total(): number {
    return this.#total;
  }

  /** The scope paced: the declared one, until the target shows a wider one. */
  get per(): RateLimitScope {
    return this.#scope.per;
  }

  /** The scope paced, and where the pacer has it from. */
  get scope(): ScopeReading {
    return { ...this.#scope };
  }

  /** The budgets a request is counted in under the scope paced (EVERYTHING aside). */
  budgets(request: HttpRequest): string[] {
    return this.#budgetsUnder(this.#scope.per, request);
  }

  acquire(request: HttpRequest): Promise<HttpRequest> {
    const turn = this.#tail.then(() => this.#acquire(request));
    // A rejected sleep must not poison every later acquire.
    this.#tail = turn.catch(() => undefined);
    return turn;
  }

  record(request: HttpRequest): void {
    this.#stamp(request, this.#timer.now());
  }

  limited(request: HttpRequest, waitMs: number, _paced: boolean): void {
    const until = this.#timer.now() + waitMs;
    for (const key of this.budgets(request)) {
      this.#blockedUntil.set(key, Math.max(until, this.#blockedUntil.get(key) ?? 0));
    }
  }

  /**
   * An answer came back: how many requests the target counted in its budget (a 429: the limit; a
   * rate-limit header: the limit less what remains), against how many of the run's requests each scope
   * holds. Read only once the run has seen a whole window of its own (with a margin for coarse
   * clocks), and only for requests carrying one active manifest token.
   */
  observe(request: HttpRequest, exchange: HttpExchange): void {
    const remaining = remainingOf(exchange);
    if (remaining !== undefined) this.#reservation?.release();
    const now = this.#timer.now();
    const window = this.windowMs + Math.min(2000, this.windowMs / 20);
    if (this.#first === undefined || now - this.#first < window) return;
    const auth = request.auth;
    if (auth === null || auth === undefined || "header" in auth || !this.#active(auth)) return;
    const counted =
      exchange.status === 429
        ? this.#limit
        : remaining === undefined
          ? undefined
          : this.#limit - Math.min(remaining, this.#limit);
    if (counted === undefined) return;
    const held = (per: RateLimitScope): number =>
      Math.max(...this.#budgetsUnder(per, request).map((key) => this.#prune(key, now).length));
    const at = WIDTH.indexOf(this.#scope.per);
    // A few more than the kit counted is the edge of a window (clocks a few ms apart), not a scope.
    if (held(this.#scope.per) + this.#limit - this.allowance >= counted) return;
    const wider = WIDTH.slice(at + 1).find((per) => held(per) >= counted);
    if (wider === undefined) return;
    const what = exchange.status === 429 ? "a 429" : `a remaining count of ${remaining ?? 0}`;
    this.#scope = {
      per: wider,
      source: "observed",
      why: `${what} to ${request.method} ${request.path} with ${auth.label} after ${held(this.#scope.per)} requests of the run counted per ${this.#scope.per}, ${held(wider)} per ${wider} (limit ${this.#limit})`,
    };
  }

  instead(request: HttpRequest, limited: HttpRequest): HttpRequest | undefined {
    const auth = request.auth;
    if (this.#scope.per !== "token" || auth === null || auth === undefined || "header" in auth)
      return undefined;
    const gone = limited.auth;
    const now = this.#timer.now();
    const kept = this.#reservation?.token;
    const room = (this.#equivalents.get(auth.label) ?? []).find(
      (t) =>
        t !== kept &&
        !(gone !== null && gone !== undefined && !("header" in gone) && gone.label === t.label) &&
        this.#waitFor(`token ${t.label}`, now) === 0,
    );
    return room === undefined ? undefined : { ...request, auth: room };
  }

  async #acquire(request: HttpRequest): Promise<HttpRequest> {
    const chosen = this.#spread(request);
    for (;;) {
      const now = this.#timer.now();
      let wait = 0;
      let reason = "";
      for (const key of this.budgets(chosen)) {
        const w = this.#waitFor(key, now);
        if (w <= wait) continue;
        wait = w;
        reason =
          (this.#blockedUntil.get(key) ?? 0) - now >= w
            ? `${key}: held after a 429, as the target asked`
            : `pacing ${key}: ${this.allowance} requests per ${this.windowMs / 1000} s`;
      }
      if (wait === 0) {
        this.#stamp(chosen, now);
        return chosen;
      }
      await this.#timer.sleep(wait, reason);
    }
  }

  #budgetsUnder(per: RateLimitScope, request: HttpRequest): string[] {
    if (per === "address") return [EVERYTHING];
    const auth = request.auth;
    const of = (t: ManifestToken): string =>
      per === "token" ? `token ${t.label}` : `organization ${t.organization}`;
    if (auth !== null && auth !== undefined && !("header" in auth) && this.#active(auth)) return [of(auth)];
    // A raw header that is exactly an active token's (the preflight's): the target counts it as that token's.
    const exact =
      auth !== null && auth !== undefined && "header" in auth
        ? this.#tokens.find((t) => this.#active(t) && /^Bearer (.+)$/.exec(auth.header)?.[1] === t.token)
        : undefined;
    if (exact !== undefined) return [of(exact)];
    const out = [ANONYMOUS];
    if (auth !== null && auth !== undefined && "header" in auth) {
      for (const t of this.#tokens) if (this.#active(t) && auth.header.includes(t.token)) out.push(of(t));
    }
    return out;
  }

  /** The request with the equivalent token next in turn that has room (round robin), when pacing per token. */
  #spread(request: HttpRequest): HttpRequest {
    const auth = request.auth;
    if (this.#scope.per !== "token" || auth === null || auth === undefined || "header" in auth)
      return request;
    const kept = this.#reservation?.token;
    const members = this.#equivalents.get(auth.label);
    if (members === undefined || members.length < 2 || !members.some((t) => t.token === auth.token)) {
      return request;
    }
    const now = this.#timer.now();
    const start = this.#cursor.get(members) ?? 0;
    // Round robin from the cursor, the kept token left out: the first with the shortest wait.
    const order = members
      .map((_, i) => members[(start + i) % members.length])
      .filter((t): t is ManifestToken => t !== undefined && t !== kept);
    const waits = order.map((t) => this.#waitFor(`token ${t.label}`, now));
    const best = waits.indexOf(Math.min(...waits));
    const token = order[best] ?? auth;
    this.#cursor.set(members, (members.indexOf(token) + 1) % members.length);
    return token === auth ? request : { ...request, auth: token };
  }

  #waitFor(key: string, now: number): number {
    const blocked = (this.#blockedUntil.get(key) ?? 0) - now;
    const stamps = this.#prune(key, now);
    const freeing = stamps.length < this.allowance ? undefined : stamps[stamps.length - this.allowance];
    const full = freeing === undefined ? 0 : Math.max(1, freeing + this.windowMs - now);
    return Math.max(0, blocked, full);
  }

  /** Counted in its budget under every scope, so that a wider scope, once read, starts with its past. */
  #stamp(request: HttpRequest, now: number): void {
    this.#first ??= now;
    const keys = new Set([...WIDTH.flatMap((per) => this.#budgetsUnder(per, request)), EVERYTHING]);
    for (const key of keys) {
      const stamps = this.#prune(key, now);
      stamps.push(now);
      this.#stamps.set(key, stamps);
    }
    this.#total += 1;
  }

  /** The key's stamps within the window of `now`; older ones are dropped. */
  #prune(key: string, now: number): number[] {
    const stamps = this.#stamps.get(key) ?? [];
    let drop = 0;
    while (drop < stamps.length && now - (stamps[drop] ?? now) >= this.windowMs) drop += 1;
    if (drop > 0) stamps.splice(0, drop);
    return stamps;
  }

  /** Active by state and by expiry: the target counts it as the token's. */
  #active(t: ManifestToken): boolean {
    return t.state === "active" && (t.expiresAt === null || Date.parse(t.expiresAt) > this.#wallClock());
  }

  /** Active for at least a day more: safe to send in place of an equivalent token. */
  #lasting(t: ManifestToken): boolean {
    return (
      t.state === "active" &&
      (t.expiresAt === null || Date.parse(t.expiresAt) > this.#wallClock() + 86_400_000)
    );
  }
}
