import { randomInt } from "node:crypto";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { defaultRateLimit, type RateLimitScope, type TokenManifest } from "./manifest-schema.js";
import { kitSpec, type KitSpec } from "./spec/kit-spec.js";
import type { Spec } from "../spec/schema.js";
import { FetchHttpClient } from "./engine/client.js";
import { RequestError } from "./failures.js";
import { kitIdentity } from "./kit.js";
import { defaultManifestPath, loadManifest } from "./manifest.js";
import { RatePacer } from "./engine/pacer.js";
import { BurstReservation, reserveForBurst } from "./engine/tokens.js";
import { preflight } from "./engine/preflight.js";
import { applyBaseline, type Baseline } from "./report/baseline.js";
import { attributeBlockers } from "./report/defects.js";
import type { RunProgress } from "./report/progress.js";
import { watchedClock } from "./report/progress.js";
import { InvalidOptionError, compileGrep, runChecks, selectChecks } from "./engine/runner.js";
import {
  systemKitClock,
  type Check,
  type CheckResult,
  type HttpExchange,
  type KitClock,
  type Profile,
  type RunOptions,
  type RunReport,
} from "./types.js";

export type {
  Check,
  CheckContext,
  CheckResult,
  HttpClient,
  HttpExchange,
  HttpRequest,
  KitClock,
  Level,
  Outcome,
  Profile,
  RunOptions,
  RunReport,
  TokenNeed,
  TokenPool,
} from "./types.js";
export { CheckFailure, LEVELS, systemKitClock } from "./types.js";
export type { Cause, FoundationRule, Observation } from "./failures.js";
export { FOUNDATIONS, FOUNDATION_RULES } from "./failures.js";
export type { Clause, ClauseId, ClauseKind, ClauseRef } from "./spec/clauses.js";
export { CLAUSES } from "./spec/clauses.js";
export type { ManifestToken, RateLimitPolicy, RateLimitScope, TokenManifest } from "./manifest-schema.js";
export { DEFAULT_RATE_LIMIT, TokenManifestSchema } from "./manifest-schema.js";
export { ManifestError, defaultManifestPath, loadManifest, parseManifest } from "./manifest.js";
export { InvalidOptionError, failsRun } from "./engine/runner.js";
export { RequestError } from "./failures.js";
export { ManifestMismatchError, type PreflightProblem } from "./engine/preflight.js";
export { BaselineError, readBaseline, type Baseline } from "./report/baseline.js";
export { kitIdentity, type KitIdentity } from "./kit.js";
export { renderConsoleReport, renderSummaryLine } from "./report/console.js";
export { renderJunitReport } from "./report/junit.js";
export { renderJsonReport } from "./report/json.js";

export interface ConformanceOptions {
  /** The target; without it the reference server is started in process and run against. */
  baseUrl?: string;
  /**
   * The spec the target is held to: the default file (the spec as written) unless given, e.g. a variant
   * read with `loadSpecFile` (`--spec FILE`). Every check reads its numbers, codes and paths from it.
   */
  spec?: Spec;
  /** Default: the embedded reference's manifest, or the reference fixtures' manifest for a target. */
  manifest?: TokenManifest;
  /** The file the manifest was read from (--tokens): a replay command names it. */
  tokensFile?: string;
  profile?: Profile;
  strict?: boolean;
  readOnly?: boolean;
  /** Default: random 32-bit, always reported. */
  seed?: number;
  numRuns?: number;
  /** Requests per window the target enforces; default the manifest's `rateLimit.requests`, else the spec's (§8). */
  rateLimit?: number;
  /** What the target's limit counts; default the manifest's `rateLimit.per`, else "token". */
  rateLimitPer?: RateLimitScope;
  /** Default the spec's window (§8 "per minute": 60 000); 1 000 against the embedded reference. */
  rateWindowMs?: number;
  grep?: string;
  slow?: boolean;
  catalogue?: readonly Check[];
  onResult?: (result: CheckResult) => void;
  /** The run's clock; default the system's. Tests pass a virtual one shared with the target. */
  clock?: KitClock;
  /**
   * Try every manifest token against the target before any check (preflight.ts), and throw
   * ManifestMismatchError when one is not what the manifest says. The CLI does; default off, so that
   * a harness pairing a target with a deliberately different manifest runs its checks.
   */
  preflight?: boolean;
  /** Judge failures against an earlier run's report (report/baseline.ts). */
  baseline?: Baseline;
  /** Told of the run as it goes (the CLI's progress line); its waits are slept through it. */
  progress?: RunProgress;
}

