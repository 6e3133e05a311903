import { randomInt } from "node:crypto";
import type { TokenManifest } from "../manifest-schema.js";
import { clauseList } from "../spec/clauses.js";
import type { BurstReservation } from "./tokens.js";
import { ManifestTokenPool } from "./tokens.js";
import { CheckFailure, RequestError, failureKey, type Observation } from "../failures.js";
import {
  systemKitClock,
  type Check,
  type CheckContext,
  type CheckResult,
  type HttpClient,
  type HttpExchange,
  type KitClock,
  type Level,
  type Outcome,
  type RunOptions,
  sharedStore,
} from "../types.js";

/** Thrown by `ctx.skip()` and by `tokens.get()`: ends a check as skipped. */
export class SkipSignal extends Error {
  readonly reason: string;

  constructor(reason: string) {
    super(reason);
    this.name = "SkipSignal";
    this.reason = reason;
  }
}

/** An option the kit cannot run with (a --grep that is not a regular expression, a zero rate limit). */
export class InvalidOptionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InvalidOptionError";
  }
}

const skip = (reason: string): never => {
  throw new SkipSignal(reason);
};

/** Whether a result fails the run: MUST and REFERENCE always, SHOULD with --strict, PROBE never. */
export function failsRun(level: Level, outcome: Outcome, strict: boolean): boolean {
  if (outcome !== "fail") return false;
  return level === "MUST" || level === "REFERENCE" || (level === "SHOULD" && strict);
}

