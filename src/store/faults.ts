import type { ErrorCode } from "../model/errors.js";

/**
 * Failures the spec does not list but a frontend meets behind a real deployment: a gateway's 502,
 * 503 or 504 with its HTML page, an HTML page in place of JSON, an answer cut short. Armed only on
 * purpose, never by default, and named as beyond the spec wherever they appear.
 */
export const BEYOND_SPEC = [
  "bad_gateway",
  "service_unavailable",
  "gateway_timeout",
  "html_page",
  "truncated_body",
] as const;
export type BeyondSpec = (typeof BEYOND_SPEC)[number];

/** What a fault does to the requests it matches: an error of §7, a delay, a dropped connection, or a failure beyond the spec. */
export interface FaultAction {
  error?: { code: ErrorCode; message: string; retryAfterSeconds?: number | undefined } | undefined;
  delayMs?: number | undefined;
  drop?: boolean | undefined;
  beyondSpec?: BeyondSpec | undefined;
}

/** Which requests a fault takes; an absent condition matches every request. */
export interface FaultMatch {
  method?: string | undefined;
  path?: string | undefined;
  /** A token's label (its name in the registry). */
  token?: string | undefined;
  organization?: string | undefined;
}

/**
 * How long a fault holds: for the next `times` matching requests, until an instant of the state's
 * clock (a duration), or until it is cleared.
 */
export type FaultHold = { times: number } | { until: Date } | { untilCleared: true };

export interface Fault extends FaultMatch, FaultAction {
  id: string;
  /** How many matching requests it takes in all; null when it holds for a time or until cleared. */
  times: number | null;
  /** How many it has still to take (gone at 0); null when it is not counted. */
  remaining: number | null;
  /** The instant, on the state's clock, from which it no longer takes requests; null otherwise. */
  until: Date | null;
  untilCleared: boolean;
  /** How many requests it has taken so far. */
  taken: number;
  createdAt: Date;
}

/** The request as faults see it, once its token is known. */
export interface FaultTarget {
  method: string;
  path: string;
  token: string | undefined;
  organization: string | undefined;
}

/**
 * Faults armed by the control surface. Each takes the matching requests while it holds, in the order
 * the faults were armed; a request takes at most one fault. A counted fault disappears once it has
 * taken its `times`, a timed one once its instant has come.
 */
export class FaultRegistry {
  readonly #faults: Fault[] = [];
  #next = 1;

  add(spec: FaultMatch & FaultAction & { hold: FaultHold }, now: Date): Fault {
    const { hold, ...rest } = spec;
    const times = "times" in hold ? hold.times : null;
    const fault: Fault = {
      ...rest,
      id: `fault_${this.#next++}`,
      times,
      remaining: times,
      until: "until" in hold ? hold.until : null,
      untilCleared: "untilCleared" in hold,
      taken: 0,
      createdAt: now,
    };
    this.#faults.push(fault);
    return { ...fault };
  }

  /** How many faults are armed (some may have expired without being looked at yet). */
  get size(): number {
    return this.#faults.length;
  }

  /** The faults that still hold at `now`. */
  list(now: Date): Fault[] {
    this.#expire(now);
    return this.#faults.map((f) => ({ ...f }));
  }

  /** Removes every fault, or those aimed at one organization. Returns how many were removed. */
  clear(organization?: string): number {
    const before = this.#faults.length;
    const keep = this.#faults.filter((f) => organization !== undefined && f.organization !== organization);
    this.#faults.splice(0, this.#faults.length, ...keep);
    return before - keep.length;
  }

  /** Removes one fault; false when no fault has that id (any more). */
  remove(id: string): boolean {
    const index = this.#faults.findIndex((f) => f.id === id);
    if (index < 0) return false;
    this.#faults.splice(index, 1);
    return true;
  }

  /** The fault this request takes at `now`, if any; taking it counts one of its `times`. */
  take(target: FaultTarget, now: Date): Fault | undefined {
    if (this.#faults.length === 0) return undefined;
    this.#expire(now);
    const index = this.#faults.findIndex((f) => matches(f, target));
    const fault = this.#faults[index];
    if (fault === undefined) return undefined;
    fault.taken += 1;
    if (fault.remaining !== null) {
      fault.remaining -= 1;
      if (fault.remaining <= 0) this.#faults.splice(index, 1);
    }
    return { ...fault };
  }

  #expire(now: Date): void {
    const at = now.getTime();
    for (let i = this.#faults.length - 1; i >= 0; i--) {
      const until = this.#faults[i]?.until;
      if (until !== null && until !== undefined && until.getTime() <= at) this.#faults.splice(i, 1);
    }
  }
}

function matches(fault: FaultMatch, target: FaultTarget): boolean {
  return (
    (fault.method === undefined || fault.method === target.method) &&
    (fault.path === undefined || fault.path === target.path) &&
    (fault.token === undefined || fault.token === target.token) &&
    (fault.organization === undefined || fault.organization === target.organization)
  );
}
