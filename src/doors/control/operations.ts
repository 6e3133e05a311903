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
}

export type ControlOperationId = keyof typeof CONTROL_OPERATIONS;

/** The mount point of the control surface. */
export const CONTROL_BASE = "/__control";