/** --grep: a case-insensitive regular expression. */
export function compileGrep(pattern: string): RegExp {
  try {
    return new RegExp(pattern, "i");
  } catch (error) {
    throw new InvalidOptionError(
      `--grep "${pattern}" is not a regular expression: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/** `cfk-<seed in base36>-<random>`: readable back to its run, unique between runs of one seed. */
export function makeMarker(
  seed: number,
  suffix: string = randomInt(36 ** 4)
    .toString(36)
    .padStart(4, "0"),
): string {
  return `cfk-${Math.abs(seed).toString(36)}-${suffix}`;
}

export interface SelectionOptions {
  profile: RunOptions["profile"];
  readOnly: boolean;
  grep?: string | RegExp | undefined;
  slow?: boolean | undefined;
}

export interface Selected {
  check: Check;
  /** Set when the check is reported as skipped without running. */
  skipReason?: string;
}

/**
 * The checks of a run, in running order: the coverage phase first, then the catalogue's order, the
 * final phase last. REFERENCE checks outside the reference profile and checks --grep does not match are
 * left out, not skipped.
 */
export function selectChecks(catalogue: readonly Check[], options: SelectionOptions): Selected[] {
  const grep = typeof options.grep === "string" ? compileGrep(options.grep) : options.grep;
  const matches = (text: string): boolean => grep === undefined || grep.test(text);
  const chosen = catalogue.filter(
    (c) =>
      (c.level !== "REFERENCE" || options.profile === "reference") &&
      (matches(c.id) || matches(c.section) || matches(c.rule)),
  );
  const ordered = [
    ...chosen.filter((c) => c.phase === "coverage"),
    ...chosen.filter((c) => c.phase === undefined),
    ...chosen.filter((c) => c.phase === "final"),
  ];
  return ordered.map((check): Selected => {
    // "if-needed" checks run: they skip themselves only when they would have to write.
    if (options.readOnly && check.writes === true) {
      return { check, skipReason: "creates records on the target, and --read-only was given" };
    }
    if (check.slow === true && options.slow !== true && !(grep !== undefined && grep.test(check.id))) {
      return { check, skipReason: "slow: runs with --slow, or with a --grep that names its id" };
    }
    return { check };
  });
}

export interface RunnerInput {
  catalogue: readonly Check[];
  http: HttpClient;
  manifest: TokenManifest;
  options: RunOptions;
  grep?: string | RegExp | undefined;
  slow?: boolean | undefined;
  /** Default `makeMarker(options.seed)`. */
  marker?: string;
  /** Told as each check begins (the progress line names it), skipped ones included. */
  onStart?: ((check: Check) => void) | undefined;
  onResult?: ((result: CheckResult) => void) | undefined;
  /** The run's clock (waits, bursts, token expiry); default the system clock. */
  clock?: KitClock | undefined;
  /** The token kept out of the run's traffic for the rate-limit burst (engine/tokens.ts). */
  reservation?: BurstReservation | undefined;
}

/**
 * Runs the checks one after the other: sequential keeps pacing honest and the report deterministic for
 * a seed. Whatever a check does, it ends as one result; nothing it throws ends the run.
 */
export async function runChecks(input: RunnerInput): Promise<CheckResult[]> {
  const { options } = input;
  const clock = input.clock ?? systemKitClock;
  const shared: Shared = {
    http: input.http,
    tokens: new ManifestTokenPool(input.manifest, {
      skip,
      now: () => new Date(clock.now()),
      reservation: input.reservation,
    }),
    options,
    marker: input.marker ?? makeMarker(options.seed),
    shared: sharedStore(),
    clock,
  };
  const results: CheckResult[] = [];
  const selection = selectChecks(input.catalogue, {
    profile: options.profile,
    readOnly: options.readOnly,
    grep: input.grep,
    slow: input.slow,
  });
  for (const { check, skipReason } of selection) {
    input.onStart?.(check);
    const result: CheckResult =
      skipReason === undefined
        ? await runOne(check, shared)
        : {
            ...identity(check),
            outcome: "skip",
            failsRun: false,
            durationMs: 0,
            requests: 0,
            skipReason,
            observations: [],
          };
    results.push(result);
    input.onResult?.(result);
  }
  return results;
}

/** What every check of a run shares. */
type Shared = Omit<CheckContext, "skip" | "observe">;

const identity = (check: Check) => ({
  id: check.id,
  section: check.section,
  clauses: [...clauseList(check.clause)],
  level: check.level,
  rule: check.rule,
});

async function runOne(check: Check, shared: Shared): Promise<CheckResult> {
  const { http } = shared;
  const observations: Observation[] = [];
  const ctx: CheckContext = {
    ...shared,
    skip,
    observe: (key, text) => void observations.push({ key, text }),
  };
  const before = http.history().length;
  const started = performance.now();
  let outcome: Outcome;
  let failure: CheckResult["failure"];
  let skipReason: string | undefined;
  try {
    await check.run(ctx);
    outcome = check.level === "PROBE" ? "observed" : "pass";
  } catch (error) {
    if (error instanceof SkipSignal) {
      outcome = "skip";
      skipReason = error.reason;
    } else if (check.level === "PROBE") {
      // An open point cannot be violated: what went wrong is what the target did.
      outcome = "observed";
      observations.push(describeError(error));
    } else {
      outcome = "fail";
      const history = http.history();
      failure = failureOf(error, history.length > before ? history[history.length - 1] : undefined, http);
    }
  }
  return {
    ...identity(check),
    outcome,
    failsRun: failsRun(check.level, outcome, shared.options.strict),
    durationMs: Math.round(performance.now() - started),
    requests: http.history().length - before,
    ...(skipReason === undefined ? {} : { skipReason }),
    observations,
    ...(failure === undefined ? {} : { failure }),
  };
}

function failureOf(
  error: unknown,
  last: HttpExchange | undefined,
  http: HttpClient,
): NonNullable<CheckResult["failure"]> {
  if (error instanceof CheckFailure) {
    const exchange = error.exchange ?? (error instanceof RequestError ? undefined : last);
    const evidence = error.evidence ?? [];
    // The whole sequence when there is one, as sent: one curl line per request.
    const sequence =
      evidence.length === 0
        ? undefined
        : (http.replay?.(evidence) ?? evidence.map((ex) => ex.curl).join("\n"));
    const curl = error instanceof RequestError ? error.curl : (sequence ?? exchange?.curl);
    return {
      key: error.key,
      cause: error.cause,
      message: error.message,
      expected: error.expected,
      actual: error.actual,
      ...(curl === undefined ? {} : { curl }),
      ...(exchange === undefined ? {} : { status: exchange.status }),
      ...(error.replay === undefined ? {} : { replay: error.replay }),
    };
  }
  // A kit bug or an answer the check could not digest: still a result, with the request that led to it.
  return {
    key: failureKey("stopped", errorName(error)),
    cause: "error",
    message: `the check stopped on an error: ${errorText(error)}`,
    expected: "the check runs to its verdict",
    actual: errorText(error),
    ...(last === undefined ? {} : { curl: last.curl, status: last.status }),
  };
}

/** What a PROBE that threw observed: the failure it met, keyed as that failure is. */
function describeError(error: unknown): Observation {
  if (error instanceof CheckFailure) {
    return {
      key: failureKey("failed", error.key),
      text: `${error.message} (expected ${error.expected}; got ${error.actual})`,
    };
  }
  return {
    key: failureKey("stopped", errorName(error)),
    text: `the check stopped on an error: ${errorText(error)}`,
  };
}

const errorName = (error: unknown): string => (error instanceof Error ? error.name : typeof error);

function errorText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
