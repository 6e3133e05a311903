import { performance } from "node:perf_hooks";
import type { z } from "zod";
import { ApiError, ERROR_STATUS, errorCodeOf, type ErrorCode } from "../../model/errors.js";
import type { Fault } from "../../store/faults.js";
import { FixtureError } from "../../store/fixtures/failure.js";
import {
  checkRecords,
  knownOf,
  type CheckedRecords,
  type RecordSources,
} from "../../store/fixtures/records.js";
import { randomIds } from "../../store/ids.js";
import type { JournalEntry, JournalFilter } from "../../store/journal.js";
import type { ReferenceState } from "../../store/state.js";
import { validate } from "../../validation/validate.js";
import {
  CONTROL_BASE,
  CONTROL_OPERATIONS,
  type ControlOperation,
  type StateOperationId,
} from "./operations.js";
import {
  ClockInput,
  FaultInput,
  IdParams,
  JournalQuery,
  JournalWaitQuery,
  LatencyInput,
  RecordsInput,
  ResetInput,
} from "./schemas.js";
import type {
  ClearedView,
  ClockView,
  ControlDescription,
  FaultView,
  JournalEntryView,
  LatencyView,
  RecordsView,
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
  /** Where its input comes from over HTTP (`params`: the path's `:id`); none: it reads nothing. */
  readonly source: "body" | "query" | "params" | "none";
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
  <S extends z.ZodType>(source: "body" | "query" | "params", schema: S) =>
  <R>(operation: ControlOperation, run: (state: ReferenceState, input: z.output<S>) => R) => ({
    operation,
    source,
    run: (state: ReferenceState, input: unknown): R =>
      run(state, validate(schema, input, source === "params" ? "path" : source)),
  });

const ops = CONTROL_OPERATIONS;

export const clockView = (state: ReferenceState): ClockView => {
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
      faults: state.faults.list(state.clock.now()).length,
      journal: state.journal.size,
      latency: state.latency,
      sandbox: null,
      operations: Object.values(CONTROL_OPERATIONS).map((operation: ControlOperation) => {
        // Written as the README writes them: `{id}`, not the router's `:id`.
        const path = operation.path.replace(":id", "{id}");
        return {
          method: operation.method,
          path: `${CONTROL_BASE}${path}`,
          sandboxPath: operation.on === "sandboxes" ? null : `${CONTROL_BASE}/sandboxes/{id}${path}`,
          summary: operation.summary,
        };
      }),
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
  faults: plain(ops.faults, (state): FaultView[] => state.faults.list(state.clock.now()).map(faultView)),
  addFault: reading("body", FaultInput)(ops.addFault, (state, f): FaultView => {
    const code = f.code ?? (f.status === undefined ? undefined : errorCodeOf(f.status));
    const now = state.clock.now();
    const fault = state.faults.add(
      {
        method: f.method,
        path: f.path,
        token: f.token,
        organization: f.organization,
        hold:
          f.untilCleared === true
            ? { untilCleared: true }
            : f.duration !== undefined
              ? { until: new Date(now.getTime() + f.duration) }
              : { times: f.times ?? 1 },
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
        beyondSpec: f.beyondSpec,
      },
      now,
    );
    return faultView(fault);
  }),
  clearFaults: plain(ops.clearFaults, (state): ClearedView => ({ cleared: state.faults.clear() })),
  clearFault: reading("params", IdParams)(ops.clearFault, (state, { id }): ClearedView => {
    if (!state.faults.remove(id)) {
      throw new ApiError("not_found", `No armed fault ${id}: it was cleared, used up or ran out`);
    }
    return { cleared: 1 };
  }),
  journal: reading("query", JournalQuery)(ops.journal, journalEntries),
  waitForRequest: reading("query", JournalWaitQuery)(
    ops.waitForRequest,
    async (state, { timeoutMs, ...filter }): Promise<JournalEntryView> => {
      const entry = await state.journal.waitFor(filter, timeoutMs);
      if (entry !== undefined) return entryView(entry);
      const wanted = [filter.method, filter.path, filter.status].filter((x) => x !== undefined).join(" ");
      const seen = state.journal
        .list({ limit: 5 })
        .map((e) => `${e.method} ${e.path} ${e.status ?? "(no answer)"}`)
        .join(", ");
      throw new ApiError(
        "not_found",
        `No ${wanted === "" ? "" : `${wanted} `}request${filter.after === undefined ? "" : ` after seq ${filter.after}`} within ${timeoutMs} ms; the last ones: ${seen === "" ? "none" : seen}`,
      );
    },
  ),
  addRecords: reading("body", RecordsInput)(ops.addRecords, (state, input): RecordsView => {
    const checked = checkAdded(state, input);
    state.addRecords(checked);
    const ids = {
      contacts: checked.contacts.map((r) => r.id),
      products: checked.products.map((r) => r.id),
      accounts: checked.accounts.map((r) => r.id),
      invoices: checked.invoices.map((r) => r.id),
      expenses: checked.expenses.map((r) => r.id),
    };
    return {
      added: {
        contacts: ids.contacts.length,
        products: ids.products.length,
        accounts: ids.accounts.length,
        invoices: ids.invoices.length,
        expenses: ids.expenses.length,
      },
      ids,
    };
  }),
  latency: plain(ops.latency, (state): LatencyView => ({ latency: state.latency })),
  setLatency: reading("body", LatencyInput)(
    ops.setLatency,
    (state, { minMs, maxMs = minMs }): LatencyView => {
      state.latency = maxMs === 0 ? null : { minMs, maxMs };
      return { latency: state.latency };
    },
  ),
  restoreLatency: plain(ops.restoreLatency, (state): LatencyView => {
    state.latency = state.startLatency;
    return { latency: state.latency };
  }),
  clearJournal: plain(ops.clearJournal, (state): ClearedView => ({ cleared: state.journal.clear() })),
} satisfies Record<StateOperationId, BoundOperation>;

function faultView(f: Fault): FaultView {
  return {
    id: f.id,
    method: f.method ?? null,
    path: f.path ?? null,
    token: f.token ?? null,
    organization: f.organization ?? null,
    times: f.times,
    remaining: f.remaining,
    until: f.until?.toISOString() ?? null,
    untilCleared: f.untilCleared,
    taken: f.taken,
    status: f.error === undefined ? null : ERROR_STATUS[f.error.code],
    code: f.error?.code ?? null,
    message: f.error?.message ?? null,
    retryAfter: f.error?.retryAfterSeconds ?? null,
    delayMs: f.delayMs ?? null,
    drop: f.drop === true,
    beyondSpec: f.beyondSpec ?? null,
    createdAt: f.createdAt.toISOString(),
  };
}

/** Where added records' failures say they come from: the body's lists, and the state. */
const ADDED: RecordSources = {
  contacts: "contacts",
  products: "products",
  accounts: "accounts",
  invoices: "invoices",
  expenses: "expenses",
  known: "one of the state's records",
  organizationsFile: "the state's organizations",
};

/**
 * Records of `POST /__control/records` with what they left out filled in, checked by the fixtures'
 * rules against themselves and the state's records; a failure is a 400 naming the record's field.
 */
function checkAdded(state: ReferenceState, input: z.output<typeof RecordsInput>): CheckedRecords {
  const now = state.clock.now().toISOString();
  const id = (prefix: string, given: string | undefined) => given ?? randomIds(prefix);
  const dated = <R extends { createdAt?: string | undefined }>(r: R) => ({
    ...r,
    createdAt: r.createdAt ?? now,
  });
  const records = {
    contacts: (input.contacts ?? []).map((r) => {
      const c = dated(r);
      return { ...c, id: id("con", r.id), updatedAt: r.updatedAt ?? c.createdAt };
    }),
    products: (input.products ?? []).map((r) => {
      const p = dated(r);
      return { ...p, id: id("prd", r.id), updatedAt: r.updatedAt ?? p.createdAt };
    }),
    accounts: (input.accounts ?? []).map((r) => ({ ...r, id: id("acc", r.id) })),
    invoices: (input.invoices ?? []).map((r) => ({ ...dated(r), id: id("inv", r.id) })),
    expenses: (input.expenses ?? []).map((r) => ({ ...dated(r), id: id("exp", r.id) })),
  };
  const existing = state.store.records();
  const known = knownOf({ ...existing, organizations: existing.organizations.map((o) => o.id) });
  try {
    return checkRecords(records, ADDED, known);
  } catch (err) {
    if (!(err instanceof FixtureError)) throw err;
    const field = [err.file, err.record, err.field].filter((p) => p !== undefined).join(".");
    throw new ApiError("invalid_request", err.message, { [field]: [err.detail ?? err.message] });
  }
}

const entryView = (e: JournalEntry): JournalEntryView => ({ ...e, time: e.time.toISOString() });

export function journalEntries(state: ReferenceState, filter: JournalFilter): JournalEntryView[] {
  return state.journal.list(filter).map(entryView);
}