/** The target answered nothing at all: the run cannot start. The message is one line. */
export class TargetUnreachableError extends Error {
  readonly target: string;

  constructor(target: string, reason: string) {
    super(`cannot reach ${target}: ${reason}`);
    this.name = "TargetUnreachableError";
    this.target = target;
  }
}

/**
 * The Origin every request of a run carries unless a check sets its own: a page of another site, as
 * far as the target can tell, so that CORS is judged on every answer (§4, run.cors-success).
 */
export const RUN_ORIGIN = "https://app.conformance.example";

/** The embedded reference's window: a run is not throttled to 100 requests a minute (DECISIONS.md). */
export const EMBEDDED_RATE_WINDOW_MS = 1000;

/** The checks the kit ships with. Loaded on demand so that a custom catalogue needs none of them. */
export async function loadDefaultCatalogue(): Promise<readonly Check[]> {
  const { catalogue } = await import("./checks/index.js");
  return catalogue;
}

export async function runConformance(options: ConformanceOptions): Promise<RunReport> {
  const startedAt = new Date();
  const started = performance.now();
  const progress = options.progress;
  let current: string | undefined;
  const clock =
    progress === undefined
      ? (options.clock ?? systemKitClock)
      : watchedClock(options.clock ?? systemKitClock, progress, () => current);
  const embedded = options.baseUrl === undefined;
  const spec = kitSpec(options.spec);
  if (options.rateLimit !== undefined) positiveInteger("rate limit", options.rateLimit);
  const numRuns = positiveInteger("number of runs", options.numRuns ?? 25);
  const seed = options.seed ?? randomInt(2 ** 32);
  if (!Number.isSafeInteger(seed)) throw new InvalidOptionError(`the seed must be an integer, got ${seed}`);
  if (options.grep !== undefined) compileGrep(options.grep);
  const rateWindowMs = embedded
    ? EMBEDDED_RATE_WINDOW_MS
    : positiveInteger("rate window (ms)", options.rateWindowMs ?? spec.RATE.windowMs);
  // The embedded reference counts per token, at the rate asked for (100 unless told otherwise).
  const target = embedded
    ? await startEmbedded(
        options.rateLimit ?? options.manifest?.rateLimit?.requests ?? spec.RATE.requests,
        options.spec,
      )
    : undefined;
  try {
    const baseUrl = target?.baseUrl ?? checkBaseUrl(options.baseUrl ?? "");
    const manifest =
      options.manifest ?? target?.manifest ?? (await loadManifest(defaultManifestPath(), spec));
    const declared = manifest.rateLimit;
    const rateLimit = options.rateLimit ?? declared?.requests ?? defaultRateLimit(spec).requests;
    const rateLimitPer = options.rateLimitPer ?? declared?.per ?? defaultRateLimit(spec).per;
    const source =
      options.rateLimit !== undefined || options.rateLimitPer !== undefined
        ? "option"
        : declared === undefined
          ? "default"
          : "manifest";
    const runOptions: RunOptions = {
      profile: options.profile ?? "spec",
      strict: options.strict ?? false,
      readOnly: options.readOnly ?? false,
      seed,
      numRuns,
      rateLimit,
      rateLimitPer,
      rateWindowMs,
      ...(options.tokensFile === undefined ? {} : { tokens: options.tokensFile }),
      ...(options.slow === true ? { slow: true } : {}),
      origin: RUN_ORIGIN,
    };
    // One token is kept out of the run's traffic: the rate-limit burst's fresh budget (spec-gaps #21).
    const reservation = new BurstReservation(reserveForBurst(manifest, clock.now(), spec));
    const pacer = new RatePacer({
      rateLimit,
      windowMs: rateWindowMs,
      per: rateLimitPer,
      manifest,
      timer: clock,
      wallClock: () => clock.now(),
      reservation,
    });
    const http = new FetchHttpClient({
      baseUrl,
      pacer,
      tokens: manifest.tokens,
      sleep: (ms, reason) => clock.sleep(ms, reason),
      now: () => clock.now(),
      onRequest: progress === undefined ? undefined : () => progress.requestSent(),
      origin: RUN_ORIGIN,
      spec,
    });
    const catalogue = options.catalogue ?? (await loadDefaultCatalogue());
    progress?.start(
      selectChecks(catalogue, {
        profile: runOptions.profile,
        readOnly: runOptions.readOnly,
        grep: options.grep,
        slow: options.slow,
      }).length,
    );
    await probe(http, baseUrl, spec);
    if (options.preflight === true) await preflight(http, manifest, clock.now(), { reservation, spec });
    const ran = await runChecks({
      catalogue,
      http,
      manifest,
      options: runOptions,
      grep: options.grep,
      slow: options.slow,
      onStart: (check) => {
        current = check.id;
        progress?.checkStarted(check.id);
      },
      onResult: (result) => {
        current = undefined;
        progress?.checkDone(result);
        options.onResult?.(result);
      },
      clock,
      reservation,
      spec,
    });
    const attributed = attributeBlockers(ran);
    const judged = options.baseline === undefined ? undefined : applyBaseline(attributed, options.baseline);
    const limited = http.limits;
    return {
      kit: kitIdentity(spec.file),
      target: baseUrl,
      embedded,
      options: runOptions,
      startedAt: startedAt.toISOString(),
      durationMs: Math.round(performance.now() - started),
      requests: http.requests,
      pacing: {
        source,
        scope: pacer.scope,
        ...(reservation.token === undefined ? {} : { reserved: reservation.token.label }),
        ...(limited === undefined ? {} : { limited }),
        requestsByToken: requestsByToken(http.history()),
      },
      results: judged?.results ?? attributed,
      ...(judged === undefined ? {} : { baseline: judged.summary }),
      notVerified: notVerified(judged?.results ?? attributed),
    };
  } finally {
    await target?.close();
  }
}

