/**
 * The control surface's answers as JSON, shared by the HTTP door and the typed client. Type-only, so
 * that the client pulls no server code into a test runner or a browser bundle.
 */
import type { TokenManifest } from "../../store/fixtures/manifest.js";
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

/** The delay before every API answer, in ms, drawn at random between the two; null: none. */
export interface LatencyView {
  latency: { minMs: number; maxMs: number } | null;
}

/** What `POST /__control/records` added, by kind: how many and their ids, in the order given. */
export interface RecordsView {
  added: { contacts: number; products: number; accounts: number; invoices: number; expenses: number };
  ids: { contacts: string[]; products: string[]; accounts: string[]; invoices: string[]; expenses: string[] };
}

export interface ClearedView {
  cleared: number;
}

/** A sandbox as listed: never its tokens. Instants on the server's own (real) time. */
export interface SandboxView {
  id: string;
  /** Its control surface: each operation of /__control on one state, under this path, acts on it alone. */
  path: string;
  /** Fixture organization id → the sandbox's id for it. */
  organizations: Record<string, string>;
  createdAt: string;
  lastUsedAt: string;
  /** When it ends unless a request or a control call uses it first. */
  expiresAt: string;
  /** Its own clock. */
  clock: ClockView;
}

/** A sandbox as created: with its token manifest, the only time its tokens are shown. */
export interface SandboxCreatedView extends SandboxView {
  /** In the format of fixtures/tokens.json, tokens in clear: `npx conformance --tokens` reads it. */
  manifest: TokenManifest;
}

export interface SandboxDeletedView {
  deleted: string;
}

export interface ControlDescription {
  name: string;
  api: string;
  /** The sandbox this surface acts on, or null for the default state. */
  sandbox: SandboxView | null;
  clock: ClockView;
  faults: number;
  journal: number;
  latency: { minMs: number; maxMs: number } | null;
  /**
   * Each operation: `name`, its method's name in the clients (in process and over HTTP); `sandboxPath`,
   * the same on a sandbox (null for those that manage sandboxes).
   */
  operations: Array<{
    name: string;
    method: string;
    path: string;
    sandboxPath: string | null;
    summary: string;
  }>;
}
