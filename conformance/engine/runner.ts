import { randomInt } from "node:crypto";
import type { TokenManifest } from "../manifest-schema.js";
import { clauseList } from "../spec/clauses.js";
import { kitSpec, type KitSpec } from "../spec/kit-spec.js";
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
  type ShownExchange,
} from "../types.js";
import { showExchange } from "../report/exchange.js";

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
  /** Selected only because checks --grep selected need its requests (Check.needs): their ids. */
  ranFor?: string[];
}

/** What a --grep matched in a check: its id first, then its section, then its rule. */
function grepMatch(check: Check, grep: RegExp): "id" | "section" | "rule" | undefined {
  if (grep.test(check.id)) return "id";
  if (grep.test(check.section)) return "section";
  return grep.test(check.rule) ? "rule" : undefined;
}

/**
 * The checks of a run, in running order: the coverage phase first, then the catalogue's order, the
 * final phase last. REFERENCE checks outside the reference profile and checks --grep does not match
 * (by id, section or rule) are left out, not skipped; a check --grep leaves out that a selected one
 * needs (Check.needs) is put back, said to run for it. A selected check skipped without running says
 * why, and what --grep matched when that is why it was selected.
 */
export function selectChecks(catalogue: readonly Check[], options: SelectionOptions): Selected[] {
  const grep = typeof options.grep === "string" ? compileGrep(options.grep) : options.grep;
  const inProfile = (c: Check): boolean => c.level !== "REFERENCE" || options.profile === "reference";
  const matched = new Map(
    catalogue.flatMap((c) => {
      const how = grep === undefined ? "all" : grepMatch(c, grep);
      return inProfile(c) && how !== undefined ? [[c.id, how] as const] : [];
    }),
  );
  // What the selected checks need, and what that needs in turn: run for them.
  const ranFor = new Map<string, string[]>();
  const pending = [...matched.keys()];
  for (let id = pending.shift(); id !== undefined; id = pending.shift()) {
    for (const need of catalogue.find((c) => c.id === id)?.needs ?? []) {
      if (matched.has(need)) continue;
      const wanted = ranFor.get(need);
      if (wanted === undefined) pending.push(need);
      ranFor.set(need, [...(wanted ?? []), id]);
    }
  }
  const chosen = catalogue.filter((c) => matched.has(c.id) || ranFor.has(c.id));
  const ordered = [
    ...chosen.filter((c) => c.phase === "coverage"),
    ...chosen.filter((c) => c.phase === undefined),
    ...chosen.filter((c) => c.phase === "final"),
  ];
  return ordered.map((check): Selected => {
    const forOthers = ranFor.get(check.id);
    const base: Selected = forOthers === undefined ? { check } : { check, ranFor: forOthers };
    // "if-needed" checks run: they skip themselves only when they would have to write.
    if (options.readOnly && check.writes === true) {
      return { ...base, skipReason: "creates records on the target, and --read-only was given" };
    }
    const how = matched.get(check.id);
    const named = how === "id" || forOthers !== undefined;
    if (check.slow === true && options.slow !== true && !named) {
      return {
        ...base,
        skipReason:
          how === "section" || how === "rule"
            ? `slow: --grep matched its ${how}, not its id; it runs with --slow, or with a --grep that names its id`
            : "slow: runs with --slow, or with a --grep that names its id",
      };
    }
    return base;
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
  /** The run's spec; default the spec as written. */
  spec?: KitSpec | undefined;
}

/**
 * Runs the checks one after the other: sequential keeps pacing honest and the report deterministic for
 * a seed. Whatever a check does, it ends as one result; nothing it throws ends the run.
 */
export async function runChecks(input: RunnerInput): Promise<CheckResult[]> {
  const { options } = input;
  const clock = input.clock ?? systemKitClock;
  const spec = input.spec ?? kitSpec();
  const shared: Shared = {
    spec,
    http: input.http,
    tokens: new ManifestTokenPool(input.manifest, {
      skip,
      now: () => new Date(clock.now()),
      reservation: input.reservation,
      spec,
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
  for (const { check, skipReason, ranFor } of selection) {
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
    if (ranFor !== undefined) result.ranFor = ranFor;
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
      const last = history.length > before ? history[history.length - 1] : undefined;
      failure = failureOf(error, last, http, (ex) =>
        showExchange(ex, { origin: shared.options.origin, tokens: shared.tokens.manifest.tokens }),
      );
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
  show: (ex: HttpExchange) => ShownExchange,
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
      ...(exchange === undefined ? {} : { status: exchange.status, exchange: show(exchange) }),
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
    ...(last === undefined ? {} : { curl: last.curl, status: last.status, exchange: show(last) }),
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
