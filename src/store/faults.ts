import type { ErrorCode } from "../model/errors.js";

/** What a fault does to the requests it matches: an error of §7, a delay, a dropped connection. */
export interface FaultAction {
  error?: { code: ErrorCode; message: string; retryAfterSeconds?: number };
  delayMs?: number;
  drop?: boolean;
}

/** Which requests a fault takes; an absent condition matches every request. */
export interface FaultMatch {
  method?: string;
  path?: string;
  /** A token's label (its name in the registry). */
  token?: string;
  organization?: string;
}

export interface Fault extends FaultMatch, FaultAction {
  id: string;
  /** How many matching requests it takes in all. */
  times: number;
  /** How many it has still to take; the fault is gone at 0. */
  remaining: number;
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
 * Faults armed by the control surface. Each takes the next `times` matching requests, in the order
 * the faults were armed, then disappears; a request takes at most one fault.
 */
export class FaultRegistry {
  readonly #faults: Fault[] = [];
  #next = 1;

  add(spec: FaultMatch & FaultAction & { times: number }, now: Date): Fault {
    const fault: Fault = { ...spec, id: `fault_${this.#next++}`, remaining: spec.times, createdAt: now };
    this.#faults.push(fault);
    return { ...fault };
  }

  list(): Fault[] {
    return this.#faults.map((f) => ({ ...f }));
  }

  /** Removes every fault, or those aimed at one organization. Returns how many were removed. */
  clear(organization?: string): number {
    const before = this.#faults.length;
    const keep = this.#faults.filter((f) => organization !== undefined && f.organization !== organization);
    this.#faults.splice(0, this.#faults.length, ...keep);
    return before - keep.length;
  }

  /** The fault this request takes, if any; taking it counts one of its `times`. */
  take(target: FaultTarget): Fault | undefined {
    const index = this.#faults.findIndex((f) => matches(f, target));
    const fault = this.#faults[index];
    if (fault === undefined) return undefined;
    fault.remaining -= 1;
    if (fault.remaining <= 0) this.#faults.splice(index, 1);
    return { ...fault };
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
