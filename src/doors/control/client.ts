import type {
  ClearedView,
  ClockView,
  ControlDescription,
  FaultView,
  JournalEntryView,
  ResetView,
} from "./wire.js";
import { CONTROL_BASE, CONTROL_OPERATIONS as OPS, type ControlOperation } from "./operations.js";

/**
 * A typed client of the control surface, for test runners (Playwright, Cypress, vitest) and scripts:
 *
 *   const control = new ControlClient({ baseUrl: "http://127.0.0.1:4010", key: process.env.CONTROL_KEY! });
 *   await control.reset();
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
  path?: string;
  status?: number;
  limit?: number;
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

export class ControlClient {
  readonly #base: string;
  readonly #key: string;
  readonly #fetch: typeof fetch;

  constructor(options: ControlClientOptions) {
    this.#base = `${options.baseUrl.replace(/\/+$/, "")}${CONTROL_BASE}`;
    this.#key = options.key;
    this.#fetch = options.fetch ?? fetch;
  }

  describe(): Promise<ControlDescription> {
    return this.#call(OPS.describe);
  }

  /** Back to the fixtures: everything, or one organization's records and tokens. */
  reset(input: ResetRequest = {}): Promise<ResetView> {
    return this.#call(OPS.reset, input);
  }

  clock(): Promise<ClockView> {
    return this.#call(OPS.clock);
  }

  setClock(input: ClockRequest): Promise<ClockView> {
    return this.#call(OPS.setClock, input);
  }

  /** Moves the clock by an ISO 8601 duration, `PT61S`. */
  advanceClock(duration: string): Promise<ClockView> {
    return this.setClock({ advance: duration });
  }

  restoreClock(): Promise<ClockView> {
    return this.#call(OPS.restoreClock);
  }

  addFault(input: FaultRequest): Promise<FaultView> {
    return this.#call(OPS.addFault, input);
  }

  faults(): Promise<FaultView[]> {
    return this.#call(OPS.faults);
  }

  clearFaults(): Promise<ClearedView> {
    return this.#call(OPS.clearFaults);
  }

  journal(filter: JournalRequest = {}): Promise<JournalEntryView[]> {
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(filter)) if (v !== undefined) query.set(k, String(v));
    return this.#call(OPS.journal, undefined, query.toString());
  }

  clearJournal(): Promise<ClearedView> {
    return this.#call(OPS.clearJournal);
  }

  async #call<T>(operation: ControlOperation, body?: object, query = ""): Promise<T> {
    const { method, path } = operation;
    const res = await this.#fetch(`${this.#base}${path}${query === "" ? "" : `?${query}`}`, {
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

export type { ClearedView, ClockView, ControlDescription, FaultView, JournalEntryView, ResetView };
