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
  /** How many requests it takes in all; null when it holds for a duration or until cleared. */
  times: number | null;
  /** How many it has still to take; null when it is not counted. */
  remaining: number | null;
  /** When a fault armed for a duration stops (the reference's clock); null otherwise. */
  until: string | null;
  untilCleared: boolean;
  /** How many requests it has taken so far: a count that surprises shows here and in the journal. */
  taken: number;
  status: number | null;
  code: string | null;
  message: string | null;
  retryAfter: number | null;
  delayMs: number | null;
  drop: boolean;
  /** A failure the spec does not list (a gateway's 502, an HTML page, a cut body), or null. */
  beyondSpec: string | null;
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
