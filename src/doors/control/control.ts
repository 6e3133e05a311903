import { performance } from "node:perf_hooks";
import type { z } from "zod";
import { ApiError, ERROR_STATUS, errorCodeOf, type ErrorCode } from "../../model/errors.js";
import type { Fault } from "../../store/faults.js";
import type { JournalEntry, JournalFilter } from "../../store/journal.js";
import type { ReferenceState } from "../../store/state.js";
import { validate } from "../../validation/validate.js";
import {
  CONTROL_BASE,
  CONTROL_OPERATIONS,
  type ControlOperation,
  type ControlOperationId,
} from "./operations.js";
import { ClockInput, FaultInput, JournalQuery, ResetInput } from "./schemas.js";
import type {
  ClearedView,
  ClockView,
  ControlDescription,
  FaultView,
  JournalEntryView,
  ResetView,
} from "./wire.js";

/**
 * The control surface's operations over one state: each row of the table (operations.ts) with the
 * schema of its input and what it does. The HTTP door runs them on a request's body or query; the
 * `Control` facade runs them in process. Either way the input is validated here, once.
 */

/** The messages the reference itself answers with, so that an injected error reads like a real one. */
const DEFAULT_MESSAGES: Record<ErrorCode, string> = {
  invalid_request: "Invalid request (injected fault)",
  unauthorized: "Invalid token (injected fault)",
  forbidden: "Forbidden (injected fault)",
  not_found: "Not found (injected fault)",
  rate_limited: "More than the allowed requests in the rate-limit window (injected fault)",
  internal_error: "Internal server error; retry in a few seconds (injected fault)",
};

export interface BoundOperation {
  readonly operation: ControlOperation;
  /** Where its input comes from over HTTP; none: it reads nothing. */
  readonly source: "body" | "query" | "none";
  /** Validates `input` with the operation's schema and runs it on `state`. */
  run(state: ReferenceState, input: unknown): unknown;
}

/** An operation that reads no input. */
const plain = <R>(operation: ControlOperation, run: (state: ReferenceState) => R) => ({
  operation,
  source: "none" as const,
  run,
});

/** An operation whose input `schema` checks (a body, or for `journal` a query). */
const reading =
  <S extends z.ZodType>(source: "body" | "query", schema: S) =>
  <R>(operation: ControlOperation, run: (state: ReferenceState, input: z.output<S>) => R) => ({
    operation,
    source,
    run: (state: ReferenceState, input: unknown): R => run(state, validate(schema, input, source)),
  });

const ops = CONTROL_OPERATIONS;

const clockView = (state: ReferenceState): ClockView => {
  const { now, frozen, offsetMs } = state.clock.state();
  return { now: now.toISOString(), frozen, offsetMs };
};

export const OPERATIONS = {
  describe: plain(
    ops.describe,
    (state): ControlDescription => ({
      name: "accounting-api-reference control surface",
      api: "/api/v1",
      clock: clockView(state),
      faults: state.faults.list().length,
      journal: state.journal.size,
      latency: state.latency,
      operations: Object.values(CONTROL_OPERATIONS).map(({ method, path, summary }) => ({
        method,
        path: `${CONTROL_BASE}${path}`,
        summary,
      })),
    }),
  ),
  reset: reading("body", ResetInput)(ops.reset, (state, { organization }): ResetView => {
    if (organization !== undefined && state.store.organization(organization) === undefined) {
      const known = state.store
        .organizations()
        .map((o) => o.id)
        .join(", ");
      throw new ApiError("invalid_request", `organization: no organization ${organization}`, {
        organization: [`must be one of ${known}`],
      });
    }
    const started = performance.now();
    state.reset(organization);
    return {
      organizations:
        organization === undefined ? state.store.organizations().map((o) => o.id) : [organization],
      durationMs: Math.round((performance.now() - started) * 1000) / 1000,
    };
  }),
  clock: plain(ops.clock, clockView),
  // `frozen` applies first, so that `{ now, frozen: true }` stops the clock exactly at `now`.
  setClock: reading("body", ClockInput)(ops.setClock, (state, input): ClockView => {
    if (input.frozen !== undefined) state.clock.setFrozen(input.frozen);
    if (input.now !== undefined) state.clock.set(input.now);
    if (input.advance !== undefined) state.clock.advance(input.advance);
    return clockView(state);
  }),
  restoreClock: plain(ops.restoreClock, (state): ClockView => {
    state.clock.restore();
    return clockView(state);
  }),
  faults: plain(ops.faults, (state): FaultView[] => state.faults.list().map(faultView)),
  addFault: reading("body", FaultInput)(ops.addFault, (state, f): FaultView => {
    const code = f.code ?? (f.status === undefined ? undefined : errorCodeOf(f.status));
    const fault = state.faults.add(
      {
        method: f.method,
        path: f.path,
        token: f.token,
        organization: f.organization,
        times: f.times,
        error:
          code === undefined
            ? undefined
            : {
                code,
                message: f.message ?? DEFAULT_MESSAGES[code],
                retryAfterSeconds: code === "rate_limited" ? (f.retryAfter ?? 1) : undefined,
              },
        delayMs: f.delayMs,
        drop: f.drop,
      },
      state.clock.now(),
    );
    return faultView(fault);
  }),
  clearFaults: plain(ops.clearFaults, (state): ClearedView => ({ cleared: state.faults.clear() })),
  journal: reading("query", JournalQuery)(ops.journal, journalEntries),
  clearJournal: plain(ops.clearJournal, (state): ClearedView => ({ cleared: state.journal.clear() })),
} satisfies Record<ControlOperationId, BoundOperation>;

/**
 * The control surface in process (`reference.control`): each operation of the table, typed for the
 * test that calls it, on the reference's state.
 */
export class Control {
  readonly #state: ReferenceState;

  constructor(state: ReferenceState) {
    this.#state = state;
  }

  describe(): ControlDescription {
    return OPERATIONS.describe.run(this.#state);
  }

  /** Everything back to the fixtures, the clock as it started included, or one organization's part. */
  reset(input: z.input<typeof ResetInput> = {}): ResetView {
    return OPERATIONS.reset.run(this.#state, input);
  }

  clock(): ClockView {
    return OPERATIONS.clock.run(this.#state);
  }

  setClock(input: z.input<typeof ClockInput>): ClockView {
    return OPERATIONS.setClock.run(this.#state, input);
  }

  restoreClock(): ClockView {
    return OPERATIONS.restoreClock.run(this.#state);
  }

  addFault(input: z.input<typeof FaultInput>): FaultView {
    return OPERATIONS.addFault.run(this.#state, input);
  }

  faults(): FaultView[] {
    return OPERATIONS.faults.run(this.#state);
  }

  clearFaults(): ClearedView {
    return OPERATIONS.clearFaults.run(this.#state);
  }

  journal(filter: JournalFilter = {}): JournalEntryView[] {
    return journalEntries(this.#state, filter);
  }

  clearJournal(): ClearedView {
    return OPERATIONS.clearJournal.run(this.#state);
  }

  /** Resolves once the changes made so far are kept (with `--data`; at once without). */
  durable(): Promise<void> {
    return this.#state.durable();
  }
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

function journalEntries(state: ReferenceState, filter: JournalFilter): JournalEntryView[] {
  return state.journal.list(filter).map((e: JournalEntry) => ({ ...e, time: e.time.toISOString() }));
}
