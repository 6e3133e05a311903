/**
 * `npm run bench`: the reference against what a list read could cost, on loopback, interleaved.
 *
 * Targets, each in its own process: the reference (`node dist/bundle/bin.js`, the built entry users
 * run), a bare Express 5 app (served plainly, and served as the reference serves its own: "born" on
 * the app's prototypes) and a bare `node:http` server sending the reference's own bytes for the
 * same read, and json-server serving the same contacts. Reads: the list (`limit=50`), a filtered
 * list (`type=CLIENT`) and a `before` read. Each round runs every read against every target in
 * turn (A B C D A B C D …), so that noise from other work on the machine falls on all of them
 * alike; the ratios are the medians of the per-round ratios. Then: creation (32 clients), start
 * time (spawn to first answer, default fixtures) against a bare `node:http` server's start, `npm
 * start` to first answer against the same, and RSS after 100 000 more contacts in one organization.
 *
 * `--baseline DIR` adds another built checkout (its `dist/bundle/bin.js`, e.g. main's, built in a
 * folder of its own) as one more target of every read, start and memory figure, interleaved with
 * the rest: a change's before and after measured in the same run, on the same machine state.
 *
 * Not in CI: timings are noisy. Usage: npm run bench [-- --rounds 5 --duration 3 --start-runs 10]
 * [--reads list,filtered,before] [--only-reads] [--contacts 100000] [--baseline DIR]
 */
import autocannon, { type Result } from "autocannon";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { createServer, type AddressInfo } from "node:net";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "5" },
    duration: { type: "string", default: "3" },
    "start-runs": { type: "string", default: "10" },
    contacts: { type: "string", default: "100000" },
    reads: { type: "string", default: "list,filtered,before" },
    "only-reads": { type: "boolean", default: false },
    baseline: { type: "string" },
  },
});
const ROUNDS = Number(values.rounds);
const DURATION_S = Number(values.duration);
const START_RUNS = Number(values["start-runs"]);
const RSS_CONTACTS = Number(values.contacts);
/** Reads only, no creation, start or memory: for a quick look while working on the read path. */
const ONLY_READS = values["only-reads"];
const READ_CONNECTIONS = 20;
const WRITE_CONNECTIONS = 32;

const ROOT = join(import.meta.dirname, "..");
const BIN = join(ROOT, "dist", "bundle", "bin.js");
/** Another built checkout measured beside this one (`--baseline DIR`), or undefined. */
const BASELINE = values.baseline === undefined ? undefined : join(values.baseline);
const BASELINE_BIN = BASELINE === undefined ? undefined : join(BASELINE, "dist", "bundle", "bin.js");
/** A bare `node:http` server's start: the floor a start is compared with (prints its URL, answers `{}`). */
const BARE_HTTP_START = [
  "-e",
  "require('node:http').createServer((q, s) => s.end('{}'))" +
    ".listen(0, '127.0.0.1', function () { console.log('http://127.0.0.1:' + this.address().port); });",
];
const JSON_SERVER = join(ROOT, "node_modules", "json-server", "lib", "bin.js");
// High enough that the benchmark never meets a 429; the counting itself still runs on every request.
const NO_LIMIT = ["--rate-limit", "1000000000"];

interface Manifest {
  tokens: { label: string; token: string }[];
}
const manifest = JSON.parse(readFileSync(join(ROOT, "fixtures", "tokens.json"), "utf8")) as Manifest;
const TOKEN = manifest.tokens.find((t) => t.label === "lumiere-full")?.token;
if (TOKEN === undefined) throw new Error("fixtures/tokens.json has no lumiere-full token");
const AUTH = { Authorization: `Bearer ${TOKEN}` };
const NEW_CONTACT = JSON.stringify({ type: "CLIENT", name: "Bench contact", email: "bench@example.com" });

// ---------------------------------------------------------------- processes

const children = new Set<ChildProcess>();