/** MUST checks skipped: what the run could not verify, and why (a summary names them). */
export function notVerified(results: readonly CheckResult[]): Array<{ id: string; reason: string }> {
  return results
    .filter((r) => r.level === "MUST" && r.outcome === "skip")
    .map((r) => ({ id: r.id, reason: r.skipReason ?? "skipped" }));
}

/** How many requests each manifest token sent (by label); the others under "(no manifest token)". */
export function requestsByToken(history: readonly HttpExchange[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const ex of history) {
    const auth = ex.request.auth;
    const label =
      auth === null || auth === undefined || "header" in auth ? "(no manifest token)" : auth.label;
    counts[label] = (counts[label] ?? 0) + 1;
  }
  return counts;
}

/** One unauthenticated request: any HTTP answer will do, none at all means there is nothing to check. */
async function probe(http: FetchHttpClient, baseUrl: string, spec: KitSpec): Promise<void> {
  try {
    await http.send({ method: "GET", path: spec.LISTS.contacts.path });
  } catch (error) {
    if (error instanceof RequestError) throw new TargetUnreachableError(baseUrl, error.actual);
    throw error;
  }
}

/** What is wrong with a base URL, or undefined when it will do. */
export function baseUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "not a URL (expected e.g. http://localhost:3000)";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "not an http:// or https:// URL";
  if (url.search !== "" || url.hash !== "") return "a base URL carries no query or fragment";
  return undefined;
}

/** The base URL without its trailing slashes; an InvalidOptionError when it will not do. */
export function checkBaseUrl(value: string): string {
  const problem = baseUrlProblem(value);
  if (problem !== undefined) throw new InvalidOptionError(`base URL "${value}": ${problem}`);
  return value.replace(/\/+$/, "");
}

function positiveInteger(what: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new InvalidOptionError(`the ${what} must be a positive integer, got ${value}`);
  }
  return value;
}

interface EmbeddedTarget {
  baseUrl: string;
  manifest: TokenManifest;
  close(): Promise<void>;
}

/** The reference in this process, serving `spec` (a variant's run holds it to that variant too). */
async function startEmbedded(rateLimit: number, spec: Spec | undefined): Promise<EmbeddedTarget> {
  const { createReference } = await import("../src/entry/reference.js");
  // Listening as the reference's own binary does, so that what Node refuses by itself is answered alike.
  const { createServer } = await import("../src/edge/server.js");
  const reference = await createReference({
    rateLimit: { limit: rateLimit, windowMs: EMBEDDED_RATE_WINDOW_MS },
    spec,
  });
  const server = createServer(reference.app);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    manifest: reference.manifest,
    close: () => closeServer(server),
  };
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    // fetch keeps connections alive; close() alone would wait for them to time out.
    server.closeAllConnections();
  });
}
