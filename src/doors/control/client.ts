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
import { CONTROL_BASE, CONTROL_OPERATIONS as OPS, sandboxPath, type ControlOperation } from "./operations.js";

/**
 * A typed client of the control surface, for test runners (Playwright, Cypress, vitest) and scripts:
 *
 *   const control = new ControlClient({ baseUrl: "http://127.0.0.1:4010", key: process.env.CONTROL_KEY! });
 *   await control.reset();
 *   const sandbox = await control.createSandbox(); // a world of one's own: sandbox.tokens["lumiere-full"]
 *
 * It imports nothing of the server: only fetch, types and the operations table (plain data).
 */

export interface ControlClientOptions {
  /** The server's base URL, as the banner prints it. */
  baseUrl: string;
  /** The control key the banner prints (or `--control-key`). */
  key: string;
  fetch?: typeof fetch;
}

/** Inputs, as the surface documents them (GET /__control/ lists the operations). */
export interface ResetRequest {
  organization?: string;
}
export interface ClockRequest {
  /** An ISO 8601 date-time with its zone. */
  now?: string;
  /** An ISO 8601 duration in days to seconds: `PT61S`, `P1D`, `-PT5M`. */
  advance?: string;
  frozen?: boolean;
}
export type ErrorStatus = 400 | 401 | 403 | 404 | 429 | 500;
export type ErrorCodeName =
  | "invalid_request"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "rate_limited"
  | "internal_error";
/** What the spec does not list but a deployment can send (README, "Faults beyond the spec"). */
export type BeyondSpecFailure =
  | "bad_gateway"
  | "service_unavailable"
  | "gateway_timeout"
  | "html_page"
  | "truncated_body";
export interface FaultRequest {
  method?: "GET" | "POST";
  /** One of §4's endpoint paths, exactly (no pattern); leave it out to match every request. */
  path?: string;
  /** A token's label. */
  token?: string;
  organization?: string;
  /** How many matching requests it takes (1 when neither duration nor untilCleared is given). */
  times?: number;
  /** Or: every matching request for this long on the reference's clock, an ISO 8601 duration (`PT30S`). */
  duration?: string;
  /** Or: every matching request until the fault is cleared. */
  untilCleared?: true;
  status?: ErrorStatus;
  code?: ErrorCodeName;
  message?: string;
  /** Seconds, for a 429 (1 by default). */
  retryAfter?: number;
  delayMs?: number;
  drop?: true;
  beyondSpec?: BeyondSpecFailure;
}
export interface JournalRequest {
  method?: string;
  path?: string;
  status?: number;
  /** A seq already seen: only the requests after it. */
  after?: number;
  limit?: number;
}
export interface WaitRequest {
  method?: string;
  path?: string;
  status?: number;
  /** A seq already seen: only a request after it. */
  after?: number;
  /** Real time, 5 000 by default, at most 60 000. */
  timeoutMs?: number;
}
export interface LatencyRequest {
  minMs: number;
  /** `minMs` when left out; 0 and 0 for none. */
  maxMs?: number;
}
export interface SandboxRequest {
  /** Where the sandbox's clock starts, an ISO 8601 date-time with its zone (the server's start by default). */
  now?: string;
}

