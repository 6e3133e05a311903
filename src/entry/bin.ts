#!/usr/bin/env node
import { Command, InvalidArgumentError, Option } from "commander";
import { isIP, type AddressInfo } from "node:net";
import type { Latency } from "../store/state.js";
import { parseDuration } from "../model/duration.js";
import { SpecVariantError, type Spec } from "../../spec/index.js";
import { loadSpecFile } from "../../spec/file.js";
import { DEFAULT_MAX_SANDBOXES, DEFAULT_SANDBOX_IDLE_MS } from "../store/sandboxes.js";
import type { TokenManifest } from "../store/fixtures/manifest.js";
import { defaultFixturesDir } from "../store/fixtures/paths.js";
import { createReference, DEFAULT_TOKEN_PREFIX, type Reference } from "./reference.js";
import { createServer } from "../edge/server.js";

// The entry file: flags, listening, the banner and signals. Everything else is createApp's.

const positiveInt = (name: string) => (value: string) => {
  if (!/^[1-9][0-9]*$/.test(value)) throw new InvalidArgumentError(`${name} must be a positive integer`);
  return Number(value);
};
const port = (value: string) => {
  const n = Number(value);
  if (!/^[0-9]+$/.test(value) || n > 65_535) throw new InvalidArgumentError("must be a port from 0 to 65535");
  return n;
};

const instant = (value: string) => {
  if (
    !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(value) ||
    Number.isNaN(Date.parse(value))
  ) {
    throw new InvalidArgumentError("must be an ISO 8601 date-time with a zone, e.g. 2027-01-01T00:00:00Z");
  }
  return new Date(value);
};
const controlKey = (value: string) => {
  if (!/^[\x21-\x7e]{16,}$/.test(value)) {
    throw new InvalidArgumentError("must be at least 16 printable ASCII characters, without spaces");
  }
  return value;
};
const latency = (value: string): Latency => {
  const m = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(value);
  const minMs = Number(m?.[1]);
  const maxMs = Number(m?.[2] ?? m?.[1]);
  if (m === null || maxMs < minMs || maxMs > 60_000) {
    throw new InvalidArgumentError("must be milliseconds, 300 or 200-800, at most 60000");
  }
  return { minMs, maxMs };
};

const idle = (value: string): number => {
  const ms = parseDuration(value);
  if (ms === undefined || ms <= 0) {
    throw new InvalidArgumentError("must be a positive ISO 8601 duration in days to seconds, e.g. PT30M");
  }
  return ms;
};

const program = new Command("accounting-reference")
  .description(
    "Reference server of the accounting public REST API, seeded from fixtures (a local fake backend)",
  )
  .addOption(
    new Option("-p, --port <port>", "port to listen on (0: any free port)")
      .env("REFERENCE_PORT")
      .default(4010)
      .argParser(port),
  )
  .addOption(
    new Option("-H, --host <host>", "address to listen on").env("REFERENCE_HOST").default("127.0.0.1"),
  )
  .addOption(
    new Option("-f, --fixtures <dir>", "fixtures folder")
      .env("REFERENCE_FIXTURES")
      .default(defaultFixturesDir(), "the shipped fixtures/"),
  )
  .addOption(
    new Option(
      "--spec <file>",
      "serve a spec variant: a partial spec file (JSON) merged over the default one (spec/accounting-api.json)",
    ).env("REFERENCE_SPEC"),
  )
  .addOption(
    new Option(
      "-r, --rate-limit <n>",
      "requests per minute per token (§8); the spec's limits.rate by default",
    )
      .env("REFERENCE_RATE_LIMIT")
      .argParser(positiveInt("--rate-limit")),
  )
  .addOption(
    new Option("-t, --token-prefix <prefix>", "token prefix, without its underscore (§5)")
      .env("REFERENCE_TOKEN_PREFIX")
      .default(DEFAULT_TOKEN_PREFIX),
  )
  .addOption(
    new Option("--now <instant>", "start the server's clock at this ISO 8601 instant (it runs on from there)")
      .env("REFERENCE_NOW")
      .argParser(instant),
  )
  .addOption(
    new Option(
      "--control-key <key>",
      "key of the control surface (/__control/); random at each start by default",
    )
      .env("REFERENCE_CONTROL_KEY")
      .argParser(controlKey),
  )
  .addOption(new Option("--no-control", "turn the control surface (/__control/) off"))
  .addOption(
    new Option("--latency <ms>", "random delay before every API answer, in ms: 300 or 200-800")
      .env("REFERENCE_LATENCY")
      .argParser(latency),
  )
  .addOption(
    new Option(
      "--data <dir>",
      "keep the state in this folder across restarts (seeded from the fixtures when empty); in memory without it",
    ).env("REFERENCE_DATA"),
  )
  .addOption(
    // Tuning for tests and benchmarks: the default keeps the journal below the snapshot's size.
    new Option("--compact-after <bytes>", "compact the --data journal past this many bytes")
      .env("REFERENCE_COMPACT_AFTER")
      .argParser(positiveInt("--compact-after"))
      .hideHelp(),
  )
  .addOption(
    new Option("--max-sandboxes <n>", "the most sandboxes at once (POST /__control/sandboxes)")
      .env("REFERENCE_MAX_SANDBOXES")
      .default(DEFAULT_MAX_SANDBOXES)
      .argParser(positiveInt("--max-sandboxes")),
  )
  .addOption(
    new Option("--sandbox-idle <duration>", "a sandbox ends after this long without a request (ISO 8601)")
      .env("REFERENCE_SANDBOX_IDLE")
      .default(DEFAULT_SANDBOX_IDLE_MS, "PT30M")
      .argParser(idle),
  )
  .addOption(new Option("-q, --quiet", "print only the base URL"))
  .showHelpAfterError();

