import { performance } from "node:perf_hooks";
import { ApiError, ERROR_STATUS, type ErrorCode } from "../../model/errors.js";
import type { ReferenceState } from "../../store/state.js";
import { validate } from "../../validation/validate.js";
import type { Fault } from "../../store/faults.js";
import type { JournalEntry, JournalFilter } from "../../store/journal.js";
import { ClockInput, FaultInput, ResetInput } from "./schemas.js";
import type {
  ClearedView,
  ClockView,
  ControlDescription,
  FaultView,
  JournalEntryView,
  ResetView,
} from "./wire.js";

export interface Latency {
  minMs: number;
  maxMs: number;
}

/** The messages the reference itself answers with, so that an injected error reads like a real one. */
const DEFAULT_MESSAGES: Record<ErrorCode, string> = {
  invalid_request: "Invalid request (injected fault)",
  unauthorized: "Invalid token (injected fault)",
  forbidden: "Forbidden (injected fault)",
  not_found: "Not found (injected fault)",
  rate_limited: "More than the allowed requests in the rate-limit window (injected fault)",
  internal_error: "Internal server error; retry in a few seconds (injected fault)",
};

export const OPERATIONS: ControlDescription["operations"] = [
  { method: "GET", path: "/__control/", summary: "This description" },
  { method: "POST", path: "/__control/reset", summary: "Back to the fixtures: all, or { organization }" },
  { method: "GET", path: "/__control/clock", summary: "The reference's clock" },
  {
    method: "PUT",
    path: "/__control/clock",
    summary: "Set { now }, { advance: ISO 8601 duration }, { frozen }",
  },
  { method: "DELETE", path: "/__control/clock", summary: "Back to the time the server started with" },
  { method: "GET", path: "/__control/faults", summary: "Armed faults" },
  { method: "POST", path: "/__control/faults", summary: "Arm a fault for the next N matching API requests" },
  { method: "DELETE", path: "/__control/faults", summary: "Disarm every fault" },
  {
    method: "GET",
    path: "/__control/journal",
    summary: "Last 1000 API requests, newest first (?path, ?status, ?limit)",
  },
  { method: "DELETE", path: "/__control/journal", summary: "Empty the journal" },
];

/**
 * The control surface's operations, in process. The HTTP door and the typed client are thin layers
 * over these; inputs are validated here, once, with the schemas the door documents.
 */
export class Control {
  readonly #state: ReferenceState;
  readonly #latency: Latency | null;

  constructor(state: ReferenceState, latency: Latency | null = null) {
    this.#state = state;
    this.#latency = latency;
  }

  describe(): ControlDescription {
    return {
      name: "accounting-api-reference control surface",
      api: "/api/v1",
      clock: this.clock(),
      faults: this.#state.faults.list().length,
      journal: this.#state.journal.size,
      latency: this.#latency,
      operations: OPERATIONS,
    };
  }

  reset(input: ResetInput = {}): ResetView {
    const { organization } = validate(ResetInput, input, "body");
    if (organization !== undefined && this.#state.store.organization(organization) === undefined) {
      throw new ApiError("invalid_request", `organization: no organization ${organization}`, {
        organization: [
          `must be one of ${this.#state.store
            .organizations()
            .map((o) => o.id)
            .join(", ")}`,
        ],
      });
    }
    const started = performance.now();
    this.#state.reset(organization);
    return {
      organizations:
        organization === undefined ? this.#state.store.organizations().map((o) => o.id) : [organization],
      durationMs: Math.round((performance.now() - started) * 1000) / 1000,
    };
  }

  /** Resolves once the changes made so far are kept (with `--data`; at once without). */
  durable(): Promise<void> {
    return this.#state.durable();
  }

  clock(): ClockView {
    const { now, frozen, offsetMs } = this.#state.clock.state();
    return { now: now.toISOString(), frozen, offsetMs };
  }

  /** `frozen` applies first, so that `{ now, frozen: true }` stops the clock exactly at `now`. */
  setClock(input: ClockInput): ClockView {
    const parsed = validate(ClockInput, input, "body");
    const clock = this.#state.clock;
    if (parsed.frozen !== undefined) clock.setFrozen(parsed.frozen);
    if (parsed.now !== undefined) clock.set(parsed.now);
    if (parsed.advance !== undefined) clock.advance(parsed.advance);
    return this.clock();
  }

  restoreClock(): ClockView {
    this.#state.clock.restore();
    return this.clock();
  }

  addFault(input: FaultInput): FaultView {
    const f = validate(FaultInput, input, "body");
    const code = f.code ?? (f.status === undefined ? undefined : codeOf(f.status));
    const fault = this.#state.faults.add(
      {
        ...(f.method === undefined ? {} : { method: f.method }),
        ...(f.path === undefined ? {} : { path: f.path }),
        ...(f.token === undefined ? {} : { token: f.token }),
        ...(f.organization === undefined ? {} : { organization: f.organization }),
        times: f.times,
        ...(code === undefined
          ? {}
          : {
              error: {
                code,
                message: f.message ?? DEFAULT_MESSAGES[code],
                ...(code === "rate_limited" ? { retryAfterSeconds: f.retryAfter ?? 1 } : {}),
              },
            }),
        ...(f.delayMs === undefined ? {} : { delayMs: f.delayMs }),
        ...(f.drop === true ? { drop: true } : {}),
      },
      this.#state.clock.now(),
    );
    return faultView(fault);
  }

  faults(): FaultView[] {
    return this.#state.faults.list().map(faultView);
  }

  clearFaults(): ClearedView {
    return { cleared: this.#state.faults.clear() };
  }

  journal(filter: JournalFilter = {}): JournalEntryView[] {
    return this.#state.journal.list(filter).map(journalView);
  }

  clearJournal(): ClearedView {
    return { cleared: this.#state.journal.clear() };
  }
}

function codeOf(status: number): ErrorCode {
  const found = (Object.entries(ERROR_STATUS) as Array<[ErrorCode, number]>).find(([, s]) => s === status);
  if (found === undefined) throw new Error(`no code for status ${status}`);
  return found[0];
}

function faultView(f: Fault): FaultView {
  return {
    id: f.id,
    method: f.method ?? null,
    path: f.path ?? null,
    token: f.token ?? null,
    organization: f.organization ?? null,
    times: f.times,
    remaining: f.remaining,
    status: f.error === undefined ? null : ERROR_STATUS[f.error.code],
    code: f.error?.code ?? null,
    message: f.error?.message ?? null,
    retryAfter: f.error?.retryAfterSeconds ?? null,
    delayMs: f.delayMs ?? null,
    drop: f.drop === true,
    createdAt: f.createdAt.toISOString(),
  };
}

function journalView(e: JournalEntry): JournalEntryView {
  return { ...e, time: e.time.toISOString() };
}
