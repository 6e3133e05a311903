import type { Cause, Observation } from "./failures.js";
import type { KitIdentity } from "./kit.js";
import type { ManifestToken, RateLimitScope, TokenManifest } from "./manifest-schema.js";
import type { ClauseRef } from "./spec/clauses.js";
import type { KitSpec } from "./spec/kit-spec.js";
import type { SpecKey } from "./spec/reads.js";
import type { HttpClient } from "./exchange.js";

export type { DerivedSecret, HttpClient, HttpExchange, HttpRequest } from "./exchange.js";

/**
 * The contract between the kit's runner and its catalogue of checks. A check states one rule of the
 * spec, at one level (spec-gaps "kit stance"), and proves or disproves it with real HTTP exchanges.
 */

/**
 * MUST: the spec says it; a failure fails the run.
 * SHOULD: follows from the spec without being said; fails the run only with --strict.
 * REFERENCE: the reference server's own answer to an open point; run only with --profile reference.
 * PROBE: an open point, run to show what the target does; never fails, its observation is reported.
 */
export const LEVELS = ["MUST", "SHOULD", "REFERENCE", "PROBE"] as const;
export type Level = (typeof LEVELS)[number];

export type Profile = "spec" | "reference";

/** What a check needs from the token manifest; a check whose need is unmet is skipped with the reason. */
export type TokenNeed =
  | { kind: "full"; org?: 0 | 1 } // active, every scope that has an endpoint, an organization with API access
  | { kind: "scopes"; scopes: readonly string[]; exact?: boolean } // active token holding (exactly) these
  | { kind: "no-scope" }
  | { kind: "revoked" }
  | { kind: "expired" }
  | { kind: "no-api-plan" };

export interface Check {
  /** Stable id, `area.rule-name`, used by --grep, reports and the kit's own mutation tests. */
  id: string;
  /** The spec section it enforces, as cited in the spec: "§4 Endpoints", "§7 Errors". */
  section: string;
  /** The clauses it holds a target to (or probes), by id (spec/clauses.ts): "§5.6", or a list. */
  clause: ClauseRef;
  level: Level;
  /** One line: the rule, as a reader of the report needs it. */
  rule: string;
  /** The spec-gaps row this check takes its stance from, if any (e.g. 10 for #10). */
  gap?: number;
  /**
   * Creates records on the target: skipped by --read-only. "if-needed": creates only when the target's
   * data cannot show the rule otherwise; it runs under --read-only and skips itself when it would write.
   */
  writes?: boolean | "if-needed";
  /**
   * "coverage": runs before every other check, in catalogue order: the coverage phase, every legal
   * form of each input and its illegal neighbours (checks/coverage.ts).
   * "final": runs after every other check, in catalogue order: checks that exhaust the rate limit (the
   * 429 burst) or judge the whole run (no 5xx anywhere, from `http.history()`). The kit's own
   * catalogue sets both in one place, checks/index.ts.
   */
  phase?: "coverage" | "final" | undefined;
  /** Opt-in only (slow): run when --grep names it or --slow is given. */
  slow?: boolean;
  /**
   * Checks whose requests this one judges (ratelimit.not-early judges the 429s the burst met): a
   * --grep that selects this check without them runs them too, before it, so that it is not skipped
   * for want of what the kit could send.
   */
  needs?: readonly string[];
  /**
   * What of the spec file the check's expectations rest on, as key paths with `*` for any one key
   * (`limits.page.max`, `errors.duplicateSku`, `fields.product.*`): `conformance spec-diff` lists the
   * check when two spec files differ there. Paths and the error answers every check meets are not
   * listed (spec/reads.ts, EVERY_CHECK_READS).
   */
  reads?: readonly SpecKey[];
  run(ctx: CheckContext): Promise<void>;
}