program.parse();
const opts = program.opts<{
  port: number;
  host: string;
  fixtures: string;
  spec?: string;
  rateLimit?: number;
  tokenPrefix: string;
  now?: Date;
  controlKey?: string;
  control: boolean;
  latency?: Latency;
  data?: string;
  compactAfter?: number;
  maxSandboxes: number;
  sandboxIdle: number;
  quiet?: boolean;
}>();

/** The variant of `--spec`, or exit 2 naming every bad key (the reference does not start). */
async function specOption(file: string | undefined): Promise<Spec | undefined> {
  if (file === undefined) return undefined;
  try {
    return await loadSpecFile(file);
  } catch (err) {
    if (!(err instanceof SpecVariantError)) throw err;
    console.error(`Cannot start: ${err.message}`);
    process.exit(2);
  }
}

const spec = await specOption(opts.spec);

try {
  const reference = await createReference({
    fixturesDir: opts.fixtures,
    tokenPrefix: opts.tokenPrefix,
    spec,
    rateLimit: opts.rateLimit === undefined ? undefined : { limit: opts.rateLimit, windowMs: 60_000 },
    now: opts.now,
    controlKey: opts.control ? opts.controlKey : null,
    latency: opts.latency ?? null,
    // A host name given to listen on names this server too (IP literals and localhost always do).
    allowedHosts: isIP(opts.host) === 0 ? [opts.host] : [],
    dataDir: opts.data,
    maxSandboxes: opts.maxSandboxes,
    sandboxIdleMs: opts.sandboxIdle,
    persistence: { compactAfterBytes: opts.compactAfter },
    // Fail-stop: once a write to --data fails, a 201 could no longer be honest.
    onPersistenceFailure: (err) => {
      console.error(`Stopping: ${err.message}`);
      process.exit(1);
    },
  });
  const server = createServer(reference.app).listen(opts.port, opts.host);
  server.once("error", (err: NodeJS.ErrnoException) => {
    console.error(`Cannot listen on ${opts.host}:${opts.port}: ${err.code ?? err.message}`);
    process.exit(1);
  });
  server.once("listening", () => {
    const { port: actual } = server.address() as AddressInfo;
    const host = opts.host.includes(":") ? `[${opts.host}]` : opts.host;
    const baseUrl = `http://${host}:${actual}`;
    console.log(opts.quiet ? baseUrl : banner(baseUrl, reference, opts));
    // Quiet prints only the URL; what went wrong with the data folder is still said, on stderr.
    const data = reference.data;
    if (opts.quiet && data !== null && (data.torn !== null || data.lockTakenOverFrom !== null)) {
      console.error(stateLines(reference, opts.fixtures).join("\n"));
    }
  });
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.error(`${signal}: closing`);
    // Whatever is queued (token usage included) is written and the data folder's lock released.
    server.close(() => {
      reference.close().then(
        () => process.exit(0),
        (err: unknown) => {
          console.error(`Closing ${opts.data ?? ""}: ${err instanceof Error ? err.message : String(err)}`);
          process.exit(1);
        },
      );
    });
    server.closeAllConnections();
  };
  process.once("SIGINT", () => stop("SIGINT"));
  process.once("SIGTERM", () => stop("SIGTERM"));
  // Started by npm (`npx accounting-reference`, `npm exec`), the server runs under a shell that npm
  // kills on SIGTERM without passing the signal on: it would be left running, still listening. So it
  // stops, as cleanly as on SIGTERM, once the process that started it is gone.
  if (process.env.npm_command !== undefined) {
    const parent = process.ppid;
    setInterval(() => {
      if (process.ppid !== parent) stop("the npm process that started the server is gone");
    }, 500).unref();
  }
} catch (err) {
  // A bad fixture names its file, record and field; no stack trace for a data error. A spec the
  // fixtures or the reference cannot serve is a bad variant: exit 2, as for a bad key.
  console.error(err instanceof Error ? `Cannot start: ${err.message}` : err);
  process.exit(err instanceof SpecVariantError ? 2 : 1);
}