/** Only the processes this script started, each by its own process group. */
function stopAll(): void {
  for (const child of children) stop(child);
}
process.once("exit", stopAll);
process.once("SIGINT", () => process.exit(130));

function stop(child: ChildProcess): void {
  children.delete(child);
  if (child.pid === undefined || child.exitCode !== null) return;
  try {
    process.kill(-child.pid, "SIGTERM");
  } catch {
    // Already gone.
  }
}

/** Starts a process in its own group and resolves with the first stdout line `ready` accepts. */
async function start(
  command: string,
  args: string[],
  ready: (line: string) => string | undefined,
  cwd = ROOT,
): Promise<{ child: ChildProcess; value: string }> {
  const child = spawn(command, args, { cwd, stdio: ["ignore", "pipe", "pipe"], detached: true });
  children.add(child);
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  try {
    const value = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${command} ${args.join(" ")}: not ready`)), 60_000);
      lines.on("line", (line) => {
        const v = ready(line.trim());
        if (v !== undefined) {
          clearTimeout(timer);
          resolve(v);
        }
      });
      child.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`${command} ${args.join(" ")} exited (${code}): ${stderr}`));
      });
    });
    return { child, value };
  } finally {
    lines.removeAllListeners("line");
  }
}

const baseUrlLine = (line: string) => (/^http:\/\/\S+$/.test(line) ? line : undefined);

async function freePort(): Promise<number> {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function stopAndWait(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once("exit", resolve));
  stop(child);
  await Promise.race([exited, sleep(5_000)]);
}

/** User + system CPU time the process has used so far, in ms (Linux: /proc, in clock ticks of 10 ms). */
function cpuMs(pid: number | undefined): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  // After the command name: utime and stime are the 12th and 13th fields.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function rssMiB(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]);
  return kb / 1024;
}

// ---------------------------------------------------------------- statistics

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length === 0
    ? NaN
    : s.length % 2 === 1
      ? (s[mid] ?? NaN)
      : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
};

interface Sample {
  rps: number;
  p50: number;
  p99: number;
  /** The target's CPU time per answer, in µs: steadier than req/s when the machine is shared. */
  cpu: number;
}

/** Runs autocannon against `pid`'s server and counts the CPU time `pid` spent meanwhile. */
async function measure(options: Parameters<typeof autocannon>[0], pid: number | undefined, what: string) {
  const cpu0 = cpuMs(pid);
  const result = await autocannon(options);
  return sample(result, (cpuMs(pid) - cpu0) * 1000, what);
}

function sample(result: Result, cpuUs: number, what: string): Sample {
  const failed = result.non2xx + result.errors + result.timeouts;
  if (failed > 0) {
    throw new Error(
      `${what}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`,
    );
  }
  return {
    rps: result.requests.total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    cpu: cpuUs / result.requests.total,
  };
}

// ---------------------------------------------------------------- targets

type Read = "list" | "filtered" | "before";
const READS = values.reads.split(",").filter((r): r is Read => ["list", "filtered", "before"].includes(r));

interface Target {
  name: string;
  pid: number | undefined;
  url: Record<Read, string>;
  headers: Record<string, string>;
}

async function get(url: string, headers: Record<string, string> = {}): Promise<Buffer> {
  const res = await fetch(url, { headers });
  const body = Buffer.from(await res.arrayBuffer());
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${body.toString()}`);
  return body;
}

interface ContactJson {
  id: string;
  createdAt: string;
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), "bench-compare-"));
  try {
    await run(work);
  } finally {
    stopAll();
    rmSync(work, { recursive: true, force: true });
  }
}