/** Records in the fixtures' format (README, "Fixtures"); `id`, `createdAt` and `updatedAt` may be left out. */
export interface ContactRecordInput {
  id?: string;
  organizationId: string;
  type: "CLIENT" | "SUPPLIER" | "BOTH";
  name: string;
  email: string | null;
  phone: string | null;
  address: string | null;
  taxNumberTPS: string | null;
  taxNumberTVQ: string | null;
  createdAt?: string;
  updatedAt?: string;
}
export interface ProductRecordInput {
  id?: string;
  organizationId: string;
  sku: string;
  name: string;
  description: string | null;
  type: "PRODUCT" | "SERVICE";
  /** A decimal string with exactly 4 decimals: `"12.5000"`. */
  unitPrice: string;
  taxable: boolean;
  createdAt?: string;
  updatedAt?: string;
}
export interface AccountRecordInput {
  id?: string;
  organizationId: string;
  code: string;
  name: string;
}
export interface InvoiceRecordInput {
  id?: string;
  organizationId: string;
  invoiceNumber: string;
  /** Midnight UTC: `2026-10-30T00:00:00.000Z`. */
  date: string;
  dueDate: string;
  status: "DRAFT" | "SENT" | "PAID" | "OVERDUE" | "VOIDED";
  subtotal: string;
  /** The part of the subtotal taxes apply to (never served); tps and tvq must follow from it. */
  taxableSubtotal: string;
  tps: string;
  tvq: string;
  total: string;
  description: string;
  contactId: string;
  createdAt?: string;
}
export interface ExpenseRecordInput {
  id?: string;
  organizationId: string;
  date: string;
  status: "DRAFT" | "APPROVED" | "PAID" | "REJECTED";
  amount: string;
  taxableAmount: string;
  tps: string;
  tvq: string;
  total: string;
  description: string;
  contactId: string;
  accountId: string;
  createdAt?: string;
}
export interface RecordsRequest {
  contacts?: ContactRecordInput[];
  products?: ProductRecordInput[];
  accounts?: AccountRecordInput[];
  invoices?: InvoiceRecordInput[];
  expenses?: ExpenseRecordInput[];
}

/** A refusal of the control surface, in the API's error envelope. */
export class ControlError extends Error {
  override readonly name = "ControlError";
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, string[]>,
  ) {
    super(message);
  }
}

/** The operations on one state: the default one (`ControlClient`) or a sandbox's (`SandboxClient`). */
abstract class StateClient {
  readonly #base: string;
  readonly #key: string;
  readonly #fetch: typeof fetch;

  protected constructor(options: ControlClientOptions, under = "") {
    this.#base = `${options.baseUrl.replace(/\/+$/, "")}${CONTROL_BASE}${under}`;
    this.#key = options.key;
    this.#fetch = options.fetch ?? fetch;
  }

  describe(): Promise<ControlDescription> {
    return this.call(OPS.describe);
  }

  /** Back to the fixtures, the clock as it started included: everything, or one organization's part. */
  reset(input: ResetRequest = {}): Promise<ResetView> {
    return this.call(OPS.reset, { body: input });
  }

  clock(): Promise<ClockView> {
    return this.call(OPS.clock);
  }

  setClock(input: ClockRequest): Promise<ClockView> {
    return this.call(OPS.setClock, { body: input });
  }

  /** Moves the clock by an ISO 8601 duration, `PT61S`. */
  advanceClock(duration: string): Promise<ClockView> {
    return this.setClock({ advance: duration });
  }

  restoreClock(): Promise<ClockView> {
    return this.call(OPS.restoreClock);
  }

  addFault(input: FaultRequest): Promise<FaultView> {
    return this.call(OPS.addFault, { body: input });
  }

  faults(): Promise<FaultView[]> {
    return this.call(OPS.faults);
  }

  clearFaults(): Promise<ClearedView> {
    return this.call(OPS.clearFaults);
  }

  /** Disarms one fault (one armed `untilCleared`, say). */
  clearFault(id: string): Promise<ClearedView> {
    return this.call(OPS.clearFault, { id });
  }

  journal(filter: JournalRequest = {}): Promise<JournalEntryView[]> {
    return this.call(OPS.journal, { query: filter });
  }

  /**
   * The oldest request matching `filter`, at once if the journal has one, or as soon as one is
   * answered; a `ControlError` (404) after `timeoutMs` without one. WireMock's `verify`, awaited.
   */
  waitForRequest(filter: WaitRequest = {}): Promise<JournalEntryView> {
    return this.call(OPS.waitForRequest, { query: filter });
  }

