import { randomBytes } from "node:crypto";
import { applyVariant, defaultSpec, type Spec } from "../../spec/index.js";
import type { Express } from "express";
import { Control, type SandboxControl } from "../doors/control/in-process.js";
import { buildApp } from "../edge/app.js";
import { fetchEdge, type Fetch } from "../edge/fetch.js";
import { systemClock, type Clock } from "../model/clock.js";
import { SteerableClock } from "../store/clock.js";
import { loadFixtures, type FixtureSet } from "../store/fixtures/load.js";
import { checkFixturesUnder } from "../store/fixtures/under-spec.js";
import type { TokenManifest } from "../store/fixtures/manifest.js";
import { defaultFixturesDir } from "../store/fixtures/paths.js";
import { drawBase62, type IdGenerator } from "../store/ids.js";
import type { DataDir, DataReport } from "../store/persistence/data-dir.js";
import { Sandboxes } from "../store/sandboxes.js";
import { ReferenceState, type Latency } from "../store/state.js";
import type { Store } from "../store/store.js";
import type { TokenRegistry } from "../store/tokens.js";
import type { RateLimitOptions } from "../store/windows.js";
import { compileSpec } from "../routes/compile.js";

export const DEFAULT_BODY_LIMIT_BYTES = 100 * 1024;

export const DEFAULT_TOKEN_PREFIX = "acct";

/** Everything a reference can be built with; each has a default, so `createReference()` serves. */
export interface CreateReferenceOptions {
  fixturesDir?: string | undefined;
  /**
   * The fixtures of `fixturesDir`, already loaded (`loadFixtures`): many references built from one
   * read of the files. Their records are frozen as they are stored, so references can share them.
   */
  fixtures?: FixtureSet | undefined;
  /** The clock the reference's own clock follows (a test's ManualClock); the system's by default. */
  clock?: Clock | undefined;
  /** The instant the reference's clock starts at (`--now`); it runs on from there. */
  now?: Date | undefined;
  /** Ids of created records (tests fix them); random by default. */
  ids?: IdGenerator | undefined;
  /** §5.1 `<token_prefix>`, without its underscore (spec-gaps #1). */
  tokenPrefix?: string | undefined;
  /**
   * The spec served (`--spec FILE`): a whole Spec, or a variant (a partial spec file, RFC 7396 merge
   * patch) merged over the default file. A bad one throws `SpecVariantError`, naming every bad key.
   */
  spec?: Spec | Record<string, unknown> | undefined;
  /** The rate limit, when it is not the spec's `limits.rate` (`--rate-limit`). */
  rateLimit?: RateLimitOptions | undefined;
  bodyLimitBytes?: number | undefined;
  /** Where internal errors and persistence failures are told; stderr by default. */
  log?: ((line: string) => void) | undefined;
  /**
   * The key of the control surface over HTTP: a given string, `undefined` for a random one, or
   * `null` to leave the HTTP door closed (the in-process `control` is always there).
   */
  controlKey?: string | null;
  /** A random delay before every API answer (`--latency 200-800`). */
  latency?: Latency | null | undefined;
  /** Host names besides IP literals and localhost that the control surface and pages answer to. */
  allowedHosts?: readonly string[] | undefined;
  /**
   * `--data DIR`: keep the state in this directory across restarts (seeded from the fixtures when
   * it is empty or missing). Without it, the state lives in memory only.
   */
  dataDir?: string | undefined;
  /** The most sandboxes at once (`--max-sandboxes`); 200 by default. */
  maxSandboxes?: number | undefined;
  /** How long a sandbox lives without a request or a control call, in ms (`--sandbox-idle`); 30 minutes by default. */
  sandboxIdleMs?: number | undefined;
  /** Tuning of the data directory (the benchmark turns compaction off). */
  persistence?: { compactAfterBytes?: number | undefined } | undefined;
  /**
   * A write to the data directory failed: the server can no longer keep what it answers 201 to
   * (the entry file stops the process). Logged by default.
   */
  onPersistenceFailure?: ((err: Error) => void) | undefined;
}

export interface Reference {
  app: Express;
  /**
   * The app answered in process, without a port: `fetch`'s signature, the same bytes, statuses,
   * journal and usage as over HTTP. A `drop` fault rejects with a TypeError, as `fetch` does.
   */
  fetch: Fetch;
  /** The one state every door shares. */
  state: ReferenceState;
  /** The spec it serves (the default file, or the variant merged over it). */
  spec: Spec;
  store: Store;
  tokens: TokenRegistry;
  /** The fixture tokens as this server accepts them (re-prefixed when `tokenPrefix` differs). */
  manifest: TokenManifest;
  /** The reference's own clock: `set`, `advance`, `setFrozen`. */
  clock: SteerableClock;
  /**
   * The control surface in process: the operations of /__control under the names of the HTTP client
   * (`reset`, `setClock`, `advanceClock`, `addFault`, `journal`, `createSandbox`…), answering at once.
   */
  control: Control;
  /** The key the HTTP control surface wants, or null when it is closed. */
  controlKey: string | null;
  /** What the data directory held at start, or null without `dataDir`. */
  data: DataReport | null;
  /** What the data directory wrote since start (changes, writes, snapshots), or null without one. */
  dataStats(): DataDir["stats"] | null;
  /** Writes what is pending (token usage included) and releases the data directory; a no-op without one. */
  close(): Promise<void>;
  /**
   * A new sandbox, in process (`control.createSandbox()` with its clock's start as a Date): a world of
   * its own (renamed fixtures, new tokens, its own clock, faults, journal, rate-limit counters) that
   * the API reaches through its tokens only, with the control surface's operations on it. Throws the
   * 429 `ApiError` past `maxSandboxes`.
   */
  sandbox(options?: { now?: Date | undefined }): SandboxControl;
  /** Every sandbox of this reference (list, delete), in memory only: `--data` keeps none. */
  sandboxes: Sandboxes;
}

