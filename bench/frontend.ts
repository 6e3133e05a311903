/**
 * `npm run bench:frontend`: the figures of docs/frontend.md as a frontend team measures them, from
 * the package as it installs (built, packed, installed from its tarball into a project of its own),
 * each in processes of its own:
 *
 * - start: from spawning the `webServer` command (through `sh -c`, as Playwright runs it) to the first
 *   200 of GET /openapi.json, polled every 10 ms; `npx accounting-reference` and `node
 *   node_modules/accounting-api-reference/dist/bundle/bin.js` in turn, each round both;
 * - a sandbox made with curl (`POST /__control/sandboxes`, curl's `time_total`, a new connection each)
 *   against a reference started for it: the first, then the median of the next ones;
 * - a worker's first sandbox: `createSandbox()` of the control client in a new Node process (a
 *   Playwright worker's first call: the process's first `fetch`, a new connection), four such processes
 *   at once against a reference just started (a run's start), and one alone against a warm one;
 * - `createReference()` in a new Node process: the package's import, the first call, the second.
 *
 * Not in CI: timings are noisy. The machine, its load and the Node and npm versions are printed with
 * the figures. Usage: npm run bench:frontend [-- --rounds 10 --curls 100]
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs, promisify } from "node:util";

const { values } = parseArgs({
  options: { rounds: { type: "string", default: "10" }, curls: { type: "string", default: "100" } },
});
const ROUNDS = Number(values.rounds);
const CURLS = Number(values.curls);
const ROOT = join(import.meta.dirname, "..");
const KEY = "bench-control-key-0123456789";
const BIN = "node_modules/accounting-api-reference/dist/bundle/bin.js";

// Variables npm sets for a script (`npm run bench:frontend`) would change the nested npm commands.
const env = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith("npm_")),
);
const run = async (command: string, args: string[], cwd: string): Promise<string> =>
  (await promisify(execFile)(command, args, { cwd, env, maxBuffer: 16 * 1024 * 1024 })).stdout;

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const median = (xs: number[]): number => {
  const s = sorted(xs);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] ?? NaN) : ((s[mid - 1] ?? NaN) + (s[mid] ?? NaN)) / 2;
};
const range = (xs: number[], digits = 0) =>
  `median ${median(xs).toFixed(digits)} ms (${sorted(xs)[0]?.toFixed(digits)}–${sorted(xs).at(-1)?.toFixed(digits)}, n=${xs.length})`;

const project = await mkdtemp(join(tmpdir(), "acct-bench-frontend-"));
const children = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});

/** A free port: one the system gives, then closed. */
async function freePort(): Promise<number> {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  server.close();
  await once(server, "close");
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

/** Runs a start command as Playwright's `webServer` does; ms until /openapi.json answers 200. */
async function start(command: string): Promise<{ ms: number; url: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child = spawn("sh", ["-c", `exec ${command} --port ${port} --control-key ${KEY} --quiet`], {
    cwd: project,
    env,
    stdio: "ignore",
    detached: true,
  });
  children.add(child);
  for (;;) {
    const ok = await fetch(`${url}/openapi.json`).then(
      (res) => res.status === 200,
      () => false,
    );
    if (ok) break;
    if (child.exitCode !== null) throw new Error(`${command} exited with ${child.exitCode}`);
    if (performance.now() - started > 30_000) throw new Error(`${command} did not answer within 30 s`);
    await sleep(10);
  }
  const ms = performance.now() - started;
  return {
    ms,
    url,
    stop: async () => {
      // The whole group: npx and the server it started.
      process.kill(-(child.pid ?? 0), "SIGTERM");
      if (child.exitCode === null) await once(child, "exit");
      children.delete(child);
    },
  };
}

/** curl's time for one POST /__control/sandboxes, in ms. */
async function curlSandbox(url: string): Promise<number> {
  const out = await run(
    "curl",
    [
      ...["-s", "-o", "/dev/null", "-w", "%{http_code} %{time_total}", "-X", "POST"],
      ...["-H", `Authorization: Bearer ${KEY}`, `${url}/__control/sandboxes`],
    ],
    project,
  );
  const [status, seconds] = out.split(" ");
  if (status !== "201") throw new Error(`POST /__control/sandboxes answered ${status}`);
  return Number(seconds) * 1000;
}

/** A new Node process's first `createSandbox()`, in ms, as a Playwright worker makes it. */
function workerFirstSandbox(url: string): Promise<number> {
  const script = [
    'import { ControlClient } from "accounting-api-reference/control";',
    `const control = new ControlClient({ baseUrl: ${JSON.stringify(url)}, key: ${JSON.stringify(KEY)} });`,
    "const started = performance.now();",
    "await control.createSandbox();",
    "console.log(performance.now() - started);",
  ].join("\n");
  return run(process.execPath, ["--input-type=module", "-e", script], project).then(Number);
}

/** In a new Node process: the package's import, then `createReference()` twice, in ms. */
async function createReferenceTimes(): Promise<[number, number, number]> {
  const script = [
    "const t0 = performance.now();",
    'const { createReference } = await import("accounting-api-reference");',
    "const t1 = performance.now();",
    "await createReference();",
    "const t2 = performance.now();",
    "await createReference();",
    "const t3 = performance.now();",
    "console.log(JSON.stringify([t1 - t0, t2 - t1, t3 - t2]));",
  ].join("\n");
  return JSON.parse(await run(process.execPath, ["--input-type=module", "-e", script], project)) as [
    number,
    number,
    number,
  ];
}

try {
  // The package as a user installs it.
  const pack = join(project, "pack");
  await mkdir(pack);
  // Built by the npm script's build-if-stale: the prepack script need not build again.
  const packed = await run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", pack], ROOT);
  const tarball = (JSON.parse(packed) as { filename: string }[])[0]?.filename ?? "";
  await writeFile(join(project, "package.json"), JSON.stringify({ name: "bench-frontend", private: true }));
  await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", join(pack, tarball)], project);
  const npm = (await run("npm", ["--version"], project)).trim();
  console.log(
    `${cpus().length} × ${cpus()[0]?.model ?? "?"}, load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(
        " ",
      )}, Node ${process.version}, npm ${npm}; the package installed from its tarball in ${project}\n`,
  );

  // This process's own first fetch (undici's load) falls in no measure.
  await fetch("http://127.0.0.1:9/").catch(() => undefined);

  const viaNpx: number[] = [];
  const direct: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [command, into] of [
      ["npx accounting-reference", viaNpx],
      [`node ${BIN}`, direct],
    ] as const) {
      const server = await start(command);
      into.push(server.ms);
      await server.stop();
    }
  }
  console.log("start, spawn to the first 200 of /openapi.json (sh -c, polled every 10 ms):");
  console.log(`  npx accounting-reference: ${range(viaNpx)}`);
  console.log(`  node ${BIN}: ${range(direct)}\n`);

  const firstCurl: number[] = [];
  const laterCurls: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const server = await start(`node ${BIN}`);
    firstCurl.push(await curlSandbox(server.url));
    // Each round's sandboxes stay until the server stops: the bound (200) is above CURLS / ROUNDS.
    for (let i = 0; i < Math.ceil(CURLS / ROUNDS); i += 1) laterCurls.push(await curlSandbox(server.url));
    await server.stop();
  }
  console.log("a sandbox made with curl (POST /__control/sandboxes, time_total, a new connection each):");
  console.log(`  the first after the start: ${range(firstCurl, 1)}`);
  console.log(`  the ones after it: ${range(laterCurls, 1)}\n`);

  const atStart: number[] = [];
  const alone: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const server = await start(`node ${BIN}`);
    atStart.push(...(await Promise.all([1, 2, 3, 4].map(() => workerFirstSandbox(server.url)))));
    alone.push(await workerFirstSandbox(server.url));
    await server.stop();
  }
  console.log("a worker's first sandbox (createSandbox() in a new Node process, its first fetch):");
  console.log(`  four processes at once, the reference just started: ${range(atStart)}`);
  console.log(`  one process, the reference warm: ${range(alone, 1)}\n`);

  const imports: number[] = [];
  const firsts: number[] = [];
  const seconds: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const [imported, first, second] = await createReferenceTimes();
    imports.push(imported);
    firsts.push(first);
    seconds.push(second);
  }
  console.log("createReference() in a new Node process (the shipped fixtures):");
  console.log(`  import of the package: ${range(imports)}`);
  console.log(`  the first call: ${range(firsts)}`);
  console.log(`  the second call: ${range(seconds, 1)}`);
} finally {
  await rm(project, { recursive: true, force: true });
}