  clearJournal(): Promise<ClearedView> {
    return this.call(OPS.clearJournal);
  }

  /** Adds records in the fixtures' format, checked like fixtures: all of them or none (400 naming the field). */
  addRecords(input: RecordsRequest): Promise<RecordsView> {
    return this.call(OPS.addRecords, { body: input });
  }

  latency(): Promise<LatencyView> {
    return this.call(OPS.latency);
  }

  setLatency(input: LatencyRequest): Promise<LatencyView> {
    return this.call(OPS.setLatency, { body: input });
  }

  restoreLatency(): Promise<LatencyView> {
    return this.call(OPS.restoreLatency);
  }

  protected async call<T>(
    operation: ControlOperation,
    parts: { body?: object; query?: object; id?: string } = {},
  ): Promise<T> {
    const { method } = operation;
    const path = operation.path.replace(":id", encodeURIComponent(parts.id ?? ""));
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(parts.query ?? {})) {
      if (v !== undefined) query.set(k, String(v));
    }
    const search = query.size === 0 ? "" : `?${query.toString()}`;
    const { body } = parts;
    const res = await this.#fetch(`${this.#base}${path}${search}`, {
      method,
      headers: {
        Authorization: `Bearer ${this.#key}`,
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const parsed: unknown = await res.json().catch(() => undefined);
    if (!res.ok) {
      const error = (
        parsed as { error?: { code?: string; message?: string; details?: Record<string, string[]> } }
      )?.error;
      throw new ControlError(
        res.status,
        error?.code ?? "unknown",
        error?.message ?? `${method} ${path}: HTTP ${res.status}`,
        error?.details,
      );
    }
    return parsed as T;
  }
}

/** The control surface of the server: the default state's operations, and the sandboxes. */
export class ControlClient extends StateClient {
  readonly #options: ControlClientOptions;

  constructor(options: ControlClientOptions) {
    super(options);
    this.#options = options;
  }

  /**
   * A new sandbox: its own copy of the fixtures (new ids), new tokens (`sandbox.tokens[label]`), its
   * own clock, faults, journal and rate-limit counters. The API reaches it through its tokens only.
   */
  async createSandbox(input: SandboxRequest = {}): Promise<SandboxClient> {
    const created = await this.call<SandboxCreatedView>(OPS.createSandbox, { body: input });
    return new SandboxClient(this.#options, created);
  }

  /** The sandboxes alive (never their tokens). */
  sandboxes(): Promise<SandboxView[]> {
    return this.call(OPS.sandboxes);
  }

  deleteSandbox(id: string): Promise<SandboxDeletedView> {
    return this.call(OPS.deleteSandbox, { id });
  }
}

/** One sandbox: the same operations as the server's, on it alone, with its tokens. */
export class SandboxClient extends StateClient {
  readonly id: string;
  /** Its fixture tokens in clear, in the format of fixtures/tokens.json. */
  readonly manifest: SandboxCreatedView["manifest"];
  /** Each fixture token's clear value, by label: `tokens["lumiere-full"]`. */
  readonly tokens: Readonly<Record<string, string>>;
  /** Fixture organization id → the sandbox's id for it. */
  readonly organizations: Readonly<Record<string, string>>;
  readonly #options: ControlClientOptions;

  constructor(options: ControlClientOptions, created: SandboxCreatedView) {
    super(options, sandboxPath(created.id));
    this.#options = options;
    this.id = created.id;
    this.manifest = created.manifest;
    this.tokens = Object.fromEntries(created.manifest.tokens.map((t) => [t.label, t.token]));
    this.organizations = created.organizations;
  }

  /** Ends the sandbox: its tokens are refused (401) at once. */
  async delete(): Promise<SandboxDeletedView> {
    return new ControlClient(this.#options).deleteSandbox(this.id);
  }
}

export type * from "./wire.js";
