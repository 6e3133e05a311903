import { performance } from "node:perf_hooks";
import type { z } from "zod";
import { ApiError, defaultErrors, errorCodeOf, roleOfCode, type ErrorRole } from "../../model/errors.js";
import type { Sandbox, Sandboxes } from "../../store/sandboxes.js";
import type { ReferenceState } from "../../store/state.js";
import { validate } from "../../validation/validate.js";
import { checkAdded } from "./added-records.js";
import { newSandbox, noSandbox, ownOrganization } from "./sandbox-access.js";
import {
  ClockInput,
  DEFAULT_WAIT_MS,
  FaultInput,
  IdParams,
  JournalQuery,
  JournalWaitQuery,
  LatencyInput,
  RecordsInput,
  ResetInput,
  SandboxInput,
} from "./schemas.js";
import {
  clockView,
  CONTROL_BASE,
  createdView,
  entryView,
  faultView,
  SANDBOX_BASE,
  sandboxView,
} from "./views.js";
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
 * The control surface as one table: each operation's row says its method and path under /__control,
 * what it does, what it reads (a body, a query, the path's id) with which schema, and its handler.
 * Everything else derives from it: the HTTP door (door.ts), the surface's description
 * (`GET /__control/`), the in-process control (`reference.control`, in-process.ts) and the HTTP client
 * (src/clients/control.ts: its types from this file, type-only; its routes from the generated
 * src/clients/control-routes.ts). Adding an operation is a row here; then `npm run control-routes`.
 */

export type Method = "GET" | "POST" | "PUT" | "DELETE";

/** Where an operation's input comes from over HTTP: the body, the query string, the path's `:id`, nothing. */
export type InputSource = "body" | "query" | "id" | "none";

/** What an operation acts on: the state of its surface and the sandboxes of the reference. */
export interface ControlScope {
  /** The default state under /__control; a sandbox's under /__control/sandboxes/{id}. */
  readonly state: ReferenceState;
  readonly sandboxes: Sandboxes;
  /** The sandbox whose surface this is; undefined on the default state's. */
  readonly sandbox: Sandbox | undefined;
}

type Target = "state" | "sandboxes";

/** One row: `A`, the arguments of its method in the clients; `R`, what it answers; `O`, what it acts on. */
export interface ControlOperation<A extends unknown[] = unknown[], R = unknown, O extends Target = Target> {
  readonly method: Method;
  /** Under /__control (and under /__control/sandboxes/{id} for an operation on one state). */
  readonly path: string;
  readonly summary: string;
  readonly status: 200 | 201;
  /** It changes the state: answered over HTTP once the change is kept (`--data`). */
  readonly changes: boolean;
  /** The largest body it reads. */
  readonly bodyLimitBytes: number;
  /** `state`: on one state, the default one or a sandbox's; `sandboxes`: manages them, under /__control only. */
  readonly on: O;
  readonly source: InputSource;
  /** The clients' arguments as the input the HTTP door reads: the body, the query's strings, `{ id }`. */
  inputOf(...args: A): unknown;
  /** Validates `input` with the row's schema, then runs the handler. */
  run(scope: ControlScope, input: unknown): R;
}

interface RowInfo {
  method: Method;
  path: string;
  summary: string;
  status?: 201;
  changes?: true;
  bodyLimitBytes?: number;
  on?: "sandboxes";
}

/** What a row acts on, as its type says it: one state unless it says `sandboxes`. */
type OnOf<I extends RowInfo> = I extends { on: "sandboxes" } ? "sandboxes" : "state";

const row = <A extends unknown[], R, I extends RowInfo>(
  info: I,
  source: InputSource,
  inputOf: (...args: A) => unknown,
  run: (scope: ControlScope, input: unknown) => R,
): ControlOperation<A, R, OnOf<I>> => ({
  method: info.method,
  path: info.path,
  summary: info.summary,
  status: info.status ?? 200,
  changes: info.changes === true,
  bodyLimitBytes: info.bodyLimitBytes ?? 16 * 1024,
  // What OnOf<I> says of the same field, which TypeScript cannot follow through `??`.
  on: (info.on ?? "state") as OnOf<I>,
  source,
  inputOf,
  run,
});

/** An operation that reads nothing. */
const plain = <R, I extends RowInfo>(info: I, handler: (scope: ControlScope) => R) =>
  row<[], R, I>(info, "none", () => undefined, handler);

/** An operation that reads a JSON body; its method takes the body, optional when every field is. */
const withBody = <S extends z.ZodType, R, I extends RowInfo>(
  schema: S,
  info: I,
  handler: (scope: ControlScope, input: z.output<S>) => R,
) =>
  row<object extends z.input<S> ? [input?: z.input<S>] : [input: z.input<S>], R, I>(
    info,
    "body",
    (input?: z.input<S>) => input ?? {},
    (scope, input) => handler(scope, validate(schema, input ?? {}, "body")),
  );

/**
 * An operation that reads a query string; its method takes the values it stands for (numbers as
 * numbers), which are written as a query string's before they are read, so that the same rules hold
 * however they came.
 */
const withQuery = <S extends z.ZodType<object, Record<string, string | undefined>>, R, I extends RowInfo>(
  schema: S,
  info: I,
  handler: (scope: ControlScope, input: z.output<S>) => R,
) =>
  row<[filter?: z.output<S>], R, I>(
    info,
    "query",
    (filter?: z.output<S>) => queryOf(filter ?? {}),
    (scope, input) => handler(scope, validate(schema, input, "query")),
  );

/** An operation on the `:id` of its path; its method takes the id. */
const withId = <R, I extends RowInfo>(info: I, handler: (scope: ControlScope, id: string) => R) =>
  row<[id: string], R, I>(
    info,
    "id",
    (id: string) => ({ id }),
    (scope, input) => handler(scope, validate(IdParams, input, "path").id),
  );

const queryOf = (values: object): Record<string, string> =>
  Object.fromEntries(
    Object.entries(values).flatMap(([k, v]: [string, unknown]) => (v === undefined ? [] : [[k, String(v)]])),
  );

/** The messages the reference itself answers with, so that an injected error reads like a real one. */
const DEFAULT_MESSAGES: Record<ErrorRole, string> = {
  invalidRequest: "Invalid request (injected fault)",
  unauthorized: "Invalid token (injected fault)",
  forbidden: "Forbidden (injected fault)",
  notFound: "Not found (injected fault)",
  rateLimited: "More than the allowed requests in the rate-limit window (injected fault)",
  internal: "Internal server error; retry in a few seconds (injected fault)",
  duplicateSku: "Invalid request (injected fault)",
};

export const CONTROL_TABLE = {
  describe: plain(
    { method: "GET", path: "/", summary: "This description" },
    (scope): ControlDescription => describeSurface(scope),
  ),
  reset: withBody(
    ResetInput,
    {
      method: "POST",
      path: "/reset",
      summary: "Back to the fixtures, the clock as it started included: all, or { organization }",
      changes: true,
    },
    ({ state, sandbox }, input): ResetView => {
      const organization =
        input.organization === undefined ? undefined : ownOrganization(sandbox, input.organization);
      if (organization !== undefined && state.store.organization(organization) === undefined) {
        const known = state.store
          .organizations()
          .map((o) => o.id)
          .concat(sandbox === undefined ? [] : Object.keys(sandbox.organizations))
          .join(", ");
        throw new ApiError("invalidRequest", `organization: no organization ${organization}`, {
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
    },
  ),
  clock: plain({ method: "GET", path: "/clock", summary: "The reference's clock" }, ({ state }) =>
    clockView(state),
  ),
  setClock: withBody(
    ClockInput,
    {
      method: "PUT",
      path: "/clock",
      summary: "Set { now }, { advance: ISO 8601 duration }, { frozen }",
      changes: true,
    },
    ({ state }, input): ClockView => {
      // `frozen` applies first, so that `{ now, frozen: true }` stops the clock exactly at `now`.
      if (input.frozen !== undefined) state.clock.setFrozen(input.frozen);
      if (input.now !== undefined) state.clock.set(input.now);
      if (input.advance !== undefined) state.clock.advance(input.advance);
      return clockView(state);
    },
  ),
  restoreClock: plain(
    {
      method: "DELETE",
      path: "/clock",
      summary: "Back to the time the server started with",
      changes: true,
    },
    ({ state }): ClockView => {
      state.clock.restore();
      return clockView(state);
    },
  ),
  faults: plain({ method: "GET", path: "/faults", summary: "Armed faults" }, ({ state }): FaultView[] =>
    state.faults.list(state.clock.now()).map(faultView),
  ),
  addFault: withBody(
    FaultInput,
    {
      method: "POST",
      path: "/faults",
      summary: "Arm a fault: for the next N matching API requests, for a duration, or until cleared",
      status: 201,
    },
    ({ state, sandbox }, f): FaultView => {
      const code = f.code ?? (f.status === undefined ? undefined : errorCodeOf(f.status));
      const role = code === undefined ? undefined : (roleOfCode(defaultErrors(), code) ?? "internal");
      const now = state.clock.now();
      const fault = state.faults.add(
        {
          method: f.method,
          path: f.path,
          token: f.token,
          organization: f.organization === undefined ? undefined : ownOrganization(sandbox, f.organization),
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
                  message: f.message ?? DEFAULT_MESSAGES[role ?? "internal"],
                  retryAfterSeconds: role === "rateLimited" ? (f.retryAfter ?? 1) : undefined,
                },
          delayMs: f.delayMs,
          drop: f.drop,
          beyondSpec: f.beyondSpec,
        },
        now,
      );
      return faultView(fault);
    },
  ),
  clearFaults: plain(
    { method: "DELETE", path: "/faults", summary: "Disarm every fault" },
    ({ state }): ClearedView => ({ cleared: state.faults.clear() }),
  ),
  clearFault: withId(
    { method: "DELETE", path: "/faults/:id", summary: "Disarm one fault" },
    ({ state }, id): ClearedView => {
      if (!state.faults.remove(id)) {
        throw new ApiError("notFound", `No armed fault ${id}: it was cleared, used up or ran out`);
      }
      return { cleared: 1 };
    },
  ),
  journal: withQuery(
    JournalQuery,
    {
      method: "GET",
      path: "/journal",
      summary:
        "Last 1000 API requests with their bodies, newest first (?method, ?path, ?status, ?after, ?limit)",
    },
    ({ state }, filter): JournalEntryView[] => state.journal.list(filter).map(entryView),
  ),
  waitForRequest: withQuery(
    JournalWaitQuery,
    {
      method: "GET",
      path: "/journal/wait",
      summary:
        "The oldest request matching ?method, ?path, ?status, ?after, at once or as soon as one is answered (?timeoutMs, 5000 by default); 404 if none came",
    },
    async ({ state }, { timeoutMs = DEFAULT_WAIT_MS, ...filter }): Promise<JournalEntryView> => {
      const entry = await state.journal.waitFor(filter, timeoutMs);
      if (entry !== undefined) return entryView(entry);
      const wanted = [filter.method, filter.path, filter.status].filter((x) => x !== undefined).join(" ");
      const seen = state.journal
        .list({ limit: 5 })
        .map((e) => `${e.method} ${e.path} ${e.status ?? "(no answer)"}`)
        .join(", ");
      throw new ApiError(
        "notFound",
        `No ${wanted === "" ? "" : `${wanted} `}request${filter.after === undefined ? "" : ` after seq ${filter.after}`} within ${timeoutMs} ms; the last ones: ${seen === "" ? "none" : seen}`,
      );
    },
  ),
  clearJournal: plain(
    { method: "DELETE", path: "/journal", summary: "Empty the journal" },
    ({ state }): ClearedView => ({ cleared: state.journal.clear() }),
  ),
  addRecords: withBody(
    RecordsInput,
    {
      method: "POST",
      path: "/records",
      summary:
        "Add contacts, products, accounts, invoices and expenses in the fixtures' format, checked like fixtures: all or nothing",
      status: 201,
      changes: true,
      bodyLimitBytes: 10 * 1024 * 1024,
    },
    ({ state, sandbox }, input): RecordsView => {
      const checked = checkAdded(state, input, (id) => ownOrganization(sandbox, id));
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
    },
  ),
  latency: plain(
    { method: "GET", path: "/latency", summary: "The delay before every API answer" },
    ({ state }): LatencyView => ({ latency: state.latency }),
  ),
  setLatency: withBody(
    LatencyInput,
    {
      method: "PUT",
      path: "/latency",
      summary: "Set the delay before every API answer: { minMs, maxMs } (0 for none)",
    },
    ({ state }, { minMs, maxMs = minMs }): LatencyView => {
      state.latency = maxMs === 0 ? null : { minMs, maxMs };
      return { latency: state.latency };
    },
  ),
  restoreLatency: plain(
    {
      method: "DELETE",
      path: "/latency",
      summary: "Back to the delay the server started with (--latency)",
    },
    ({ state }): LatencyView => {
      state.latency = state.startLatency;
      return { latency: state.latency };
    },
  ),
  sandboxes: plain(
    {
      method: "GET",
      path: "/sandboxes",
      summary: "The sandboxes alive, oldest first (their tokens are shown at creation only)",
      on: "sandboxes",
    },
    ({ sandboxes }): SandboxView[] => sandboxes.list().map((s) => sandboxView(sandboxes, s)),
  ),
  createSandbox: withBody(
    SandboxInput,
    {
      method: "POST",
      path: "/sandboxes",
      summary:
        "A new sandbox, { now }? for its clock, { spec }? a spec variant of its own: its id and its token manifest (the format of tokens.json); every operation above acts on it alone under /__control/sandboxes/{id}",
      status: 201,
      on: "sandboxes",
    },
    ({ sandboxes }, { now, spec }): SandboxCreatedView =>
      createdView(sandboxes, newSandbox(sandboxes, now, spec)),
  ),
  deleteSandbox: withId(
    {
      method: "DELETE",
      path: SANDBOX_BASE,
      summary: "End a sandbox: its tokens are refused (401) at once",
      on: "sandboxes",
    },
    ({ sandboxes }, id): SandboxDeletedView => {
      if (!sandboxes.delete(id)) throw noSandbox(sandboxes, id);
      return { deleted: id };
    },
  ),
};

/**
 * Methods of the clients that stand for an operation with one field of its input given alone:
 * `advanceClock("P2D")` is `setClock({ advance: "P2D" })`, in process and over HTTP alike.
 */
export const SHORTHANDS = {
  advanceClock: { of: "setClock", field: "advance" },
} as const satisfies Record<string, { of: OperationId; field: string }>;

function describeSurface({ state, sandboxes, sandbox }: ControlScope): ControlDescription {
  return {
    name: "accounting-api-reference control surface",
    api: "/api/v1",
    sandbox: sandbox === undefined ? null : sandboxView(sandboxes, sandbox),
    clock: clockView(state),
    faults: state.faults.list(state.clock.now()).length,
    journal: state.journal.size,
    latency: state.latency,
    operations: Object.entries(CONTROL_TABLE).map(([name, operation]: [string, ControlOperation]) => {
      // Written as the README writes them: `{id}`, not the router's `:id`.
      const path = operation.path.replace(":id", "{id}");
      return {
        name,
        method: operation.method,
        path: `${CONTROL_BASE}${path}`,
        sandboxPath: operation.on === "sandboxes" ? null : `${CONTROL_BASE}/sandboxes/{id}${path}`,
        summary: operation.summary,
      };
    }),
  };
}

// The types the clients are written in: every method's arguments and answer, from the rows.

export type ControlTable = typeof CONTROL_TABLE;
export type OperationId = keyof ControlTable;
/** The operations on one state, the default one or a sandbox's. */
export type StateOperationId = {
  [K in OperationId]: ControlTable[K]["on"] extends "state" ? K : never;
}[OperationId];
/** The operations that manage sandboxes, under /__control only. */
export type SandboxOperationId = Exclude<OperationId, StateOperationId>;
export type ShorthandId = keyof typeof SHORTHANDS;

/** The arguments of an operation's method. */
export type ArgsOf<K extends OperationId> = Parameters<ControlTable[K]["inputOf"]>;
/** What an operation's handler answers (a promise for `waitForRequest`). */
export type ResultOf<K extends OperationId> = ReturnType<ControlTable[K]["run"]>;

type Shorthand<K extends ShorthandId> = (typeof SHORTHANDS)[K];
type FieldOf<I, F extends string> = I extends { [P in F]?: infer V } ? Exclude<V, undefined> : never;
export type ShorthandArgs<K extends ShorthandId> = [
  value: FieldOf<ArgsOf<Shorthand<K>["of"]>[0], Shorthand<K>["field"]>,
];
export type ShorthandOf<K extends ShorthandId> = Shorthand<K>["of"];

/** The operations on one state as methods answering at once, as `reference.control` has them. */
export type InProcessStateMethods = {
  [K in StateOperationId]: (...args: ArgsOf<K>) => ResultOf<K>;
} & { [K in ShorthandId]: (...args: ShorthandArgs<K>) => ResultOf<ShorthandOf<K>> };

/** The same methods over HTTP: each answers a promise of the JSON the door sends. */
export type RemoteStateMethods = {
  [K in StateOperationId]: (...args: ArgsOf<K>) => Promise<Awaited<ResultOf<K>>>;
} & { [K in ShorthandId]: (...args: ShorthandArgs<K>) => Promise<Awaited<ResultOf<ShorthandOf<K>>>> };
