/**
 * What `--data DIR` costs: creation throughput and latency with and without it (POST
 * /api/v1/products over loopback HTTP, 1 and 16 clients at a time), how many fsyncs the creations
 * shared, start time with 100 000 journaled records (and with the same state in a snapshot), and
 * the size on disk. Usage: npm run bench:persistence [-- --requests 2000 --records 100000]
 */
import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Decimal } from "decimal.js";
import type { Product } from "../src/model/records.js";
import { createReference, type Reference } from "../src/entry/reference.js";

const { values } = parseArgs({
  options: {
    requests: { type: "string", default: "2000" },
    records: { type: "string", default: "100000" },
    starts: { type: "string", default: "3" },
  },
});
const REQUESTS = Number(values.requests);
const RECORDS = Number(values.records);
const STARTS = Number(values.starts);
const quiet = { log: () => {}, rateLimit: { limit: 1e9, windowMs: 60_000 }, controlKey: null };

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
};
const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))] ?? NaN;
};
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

async function dirBytes(dir: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const name of await readdir(dir)) out[name] = (await stat(join(dir, name))).size;
  return out;
}

async function creations(reference: Reference, clients: number): Promise<string> {
  const server = reference.app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const { port } = server.address() as AddressInfo;
  const token = reference.manifest.tokens.find((t) => t.label === "lumiere-full")?.token ?? "";
  const headers = { Authorization: `Bearer ${token}`, "Content-Type": "application/json" };
  const url = `http://127.0.0.1:${port}/api/v1/products`;
  let counter = 0;
  const post = async () => {
    const n = (counter += 1);
    const t0 = process.hrtime.bigint();
    const res = await fetch(url, {
      method: "POST",
      headers,
      body: `{"sku":"bench-${clients}-${n}","name":"Bench ${n}","unitPrice":${n}.5}`,
    });
    await res.arrayBuffer();
    if (res.status !== 201) throw new Error(`status ${res.status}`);
    return Number(process.hrtime.bigint() - t0) / 1e6;
  };
  try {
    for (let i = 0; i < 100; i += 1) await post(); // warm-up
    const before = reference.dataStats();
    const times: number[] = [];
    const started = performance.now();
    const cpu0 = process.cpuUsage();
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (times.length < REQUESTS) times.push(await post());
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpu0);
    // CPU time (client and server share this process) is steadier than wall time on a busy machine.
    const cpuPerCreation = (cpu.user + cpu.system) / times.length;
    const after = reference.dataStats();
    const writes = before === null || after === null ? null : after.writes - before.writes;
    return [
      `${String(clients).padStart(2)} client(s): ${(times.length / seconds).toFixed(0).padStart(6)} creations/s`,
      `latency p50 ${median(times).toFixed(2)} ms, p99 ${percentile(times, 99).toFixed(2)} ms`,
      `${cpuPerCreation.toFixed(0)} µs of CPU each`,
      ...(writes === null ? [] : [`${writes} fsyncs for ${times.length} creations`]),
    ].join(", ");
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

const root = await mkdtemp(join(tmpdir(), "bench-persistence-"));
try {
  console.log(`Creations: POST /api/v1/products over loopback HTTP, ${REQUESTS} per line`);
  for (const clients of [1, 16]) {
    const memory = await createReference(quiet);
    console.log(`  in memory   ${await creations(memory, clients)}`);
    const dir = join(root, `throughput-${clients}`);
    const persisted = await createReference({ ...quiet, dataDir: dir });
    console.log(`  --data      ${await creations(persisted, clients)}`);
    await persisted.close();
  }

  // A journal of RECORDS creations, never compacted: what a start after a crash may have to replay.
  const dir = join(root, "start");
  const building = await createReference({
    ...quiet,
    dataDir: dir,
    persistence: { compactAfterBytes: Infinity },
  });
  const base = Date.parse("2026-01-01T00:00:00.000Z");
  for (let n = 0; n < RECORDS; n += 1) {
    const at = new Date(base + n * 1000);
    const product: Product = {
      id: `prd_bench${String(n).padStart(8, "0")}`,
      organizationId: "org_lumiere",
      sku: `BENCH-${n}`,
      name: `Bench product ${n}`,
      description: n % 2 === 0 ? null : "A product made by the benchmark, with a description",
      type: n % 3 === 0 ? "SERVICE" : "PRODUCT",
      unitPrice: new Decimal(`${n}.${String(n % 10_000).padStart(4, "0")}`),
      taxable: n % 2 === 0,
      createdAt: at,
      updatedAt: at,
    };
    building.store.add({ type: "product", data: product });
    if (n % 1000 === 999) await building.state.durable();
  }
  await building.close();
  const journaled = await dirBytes(dir);

  const startTimes = async (label: string) => {
    const totals: number[] = [];
    const loads: number[] = [];
    const cpus: number[] = [];
    for (let i = 0; i < STARTS; i += 1) {
      const t0 = performance.now();
      const cpu0 = process.cpuUsage();
      const reference = await createReference({
        ...quiet,
        dataDir: dir,
        persistence: { compactAfterBytes: Infinity },
      });
      totals.push(performance.now() - t0);
      const cpu = process.cpuUsage(cpu0);
      cpus.push((cpu.user + cpu.system) / 1000);
      loads.push(reference.data?.loadMs ?? NaN);
      if (reference.store.productBySku("org_lumiere", `BENCH-${RECORDS - 1}`) === undefined) {
        throw new Error("the last record was not loaded");
      }
      await reference.close();
    }
    console.log(
      `  ${label}: median ${median(totals).toFixed(0)} ms to start (${median(loads).toFixed(0)} ms reading the folder; ${median(cpus).toFixed(0)} ms of CPU), ${STARTS} starts`,
    );
  };
  console.log(`Start with ${RECORDS} created products besides the fixtures`);
  await startTimes(`${RECORDS} journaled records`);

  // The same state compacted: a reset of nothing would clear it, so compaction is asked of the data directory.
  const compacting = await createReference({ ...quiet, dataDir: dir, persistence: { compactAfterBytes: 0 } });
  compacting.store.add({ type: "organization", data: { id: "org_bench", name: "Bench", plan: "BUSINESS" } });
  await compacting.state.durable();
  for (let i = 0; i < 100 && (compacting.dataStats()?.snapshots ?? 0) < 1; i += 1) {
    await new Promise((r) => setTimeout(r, 50));
  }
  await compacting.close();
  const compacted = await dirBytes(dir);
  await startTimes(`snapshot of the same state`);

  console.log("Size on disk");
  const journal = Object.entries(journaled).find(([n]) => n.startsWith("journal-"))?.[1] ?? 0;
  console.log(
    `  journal of ${RECORDS} records: ${mib(journal)} (${(journal / RECORDS).toFixed(0)} bytes a record); snapshot of the fixtures: ${mib(journaled["state.json"] ?? 0)}`,
  );
  console.log(`  snapshot with them: ${mib(compacted["state.json"] ?? 0)}`);
} finally {
  await rm(root, { recursive: true, force: true });
}
