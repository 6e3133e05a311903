/**
 * A rolling-window pacer: the kit's own requests stay under the rate limit the target is expected to
 * enforce. The limit's scope (token, organization, address) is the target's choice (spec-gaps #21), so
 * one pacer counts every request of the run together, whoever sends it, paced or not.
 */

/** Time, injected so that the pacer can be tested without real waiting. */
export interface PacerTimer {
  /** Milliseconds on a monotonic scale. */
  now(): number;
  sleep(ms: number): Promise<void>;
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

export class Pacer {
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
  acquire(): Promise<void> {
    const turn = this.#tail.then(() => this.#waitForSlot());
    // A rejected sleep must not poison every later acquire.
    this.#tail = turn.catch(() => undefined);
    return turn;
  }

  /** Counts a request sent without waiting (the rate-limit burst): later acquires wait for it too. */
  record(): void {
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
      await this.#timer.sleep(Math.max(1, freeing + this.windowMs - now));
    }
  }

  #prune(now: number): void {
    let drop = 0;
    while (drop < this.#stamps.length && now - (this.#stamps[drop] ?? now) >= this.windowMs) drop += 1;
    if (drop > 0) this.#stamps.splice(0, drop);
  }
}