/** Which state is served and from where; a dropped torn record is said here. */
function stateLines(reference: Reference, fixturesDir: string): string[] {
  const data = reference.data;
  if (data === null) {
    return [`  state: in memory, from the fixtures in ${fixturesDir} (--data DIR keeps it across restarts)`];
  }
  const lines =
    data.status === "new"
      ? [
          `  state: new in ${data.dir}, seeded from the fixtures in ${data.seededFrom}; every change is kept there`,
        ]
      : [
          `  state: loaded from ${data.dir} (snapshot of ${data.snapshotWrittenAt?.toISOString() ?? "?"} + ${data.journalChanges} journaled changes, ${Math.round(data.loadMs)} ms), seeded from ${data.seededFrom}`,
        ];
  if (data.lockTakenOverFrom !== null) {
    lines.push(
      `  state: took over the lock of ${data.dir} from the server with PID ${data.lockTakenOverFrom}, which no longer runs`,
    );
  }
  if (data.torn !== null) {
    lines.push(
      `  state: dropped the torn last record of ${data.torn.file} (record ${data.torn.record}, ${data.torn.bytes} bytes: ${data.torn.reason}); a write cut by a crash, never acknowledged`,
    );
  }
  const clock = reference.clock.state();
  if (data.status === "loaded" && reference.clock.setting() !== null) {
    lines.push(
      `  clock: as kept in ${data.dir}, now ${clock.now.toISOString()}${clock.frozen ? " (frozen)" : ""}`,
    );
  }
  if (data.fixturesChanged) {
    lines.push(
      `  state: the fixtures in ${fixturesDir} have changed since; POST /__control/reset loads them`,
    );
  }
  return lines;
}

function banner(
  baseUrl: string,
  reference: Reference,
  options: { now?: Date; latency?: Latency; fixtures: string; spec?: string },
): string {
  const manifest = reference.manifest;
  const orgs = new Map(manifest.organizations.map((o) => [o.id, o]));
  const scopes = (list: readonly string[]) =>
    list.length === reference.spec.enums.scopes.length ? "all" : list.length === 0 ? "none" : list.join(" ");
  const { limit, windowMs } = reference.state.rateLimits;
  const window = windowMs === 60_000 ? "a minute" : `per ${windowMs / 1000} s`;
  const state = (t: TokenManifest["tokens"][number]) =>
    orgs.get(t.organization)?.apiAccess === false ? `${t.state}, plan without API` : t.state;
  const rows = manifest.tokens.map((t) => [t.label, t.organization, scopes(t.scopes), state(t), t.token]);
  const header = ["label", "organization", "scopes", "state", "token"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  return [
    `Accounting API reference server listening on ${baseUrl}`,
    `  try: curl -H "Authorization: Bearer ${manifest.tokens[0]?.token ?? "<token>"}" ${baseUrl}${reference.spec.endpoints.listContacts.path}`,
    `  rate limit: ${limit} requests ${window} per token; Ctrl-C stops the server`,
    ...(options.spec === undefined
      ? []
      : [`  spec: ${options.spec} (${reference.spec.title}), merged over the default file`]),
    `  token pages: ${baseUrl}/settings/api-tokens (create, revoke, usage)`,
    `  docs: ${baseUrl}/docs (the OpenAPI document: ${baseUrl}/openapi.json)`,
    ...stateLines(reference, options.fixtures),
    ...(options.now === undefined ? [] : [`  clock: started at ${options.now.toISOString()}`]),
    ...(options.latency === undefined
      ? []
      : [`  latency: ${options.latency.minMs}-${options.latency.maxMs} ms before every API answer`]),
    reference.controlKey === null
      ? "  control surface: off"
      : `  control surface: ${baseUrl}/__control/  key: ${reference.controlKey}`,
    ...(reference.controlKey === null
      ? []
      : [
          `  sandboxes: POST ${baseUrl}/__control/sandboxes (at most ${reference.sandboxes.max}, ended after ${Math.round(reference.sandboxes.idleMs / 60_000)} min idle; never kept by --data)`,
        ]),
    "",
    `Fixture tokens (test tokens, from the fixtures' tokens.json):`,
    line(header),
    ...rows.map(line),
  ].join("\n");
}
