/**
 * The control surface's answers as JSON, shared by the HTTP door and the typed client. Type-only, so
 * that the client pulls no server code into a test runner or a browser bundle.
 */

export interface ClockView {
  /** ISO 8601, UTC, milliseconds: the instant the reference uses for createdAt, expiry and rate limits. */
  now: string;
  frozen: boolean;
  /** How far the reference's clock stands from the real one, in ms. */
  offsetMs: number;
}

export interface ResetView {
  /** The organizations put back to their fixtures. */
  organizations: string[];
  durationMs: number;
}

export interface FaultView {
  id: string;
  method: string | null;
  path: string | null;
  token: string | null;
  organization: string | null;
  times: number;
  remaining: number;
  status: number | null;
  code: string | null;
  message: string | null;
  retryAfter: number | null;
  delayMs: number | null;
  drop: boolean;
  createdAt: string;
}

/** One API request as the journal keeps it: never a token in clear, never an `Authorization` value. */
export interface JournalEntryView {
  /** Increasing with each request, so that a client can tell new entries from seen ones. */
  seq: number;
  /** When it arrived, on the reference's clock. */
  time: string;
  method: string;
  path: string;
  /** The query string as sent, without `?`, with anything shaped like a token redacted. */
  query: string;
  /** null when the connection was closed without an answer (a `drop` fault, or the client left). */
  status: number | null;
  /** The label of the token presented, when it is a known token (active, expired or revoked). */
  token: string | null;
  organization: string | null;
  /** Real time spent answering, in ms (injected latency included). */
  durationMs: number;
  /** The id of the fault that took the request. */
  fault: string | null;
}

export interface ClearedView {
  cleared: number;
}

export interface ControlDescription {
  name: string;
  api: string;
  clock: ClockView;
  faults: number;
  journal: number;
  latency: { minMs: number; maxMs: number } | null;
  operations: Array<{ method: string; path: string; summary: string }>;
}