export interface RunOptions {
  profile: Profile;
  strict: boolean;
  readOnly: boolean;
  seed: number;
  numRuns: number;
  /** Requests per window the target is expected to enforce (--rate-limit, else the manifest, else 100). */
  rateLimit: number;
  /** What the target's limit counts (the manifest's `rateLimit.per`, else "token"); the kit paces each apart. */
  rateLimitPer: RateLimitScope;
  /**
   * The rate-limit window in ms: 60 000 against any target. The embedded reference runs with a shorter
   * window so that a default run is not throttled to 100 requests a minute (see DECISIONS.md).
   */
  rateWindowMs: number;
  /** The token manifest file (--tokens), when one was given: a replay must use it too. */
  tokens?: string;
  /** Slow checks were run (--slow). */
  slow?: boolean;
  /** The Origin every request carries unless it sets its own (CORS is judged on every answer). */
  origin?: string | undefined;
}

/**
 * Time as the kit sees it: wall-clock milliseconds and a way to wait. Injected, so that the kit's own
 * tests run on a virtual clock shared with the server they check, whatever the machine's speed.
 */
export interface KitClock {
  now(): number;
  /** `reason`: why the run waits, for the progress line (pacing, a 429's Retry-After, a check's own wait). */
  sleep(ms: number, reason?: string): Promise<void>;
}

export const systemKitClock: KitClock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

export interface TokenPool {
  manifest: TokenManifest;
  /** The token meeting the need, or undefined (the runner skips checks whose `needs` are unmet). */
  find(need: TokenNeed): ManifestToken | undefined;
  /** Like find, but skips the check with a reason naming the missing kind when there is none. */
  get(need: TokenNeed): ManifestToken;
  /**
   * A token the run keeps out of its traffic (no need is met with it while another token meets it, and
   * the pacer spreads no work onto it), so that the rate-limit burst meets a budget nothing touched.
   */
  reserved?: ManifestToken | undefined;
}

export interface CheckContext {
  /** The run's spec (the default file, or the variant --spec gave): every number, code and path. */
  spec: KitSpec;
  http: HttpClient;
  tokens: TokenPool;
  options: RunOptions;
  /** A short marker unique to this run (`cfk-<base36>`); every record created carries it. */
  marker: string;
  /** Ends the check as skipped, with the reason in the report. */
  skip(reason: string): never;
  /**
   * Records what the target did (PROBE observations; also allowed on other levels as notes): `key`
   * names it without the run's own values (the marker, ids, counts, times), so that two targets that
   * did the same thing say it with the same key; `text` says it to a reader.
   */
  observe(key: string, text: string): void;
  /**
   * What the checks of one run share (records created once and read by several checks): one value per
   * slot, made by the first check that asks. The catalogue's slots: support/shared.ts.
   */
  shared: SharedStore;
  /** The run's clock: checks that wait (Retry-After) or time a burst read it, never the process clock. */
  clock: KitClock;
}

/**
 * A value the checks of a run share, declared by whoever shares it (the catalogue: support/shared.ts):
 * the slot object itself is the key, and `make` builds its value for a run the first time a check asks.
 * The engine keeps the values, one store per run, and knows nothing of what is in them.
 */
export interface SharedSlot<T> {
  readonly name: string;
  make(): T;
}

export interface SharedStore {
  /** The run's value of `slot`, made on first use. */
  get<T>(slot: SharedSlot<T>): T;
}

/** A store of shared values for one run (the runner makes one per run; tests make their own). */
export function sharedStore(): SharedStore {
  const values = new Map<SharedSlot<unknown>, unknown>();
  return {
    get<T>(slot: SharedSlot<T>): T {
      if (!values.has(slot)) values.set(slot, slot.make());
      return values.get(slot) as T;
    },
  };
}

export type Outcome = "pass" | "fail" | "skip" | "observed";

