#!/usr/bin/env node
import { Command, InvalidArgumentError, Option } from "commander";
import type { AddressInfo } from "node:net";
import { SCOPES } from "./domain/model.js";
import type { TokenManifest } from "./fixtures/manifest.js";
import { defaultFixturesDir } from "./fixtures/paths.js";
import { createReference, DEFAULT_TOKEN_PREFIX } from "./reference.js";
import { createServer } from "./server.js";

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
    new Option("-r, --rate-limit <n>", "requests per minute per token (§8)")
      .env("REFERENCE_RATE_LIMIT")
      .default(100)
      .argParser(positiveInt("--rate-limit")),
  )
  .addOption(
    new Option("-t, --token-prefix <prefix>", "token prefix, without its underscore (§5)")
      .env("REFERENCE_TOKEN_PREFIX")
      .default(DEFAULT_TOKEN_PREFIX),
  )
  .addOption(new Option("-q, --quiet", "print only the base URL"))
  .showHelpAfterError();

program.parse();
const opts = program.opts<{
  port: number;
  host: string;
  fixtures: string;
  rateLimit: number;
  tokenPrefix: string;
  quiet?: boolean;
}>();

try {
  const reference = await createReference({
    fixturesDir: opts.fixtures,
    tokenPrefix: opts.tokenPrefix,
    rateLimit: { limit: opts.rateLimit, windowMs: 60_000 },
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
    console.log(opts.quiet ? baseUrl : banner(baseUrl, reference.manifest, opts.rateLimit));
  });
  const stop = (signal: string) => {
    console.error(`${signal}: closing`);
    server.close(() => process.exit(0));
    server.closeAllConnections();
  };
  process.once("SIGINT", () => stop("SIGINT"));
  process.once("SIGTERM", () => stop("SIGTERM"));
} catch (err) {
  // A bad fixture names its file, record and field; no stack trace for a data error.
  console.error(err instanceof Error ? `Cannot start: ${err.message}` : err);
  process.exit(1);
}

function banner(baseUrl: string, manifest: TokenManifest, rateLimit: number): string {
  const orgs = new Map(manifest.organizations.map((o) => [o.id, o]));
  const scopes = (list: readonly string[]) =>
    list.length === SCOPES.length ? "all" : list.length === 0 ? "none" : list.join(" ");
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
    `  try: curl -H "Authorization: Bearer ${manifest.tokens[0]?.token ?? "<token>"}" ${baseUrl}/api/v1/contacts`,
    `  rate limit: ${rateLimit} requests a minute per token; Ctrl-C stops the server`,
    "",
    `Fixture tokens (test tokens, from the fixtures' tokens.json):`,
    line(header),
    ...rows.map(line),
  ].join("\n");
}