async function run(work: string): Promise<void> {
  console.log(
    `Machine: ${cpus()[0]?.model ?? "?"}, ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB; ` +
      `Node ${process.version}; load average at start ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
  );
  console.log(
    `Reads: ${ROUNDS} rounds × ${DURATION_S} s per target, ${READ_CONNECTIONS} connections; ` +
      `creation: ${WRITE_CONNECTIONS} connections; one warm-up round first\n`,
  );

  // The reference, and the pages it serves: the other targets serve the very same bytes or records.
  const reference = await start(process.execPath, [BIN, "--port", "0", "--quiet", ...NO_LIMIT], baseUrlLine);
  const baseline =
    BASELINE_BIN === undefined
      ? undefined
      : await start(process.execPath, [BASELINE_BIN, "--port", "0", "--quiet", ...NO_LIMIT], baseUrlLine);
  const all = JSON.parse((await get(`${reference.value}/api/v1/contacts?limit=50`, AUTH)).toString()) as {
    data: ContactJson[];
  };
  const pivot = all.data[Math.floor(all.data.length / 2) - 1];
  if (pivot === undefined) throw new Error("too few contacts to read with before");
  const beforeIndex = all.data.indexOf(pivot) + 1;
  const referenceUrl: Record<Read, string> = {
    list: `${reference.value}/api/v1/contacts?limit=50`,
    filtered: `${reference.value}/api/v1/contacts?type=CLIENT&limit=50`,
    before: `${reference.value}/api/v1/contacts?limit=50&before=${encodeURIComponent(pivot.createdAt)}`,
  };
  const bodies: Record<string, string> = {};
  const served: Record<Read, ContactJson[]> = { list: [], filtered: [], before: [] };
  for (const read of READS) {
    const bytes = await get(referenceUrl[read], AUTH);
    bodies[`/${read}`] = bytes.toString("base64");
    served[read] = (JSON.parse(bytes.toString()) as { data: ContactJson[] }).data;
  }
  const bodiesFile = join(work, "bodies.json");
  writeFileSync(bodiesFile, JSON.stringify(bodies));
  const dbFile = join(work, "db.json");
  writeFileSync(dbFile, JSON.stringify({ contacts: all.data }, null, 2));

  const portLine = (line: string) => (/^\d+$/.test(line) ? line : undefined);
  const bareTarget = (kind: string) =>
    start(process.execPath, ["--import", "tsx", "bench/bare-target.ts", kind, bodiesFile], portLine);
  const express = await bareTarget("express");
  const expressBorn = await bareTarget("express-born");
  const http = await bareTarget("http");
  // Its working folder is the temporary one, so that no ./public of ours is served. It prints the
  // port it was given, not the one it got, so it is given a free one.
  const jsonServer = await start(
    process.execPath,
    [JSON_SERVER, dbFile, "--port", String(await freePort()), "--host", "127.0.0.1"],
    (line) => /PORT :(\d+)/.exec(line)?.[1],
    work,
  );
  const bare = (name: string, { child, value: port }: { child: ChildProcess; value: string }): Target => ({
    name,
    pid: child.pid,
    url: {
      list: `http://127.0.0.1:${port}/list`,
      filtered: `http://127.0.0.1:${port}/filtered`,
      before: `http://127.0.0.1:${port}/before`,
    },
    headers: {},
  });
  const js = `http://127.0.0.1:${jsonServer.value}/contacts?_sort=-createdAt`;
  const onBaseline = (url: string) =>
    baseline === undefined ? url : url.replace(reference.value, baseline.value);
  const targets: Target[] = [
    { name: "reference", pid: reference.child.pid, url: referenceUrl, headers: AUTH },
    ...(baseline === undefined
      ? []
      : [
          {
            name: "baseline",
            pid: baseline.child.pid,
            url: {
              list: onBaseline(referenceUrl.list),
              filtered: onBaseline(referenceUrl.filtered),
              before: onBaseline(referenceUrl.before),
            },
            headers: AUTH,
          },
        ]),
    bare("bare Express 5", express),
    bare("bare Express 5, born", expressBorn),
    bare("bare node:http", http),
    {
      name: "json-server",
      pid: jsonServer.child.pid,
      // json-server's own way to the same records: `_lt` compares numbers only, so the before read
      // is its offset instead.
      url: {
        list: `${js}&_limit=50`,
        filtered: `${js}&type=CLIENT&_limit=50`,
        before: `${js}&_start=${beforeIndex}&_limit=50`,
      },
      headers: {},
    },
  ];
  // Same records everywhere, or the comparison means nothing.
  for (const read of READS) {
    const ids = (await get(targets.find((t) => t.name === "json-server")?.url[read] ?? "")).toString();
    const theirs = (JSON.parse(ids) as ContactJson[]).map((c) => c.id).join();
    if (theirs !== served[read].map((c) => c.id).join())
      throw new Error(`json-server serves other ${read} records`);
    for (const t of targets.filter((t) => t.name.startsWith("bare") || t.name === "baseline")) {
      if (!(await get(t.url[read], t.headers)).equals(Buffer.from(bodies[`/${read}`] ?? "", "base64"))) {
        throw new Error(`${t.name} serves other bytes for ${read}`);
      }
    }
  }
  console.log(
    `Records per read: list ${served.list.length}, filtered ${served.filtered.length}, before ${served.before.length}; ` +
      `reference bytes: ${READS.map((r) => Buffer.from(bodies[`/${r}`] ?? "", "base64").length).join(" / ")}`,
  );

  // Creation goes to a reference of its own, so that the read targets keep serving the same page.
  const writer = ONLY_READS
    ? undefined
    : await start(process.execPath, [BIN, "--port", "0", "--quiet", ...NO_LIMIT], baseUrlLine);
  const create = (duration: number) =>
    measure(
      {
        url: `${writer?.value}/api/v1/contacts`,
        method: "POST",
        connections: WRITE_CONNECTIONS,
        duration,
        headers: { ...AUTH, "Content-Type": "application/json" },
        body: NEW_CONTACT,
      },
      writer?.child.pid,
      "creation",
    );

  const reads = new Map<string, Sample[]>();
  const creations: Sample[] = [];
  for (let round = 0; round <= ROUNDS; round += 1) {
    const warmUp = round === 0;
    const duration = warmUp ? 1 : DURATION_S;
    for (const read of READS) {
      for (const t of targets) {
        const s = await measure(
          { url: t.url[read], connections: READ_CONNECTIONS, duration, headers: t.headers },
          t.pid,
          `${t.name} ${read}`,
        );
        if (!warmUp) reads.set(`${read}|${t.name}`, [...(reads.get(`${read}|${t.name}`) ?? []), s]);
      }
    }
    if (!ONLY_READS) {
      const c = await create(duration);
      if (!warmUp) creations.push(c);
    }
    process.stderr.write(warmUp ? "warm-up done\n" : `round ${round}/${ROUNDS} done\n`);
  }
  for (const c of [reference, baseline, express, expressBorn, http, jsonServer, writer])
    if (c !== undefined) await stopAndWait(c.child);

  // Requests per second, latency, and the reference's ratio to each target, round by round.
  const rows: string[][] = [
    ["read", "target", "req/s", "p50 ms", "p99 ms", "CPU µs/req", "reference ÷ target"],
  ];
  for (const read of READS) {
    const ref = reads.get(`${read}|reference`) ?? [];
    for (const t of targets) {
      const xs = reads.get(`${read}|${t.name}`) ?? [];
      const ratio = t.name === "reference" ? "" : median(ref.map((r, i) => r.rps / (xs[i]?.rps ?? NaN)));
      rows.push([
        t.name === "reference" ? read : "",
        t.name,
        median(xs.map((x) => x.rps)).toFixed(0),
        median(xs.map((x) => x.p50)).toFixed(1),
        median(xs.map((x) => x.p99)).toFixed(1),
        median(xs.map((x) => x.cpu)).toFixed(0),
        typeof ratio === "number" ? `${ratio.toFixed(2)}×` : "",
      ]);
    }
  }
  if (!ONLY_READS) {
    rows.push([
      "creation",
      "reference",
      median(creations.map((c) => c.rps)).toFixed(0),
      median(creations.map((c) => c.p50)).toFixed(1),
      median(creations.map((c) => c.p99)).toFixed(1),
      median(creations.map((c) => c.cpu)).toFixed(0),
      "",
    ]);
  }
  printTable(rows);
  console.log("(medians over the rounds; the ratio is the median of each round's req/s ratio)\n");
  if (ONLY_READS) return;

  // Start: from spawning node to the first API answer, default flags and fixtures, interleaved with
  // a bare node:http server's start (and the baseline's), run by run.
  const starts = new Map<string, number[]>();
  const startOf = async (name: string, command: string, args: string[], cwd?: string) => {
    const ms = await timeToFirstAnswer(command, args, cwd);
    starts.set(name, [...(starts.get(name) ?? []), ms]);
  };
  for (let i = 0; i < START_RUNS; i += 1) {
    await startOf("bare node:http", process.execPath, BARE_HTTP_START);
    await startOf("node dist/bundle/bin.js", process.execPath, [BIN, "--port", "0", "--quiet"]);
    if (BASELINE_BIN !== undefined) {
      await startOf("baseline node dist/bundle/bin.js", process.execPath, [
        BASELINE_BIN,
        "--port",
        "0",
        "--quiet",
      ]);
    }
  }
  for (let i = 0; i < 5; i += 1) {
    await startOf("npm start", "npm", ["start", "--", "--port", "0", "--quiet"]);
    if (BASELINE !== undefined) {
      await startOf("baseline npm start", "npm", ["start", "--", "--port", "0", "--quiet"], BASELINE);
    }
  }
  const bareStart = median(starts.get("bare node:http") ?? []);
  for (const [name, times] of starts) {
    const m = median(times);
    console.log(
      `Start to first answer, ${name}: median ${m.toFixed(0)} ms (min ${Math.min(...times).toFixed(0)}, ` +
        `max ${Math.max(...times).toFixed(0)}, ${times.length} runs)` +
        (name === "bare node:http" ? "" : `, ${(m / bareStart).toFixed(2)}× bare node:http`),
    );
  }

  // Memory after RSS_CONTACTS more contacts in org_lumiere, created through the API.
  console.log(`RSS after ${RSS_CONTACTS} more contacts in one organization, created through the API:`);
  for (const [name, bin] of [
    ["reference", BIN],
    ["baseline", BASELINE_BIN],
  ] as const) {
    if (bin !== undefined) console.log(`  ${name}: ${(await rssAfterContacts(bin)).toFixed(0)} MiB`);
  }
}

