import { setTimeout as sleep } from "node:timers/promises";
import { ApiError, defaultErrors, roleOfCode } from "../../model/errors.js";
import type { Fault } from "../../store/faults.js";
import type { Latency } from "../../store/state.js";
import { failBeyondSpec } from "./beyond-spec.js";
import type { Exchange } from "./exchange.js";

/**
 * The control surface's hooks in the API's chain, over the state's parts: the latency slows every
 * answer, armed faults take the requests they match (the journal is the exchange's own). None of them
 * changes what an API request gets when nothing is armed.
 */

/** The state's latency: a random delay in [minMs, maxMs] before the request is handled, or none. */
export function latencyMs(latency: Latency | null, random: () => number = Math.random): number | undefined {
  if (latency === null) return undefined;
  return latency.minMs + Math.floor(random() * (latency.maxMs - latency.minMs + 1));
}

/**
 * The fault this request takes, if one is armed that matches it (by method, path, and the label and
 * organization of the token it presented), recorded in the exchange for the journal.
 */
export function takeFault(exchange: Exchange): Fault | undefined {
  const { req, who } = exchange;
  const { faults, clock } = who.state;
  if (faults.size === 0) return undefined;
  const token = who.presented.token;
  const fault = faults.take(
    { method: req.method, path: req.path, token: token?.name, organization: token?.organizationId },
    clock.now(),
  );
  if (fault !== undefined) exchange.fault = fault.id;
  return fault;
}

/**
 * What the fault does: a delay, then a dropped connection, a failure beyond the spec, or an error of
 * §7 (thrown, answered like any refusal). True when the request is over (dropped or answered).
 */
export async function applyFault(fault: Fault, exchange: Exchange): Promise<boolean> {
  if (fault.delayMs !== undefined) await sleep(fault.delayMs);
  if (fault.drop === true) {
    // As a network failure: no status line, no headers, the connection gone.
    exchange.req.socket.destroy();
    return true;
  }
  if (fault.beyondSpec !== undefined) return failBeyondSpec(fault.beyondSpec, exchange);
  if (fault.error === undefined) return false;
  if (fault.error.retryAfterSeconds !== undefined) {
    exchange.res.setHeader("Retry-After", String(fault.error.retryAfterSeconds));
  }
  // A fault is armed with a code of the control surface's table (the default spec's); the situation
  // it names is answered as the answering state's spec says.
  throw new ApiError(roleOfCode(defaultErrors(), fault.error.code) ?? "internal", fault.error.message);
}
