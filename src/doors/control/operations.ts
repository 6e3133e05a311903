/**
 * The control surface's operations as data: what each is called, its method and path under
 * /__control, what it does, and whether it changes the state (then it is answered once the change
 * is kept, with `--data`). The HTTP door, its `GET /__control/` description and the typed client all
 * read this table; it holds no code, so the client can import it into a test runner or a browser.
 */
export const CONTROL_OPERATIONS = {
  describe: { method: "GET", path: "/", summary: "This description" },
  reset: {
    method: "POST",
    path: "/reset",
    summary: "Back to the fixtures, the clock as it started included: all, or { organization }",
    changes: true,
  },
  clock: { method: "GET", path: "/clock", summary: "The reference's clock" },
  setClock: {
    method: "PUT",
    path: "/clock",
    summary: "Set { now }, { advance: ISO 8601 duration }, { frozen }",
    changes: true,
  },
  restoreClock: {
    method: "DELETE",
    path: "/clock",
    summary: "Back to the time the server started with",
    changes: true,
  },
  faults: { method: "GET", path: "/faults", summary: "Armed faults" },
  addFault: {
    method: "POST",
    path: "/faults",
    summary: "Arm a fault: for the next N matching API requests, for a duration, or until cleared",
    status: 201,
  },
  clearFaults: { method: "DELETE", path: "/faults", summary: "Disarm every fault" },
  clearFault: { method: "DELETE", path: "/faults/:id", summary: "Disarm one fault" },
  journal: {
    method: "GET",
    path: "/journal",
    summary:
      "Last 1000 API requests with their bodies, newest first (?method, ?path, ?status, ?after, ?limit)",
  },
  waitForRequest: {
    method: "GET",
    path: "/journal/wait",
    summary:
      "The oldest request matching ?method, ?path, ?status, ?after, at once or as soon as one is answered (?timeoutMs, 5000 by default); 404 if none came",
  },
  clearJournal: { method: "DELETE", path: "/journal", summary: "Empty the journal" },
  addRecords: {
    method: "POST",
    path: "/records",
    summary:
      "Add contacts, products, accounts, invoices and expenses in the fixtures' format, checked like fixtures: all or nothing",
    status: 201,
    changes: true,
    bodyLimitBytes: 10 * 1024 * 1024,
  },
  latency: { method: "GET", path: "/latency", summary: "The delay before every API answer" },
  setLatency: {
    method: "PUT",
    path: "/latency",
    summary: "Set the delay before every API answer: { minMs, maxMs } (0 for none)",
  },
  restoreLatency: {
    method: "DELETE",
    path: "/latency",
    summary: "Back to the delay the server started with (--latency)",
  },
  sandboxes: {
    method: "GET",
    path: "/sandboxes",
    summary: "The sandboxes alive, oldest first (their tokens are shown at creation only)",
    on: "sandboxes",
  },
  createSandbox: {
    method: "POST",
    path: "/sandboxes",
    summary:
      "A new sandbox, { now }? for its clock: its id and its token manifest (the format of tokens.json); every operation above acts on it alone under /__control/sandboxes/{id}",
    status: 201,
    on: "sandboxes",
  },
  deleteSandbox: {
    method: "DELETE",
    path: "/sandboxes/:id",
    summary: "End a sandbox: its tokens are refused (401) at once",
    on: "sandboxes",
  },
} as const satisfies Record<string, ControlOperation>;

export interface ControlOperation {
  readonly method: "GET" | "POST" | "PUT" | "DELETE";
  /** Under /__control. */
  readonly path: string;
  readonly summary: string;
  /** The success status; 200 when not said. */
  readonly status?: 201;
  /** It changes the state: answered once the change is kept (`--data`). */
  readonly changes?: true;
  /** The largest body it reads; 16 KiB when not said. */
  readonly bodyLimitBytes?: number;
  /**
   * `sandboxes`: it manages the sandboxes, under /__control only. Every other operation acts on one
   * state: the default one under /__control, a sandbox's under /__control/sandboxes/{id}.
   */
  readonly on?: "sandboxes";
}

export type ControlOperationId = keyof typeof CONTROL_OPERATIONS;

type Operations = typeof CONTROL_OPERATIONS;
/** The operations that manage sandboxes. */
export type SandboxOperationId = {
  [K in ControlOperationId]: Operations[K] extends { on: "sandboxes" } ? K : never;
}[ControlOperationId];
/** The operations on one state, the default one or a sandbox's. */
export type StateOperationId = Exclude<ControlOperationId, SandboxOperationId>;

/** Where a sandbox's own control surface is mounted, under /__control. */
export const sandboxPath = (id: string): string => `/sandboxes/${encodeURIComponent(id)}`;

/** The mount point of the control surface. */
export const CONTROL_BASE = "/__control";