async function rssAfterContacts(bin: string): Promise<number> {
  const big = await start(process.execPath, [bin, "--port", "0", "--quiet", ...NO_LIMIT], baseUrlLine);
  const filled = await autocannon({
    url: `${big.value}/api/v1/contacts`,
    method: "POST",
    connections: WRITE_CONNECTIONS,
    amount: RSS_CONTACTS,
    headers: { ...AUTH, "Content-Type": "application/json" },
    body: NEW_CONTACT,
  });
  if (filled["2xx"] !== RSS_CONTACTS) throw new Error(`only ${filled["2xx"]} contacts were created`);
  await get(`${big.value}/api/v1/contacts?limit=200`, AUTH);
  await sleep(1_000);
  const rss = rssMiB(big.child.pid);
  await stopAndWait(big.child);
  return rss;
}

async function timeToFirstAnswer(command: string, args: string[], cwd = ROOT): Promise<number> {
  const t0 = performance.now();
  const { child, value } = await start(command, args, baseUrlLine, cwd);
  await get(`${value}/api/v1/contacts?limit=1`, AUTH);
  const ms = performance.now() - t0;
  await stopAndWait(child);
  return ms;
}

function printTable(rows: string[][]): void {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length))) ?? [];
  for (const r of rows) {
    console.log(
      r
        .map((cell, i) => (i < 2 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
        .join("  ")
        .trimEnd(),
    );
  }
}

await main();
