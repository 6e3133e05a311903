/**
 * The control surface's answers as JSON, shared by the HTTP door and the typed client. Type-only, so
 * that the client pulls no server code into a test runner or a browser bundle.
 */
import type { JournalEntry } from "../../store/journal.js";

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

/** One API request of the journal, its time as an ISO 8601 instant. */
export type JournalEntryView = Omit<JournalEntry, "time"> & { time: string };

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
