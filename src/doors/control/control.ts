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
import { SandboxLimitError, type Sandbox, type Sandboxes } from "../../store/sandboxes.js";
import type { ReferenceState } from "../../store/state.js";
import { validate } from "../../validation/validate.js";
import {
  CONTROL_BASE,
  CONTROL_OPERATIONS,
  sandboxPath,
  type ControlOperation,
  type SandboxOperationId,
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
  SandboxInput,
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
  SandboxCreatedView,
  SandboxDeletedView,
  SandboxView,
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

/** What `waitForRequest` looks for, in process. */
export interface WaitFilter {
  method?: string | undefined;
  path?: string | undefined;
  status?: number | undefined;
  /** A seq already seen: only later requests. */
  after?: number | undefined;
  /** Real time, 5 000 by default, at most 60 000. */
  timeoutMs?: number | undefined;
}

/**
 * The control surface in process (`reference.control`): each operation of the table, typed for the
 * test that calls it, on the reference's state.
 */
export class Control {
  readonly #stateOf: () => ReferenceState;

  /** Over `state`, or over whatever state `state()` gives at each call (a sandbox, while it lives). */
  constructor(state: ReferenceState | (() => ReferenceState)) {
    this.#stateOf = typeof state === "function" ? state : () => state;
  }

  get #state(): ReferenceState {
    return this.#stateOf();
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

  /** Disarms one fault (one that holds until cleared, say); 404 when it is gone already. */
  clearFault(id: string): ClearedView {
    return OPERATIONS.clearFault.run(this.#state, { id });
  }

  journal(filter: JournalFilter = {}): JournalEntryView[] {
    return journalEntries(this.#state, filter);
  }

  /**
   * The oldest request of the journal matching `filter` (`after`: a seq already seen), at once or as
   * soon as one is answered; refused (not_found) after `timeoutMs` (5 000 by default) without one.
   */
  waitForRequest(filter: WaitFilter = {}): Promise<JournalEntryView> {
    // Read as the query string is: the same rules whichever way the filter came.
    const query = Object.fromEntries(
      Object.entries(filter).flatMap(([k, v]) => (v === undefined ? [] : [[k, String(v)]])),
    );
    return OPERATIONS.waitForRequest.run(this.#state, query);
  }

  clearJournal(): ClearedView {
    return OPERATIONS.clearJournal.run(this.#state);
  }

  /**
   * Adds records in the fixtures' format (ids, createdAt and updatedAt may be left out), checked by
   * the fixtures' rules: all of them, or none and an `ApiError` naming the record and field.
   */
  addRecords(input: z.input<typeof RecordsInput>): RecordsView {
    return OPERATIONS.addRecords.run(this.#state, input);
  }

  latency(): LatencyView {
    return OPERATIONS.latency.run(this.#state);
  }

  /** The delay before every API answer of this state: `{ minMs, maxMs }`, `{ minMs: 0 }` for none. */
  setLatency(input: z.input<typeof LatencyInput>): LatencyView {
    return OPERATIONS.setLatency.run(this.#state, input);
  }

  restoreLatency(): LatencyView {
    return OPERATIONS.restoreLatency.run(this.#state);
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

function journalEntries(state: ReferenceState, filter: JournalFilter): JournalEntryView[] {
  return state.journal.list(filter).map(entryView);
}

// --- sandboxes ---------------------------------------------------------------------------------------

/** A sandbox as listed: never its tokens. */
export function sandboxView(sandboxes: Sandboxes, sandbox: Sandbox): SandboxView {
  return {
    id: sandbox.id,
    path: `${CONTROL_BASE}${sandboxPath(sandbox.id)}`,
    organizations: { ...sandbox.organizations },
    createdAt: sandbox.createdAt.toISOString(),
    lastUsedAt: sandbox.lastUsedAt.toISOString(),
    expiresAt: sandboxes.expiresAt(sandbox).toISOString(),
    clock: clockView(sandbox.state),
  };
}

/** Past the maximum: 429, saying why and what frees a place; the door sends `Retry-After`. */
export class SandboxesFull extends ApiError {
  readonly retryAfterSeconds: number;

  constructor(err: SandboxLimitError, sandboxes: Sandboxes) {
    const seconds = Math.max(1, Math.ceil(err.retryAfterMs / 1000));
    super(
      "rate_limited",
      `At most ${err.max} sandbox${err.max === 1 ? "" : "es"} at once (--max-sandboxes, REFERENCE_MAX_SANDBOXES): delete one ` +
        `(DELETE ${CONTROL_BASE}/sandboxes/{id}), or wait ${seconds} s until the least recently used one ` +
        `ends (sandboxes end after ${Math.round(sandboxes.idleMs / 1000)} s without a request)`,
    );
    this.retryAfterSeconds = seconds;
  }
}

/** The sandbox `id`, marked as used, or 404: an id that never was, one deleted, one ended for being idle. */
export function sandboxOf(sandboxes: Sandboxes, id: string): Sandbox {
  const sandbox = sandboxes.use(id);
  if (sandbox === undefined) throw noSandbox(sandboxes, id);
  return sandbox;
}

const noSandbox = (sandboxes: Sandboxes, id: string): ApiError =>
  new ApiError(
    "not_found",
    `No sandbox ${id}: it was never made, was deleted, or ended after ${Math.round(sandboxes.idleMs / 1000)} s without a request; POST ${CONTROL_BASE}/sandboxes makes one`,
  );

/** Creates a sandbox, or throws the 429 of the limit. */
function create(sandboxes: Sandboxes, now: Date | undefined): Sandbox {
  try {
    return sandboxes.create({ now });
  } catch (err) {
    if (err instanceof SandboxLimitError) throw new SandboxesFull(err, sandboxes);
    throw err;
  }
}

export interface BoundSandboxOperation {
  readonly operation: ControlOperation;
  readonly source: "body" | "params" | "none";
  run(sandboxes: Sandboxes, input: unknown): unknown;
}

/** The operations that manage sandboxes, over the registry. */
export const SANDBOX_OPERATIONS = {
  sandboxes: {
    operation: ops.sandboxes,
    source: "none",
    run: (sandboxes: Sandboxes): SandboxView[] => sandboxes.list().map((s) => sandboxView(sandboxes, s)),
  },
  createSandbox: {
    operation: ops.createSandbox,
    source: "body",
    run: (sandboxes: Sandboxes, input: unknown): SandboxCreatedView => {
      const { now } = validate(SandboxInput, input, "body");
      const sandbox = create(sandboxes, now);
      return { ...sandboxView(sandboxes, sandbox), manifest: sandbox.state.manifest };
    },
  },
  deleteSandbox: {
    operation: ops.deleteSandbox,
    source: "params",
    run: (sandboxes: Sandboxes, input: unknown): SandboxDeletedView => {
      const { id } = validate(IdParams, input, "path");
      if (!sandboxes.delete(id)) throw noSandbox(sandboxes, id);
      return { deleted: id };
    },
  },
} as const satisfies Record<SandboxOperationId, BoundSandboxOperation>;

/**
 * A sandbox in process (`reference.sandbox()`): the control surface's operations on its state alone,
 * its id, its tokens by label and its manifest. After `delete()`, every operation is refused as the
 * HTTP surface refuses it (not_found).
 */
export class SandboxControl extends Control {
  readonly id: string;
  /** The fixture tokens of this sandbox, in the format of fixtures/tokens.json. */
  readonly manifest: SandboxCreatedView["manifest"];
  /** Each fixture token's clear value, by label (`tokens["lumiere-full"]`). */
  readonly tokens: Readonly<Record<string, string>>;
  /** Fixture organization id → this sandbox's id for it. */
  readonly organizations: Readonly<Record<string, string>>;
  readonly #sandboxes: Sandboxes;

  constructor(sandboxes: Sandboxes, options: { now?: Date | undefined } = {}) {
    const sandbox = create(sandboxes, options.now);
    const id = sandbox.id;
    // The state is found by id at each call, never held: a deleted sandbox is freed.
    super(() => sandboxOf(sandboxes, id).state);
    this.#sandboxes = sandboxes;
    this.id = sandbox.id;
    this.manifest = sandbox.state.manifest;
    this.tokens = Object.fromEntries(sandbox.state.manifest.tokens.map((t) => [t.label, t.token]));
    this.organizations = sandbox.organizations;
  }

  /** The sandbox's state itself (its store, tokens, clock), for a test that reads it directly. */
  get state(): ReferenceState {
    return sandboxOf(this.#sandboxes, this.id).state;
  }

  override describe(): ControlDescription {
    const sandbox = sandboxOf(this.#sandboxes, this.id);
    return { ...super.describe(), sandbox: sandboxView(this.#sandboxes, sandbox) };
  }

  /** Ends the sandbox: its tokens are refused at once. False when it had ended already. */
  delete(): boolean {
    return this.#sandboxes.delete(this.id);
  }
}