/** A key of 32 base62 characters (≈ 190 bits), as fresh as the server. */
export const newControlKey = (): string => `ctl_${drawBase62((n) => randomBytes(n), 32)}`;

/** The reference server, seeded from its fixtures: what `npm start` serves and the kit embeds. */
export async function createReference(options: CreateReferenceOptions = {}): Promise<Reference> {
  const spec = specOf(options.spec);
  // What the reference cannot serve (a filter the domain has not) is refused before anything starts.
  compileSpec(spec);
  const clock = new SteerableClock(options.clock ?? systemClock, options.now);
  const prefix = options.tokenPrefix ?? DEFAULT_TOKEN_PREFIX;
  const fixturesDir = options.fixturesDir ?? defaultFixturesDir();
  const fixtures = options.fixtures ?? (await loadFixtures(fixturesDir, { now: clock.now() }));
  checkFixturesUnder(spec, fixtures, "the spec");
  const state = new ReferenceState({
    fixtures: withPrefix(fixtures, prefix),
    tokenPrefix: prefix,
    clock,
    spec,
    rateLimit: options.rateLimit,
    latency: options.latency,
  });
  const log = options.log ?? ((line: string) => console.error(line));
  let dataDir: DataDir | null = null;
  if (options.dataDir !== undefined) {
    // Loaded only with --data: the journal's code and write-file-atomic are no cost of a plain start.
    const { openData } = await import("../store/persistence/open.js");
    const { markOf } = await import("../store/persistence/format.js");
    dataDir = await openData(state, {
      dir: options.dataDir,
      spec: markOf(spec),
      fixturesDir,
      tokenPrefix: prefix,
      compactAfterBytes: options.persistence?.compactAfterBytes,
      // Without a handler of its own, the failure is logged and every later write answers 500.
      onFatal: options.onPersistenceFailure ?? ((err) => log(err.message)),
      // An explicit start instant is this run's: it wins over a clock kept from an earlier run.
      keepClock: options.now === undefined,
    });
  }
  const sandboxes = new Sandboxes({
    fixtures: state.fixtures,
    tokenPrefix: prefix,
    baseClock: options.clock ?? systemClock,
    defaultStart: () => clock.started(),
    spec,
    rateLimit: options.rateLimit,
    latency: options.latency ?? null,
    max: options.maxSandboxes,
    idleMs: options.sandboxIdleMs,
  });
  const controlKey = options.controlKey === null ? null : (options.controlKey ?? newControlKey());
  const app = buildApp(state, {
    bodyLimitBytes: options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES,
    log,
    controlKey,
    allowedHosts: options.allowedHosts ?? [],
    tryItToken: tryItToken(state.manifest),
    ids: options.ids,
    sandboxes,
  });
  const control = new Control(state, sandboxes);
  return {
    app,
    fetch: fetchEdge(app),
    state,
    spec,
    store: state.store,
    tokens: state.tokens,
    manifest: state.manifest,
    clock,
    control,
    controlKey,
    data: dataDir?.report ?? null,
    dataStats: () => dataDir?.stats ?? null,
    close: async () => {
      await dataDir?.close();
    },
    sandbox: (sandboxOptions) =>
      control.createSandbox(
        sandboxOptions?.now === undefined ? {} : { now: sandboxOptions.now.toISOString() },
      ),
    sandboxes,
  };
}

/** The docs page's "try it" uses a fixture token with every scope (a test token, printed in the banner). */
function tryItToken(manifest: TokenManifest): string | undefined {
  const organizations = new Map(manifest.organizations.map((o) => [o.id, o.apiAccess]));
  const token = manifest.tokens.find(
    (t) =>
      t.state === "active" &&
      t.expiresAt === null &&
      t.scopes.length === 8 &&
      organizations.get(t.organization) === true,
  );
  return token?.token;
}

/** The fixture tokens keep their random part under another prefix, so `--token-prefix` needs no new fixtures. */
function withPrefix(fixtures: FixtureSet, prefix: string): FixtureSet {
  const { manifest } = fixtures;
  if (prefix === manifest.tokenPrefix) return fixtures;
  const from = `${manifest.tokenPrefix}_`;
  const swap = <T extends { token: string }>(t: T): T => ({
    ...t,
    token: `${prefix}_${t.token.slice(from.length)}`,
  });
  return {
    ...fixtures,
    manifest: { ...manifest, tokenPrefix: prefix, tokens: manifest.tokens.map(swap) },
    expiringTokens: fixtures.expiringTokens.map(swap),
  };
}

/** A Spec as given, or a variant merged over the default file. */
function specOf(given: Spec | Record<string, unknown> | undefined): Spec {
  if (given === undefined) return defaultSpec();
  // A parsed Spec is frozen (parseSpec); anything else is a variant to merge and check.
  return Object.isFrozen(given) && "source" in given ? (given as Spec) : applyVariant(given);
}