export interface CheckResult {
  id: string;
  section: string;
  /** The clauses the check cites (spec/clauses.ts ids). */
  clauses: string[];
  level: Level;
  rule: string;
  outcome: Outcome;
  /** Whether this result fails the run under the options given (MUST fail; SHOULD fail with --strict). */
  failsRun: boolean;
  durationMs: number;
  requests: number;
  skipReason?: string;
  /** Run only because checks that --grep selected judge its requests (Check.needs): their ids. */
  ranFor?: string[] | undefined;
  observations: Observation[];
  /**
   * Against a baseline (--baseline): a failure already in it ("known", which does not fail the run),
   * one that is not ("new"), or a check that failed in it and passes now ("fixed").
   */
  baseline?: "known" | "new" | "fixed" | undefined;
  failure?: {
    /** The defect, stably (CheckFailure.key): what a baseline matches, with the check's id. */
    key: string;
    /** Which rule broke: a foundation rule of failures.ts, the check's own ("rule"), or none ("error"). */
    cause: Cause;
    /**
     * The failing check that judges `cause` on its own (failures.ts, FOUNDATIONS): this check failed
     * only because of that check's defect, under which reports list it (report/defects.ts).
     */
    blockedBy?: string | undefined;
    message: string;
    expected: string;
    actual: string;
    /** The curl commands that replay the failure: one line per request of the sequence that shows it. */
    curl?: string;
    status?: number;
    replay?: string;
    /** The request that failed the check and its answer, trimmed, tokens masked (report/exchange.ts). */
    exchange?: ShownExchange | undefined;
  };
}

/**
 * An exchange as a report shows it: what was sent and what came back, bodies cut to a few thousand
 * characters, every manifest token replaced by `<token LABEL>` (reports are shared, secrets are not).
 */
export interface ShownExchange {
  request: {
    method: string;
    /** The path and query, as sent, relative to the target's base URL. */
    target: string;
    headers: Array<[string, string]>;
    body?: string | undefined;
  };
  response: {
    status: number;
    headers: Array<[string, string]>;
    body: string;
  };
}

export interface RunReport {
  /** The kit that wrote the report, its version and the spec text it was read from (kit.ts). */
  kit?: KitIdentity | undefined;
  target: string;
  embedded: boolean;
  options: RunOptions;
  startedAt: string;
  durationMs: number;
  requests: number;
  /** How the run was paced, and how its requests fell on the tokens. */
  pacing?: {
    /** Where the rate limit came from: --rate-limit, the manifest's `rateLimit`, or the default. */
    source: "option" | "manifest" | "default";
    /** Written by kits that fell back to counting every request together after a 429 (read, not written). */
    fellBack?: string;
    /**
     * What the run was paced by at its end: the declared scope (--rate-limit's, the manifest's or the
     * default), or a wider one the target showed, with what showed it (engine/pacer.ts).
     */
    scope?: { per: RateLimitScope; source: "declared" | "observed"; why?: string } | undefined;
    /** The token kept out of the run's traffic for the rate-limit burst, by label. */
    reserved?: string | undefined;
    /** 429s the target answered to requests the kit had paced under the limit (client.ts). */
    limited?: UnexpectedLimits | undefined;
    /** Requests per manifest token label; "(no manifest token)" for the others. */
    requestsByToken: Record<string, number>;
  };
  results: CheckResult[];
  /** The baseline the run was compared with (--baseline), and what came of it. */
  baseline?: BaselineSummary | undefined;
  /** MUST checks the run skipped, with why: rules this run did not verify (--read-only, a missing token kind). */
  notVerified?: Array<{ id: string; reason: string }> | undefined;
}

/**
 * What happened to paced requests the target answered 429 (the kit thought it had room): each was
 * sent again once, after the wait the target asked for (Retry-After) or one window.
 */
export interface UnexpectedLimits {
  /** Paced requests answered 429. */
  count: number;
  /** Of their second sending, how many were answered otherwise, and how many 429 again. */
  resentAnswered: number;
  resentLimited: number;
  /** Time spent waiting before the second sendings. */
  waitedMs: number;
  /** The first one: its route and token (`GET /api/v1/contacts with lumiere-full`). */
  first: string;
}

export interface BaselineSummary {
  file: string;
  /** The version of the kit that wrote it ("unknown" for a report written before versions). */
  kitVersion: string;
  /** Failures found in the baseline (by check id and key), failures not in it, checks that now pass. */
  known: number;
  new: number;
  fixed: string[];
}

export { CheckFailure, type Cause, type Observation } from "./failures.js";
