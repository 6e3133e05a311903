/**
 * Time is injected everywhere (token expiry, createdAt, the rate-limit window) so that tests and the
 * control surface can move it without touching the process clock.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that only moves when told to. */
export class ManualClock implements Clock {
  #ms: number;

  constructor(start: Date | string | number = Date.now()) {
    this.#ms = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.#ms);
  }

  advance(ms: number): void {
    this.#ms += ms;
  }

  set(to: Date | string | number): void {
    this.#ms = new Date(to).getTime();
  }
}
