/**
 * What a sandbox costs (issue 18: at most 5 ms to create, median of 100, a few hundred KiB; 200 under
 * 100 MiB more than none), with the shipped fixtures: each creation timed alone over HTTP
 * (POST /__control/sandboxes, as a test runner asks) and in process (reference.sandbox()); then the
 * heap and RSS after a full collection with none, with 200 fresh, and with 200 whose every list has
 * been read once through the API (the served bytes of each record are then kept beside it).
 * Usage: npm run bench:sandboxes [-- --count 200 --rounds 100]
 */
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import request from "supertest";
import { createReference } from "../src/entry/reference.js";

const { values } = parseArgs({
  options: { count: { type: "string", default: "200" }, rounds: { type: "string", default: "100" } },
});
const COUNT = Number(values.count);
const ROUNDS = Number(values.rounds);

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("run with node --expose-gc (npm run bench:sandboxes does)");

const KEY = "bench-control-key-0123456789";
const reference = await createReference({
  controlKey: KEY,
  maxSandboxes: Math.max(COUNT, ROUNDS) + 20,
  rateLimit: { limit: 1e9, windowMs: 60_000 },
  log: () => {},
});
const auth = { Authorization: `Bearer ${KEY}` };

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const p90 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)] ?? NaN;
const ms = (x: number) => `${x.toFixed(2)} ms`;

// Warm up: the code paths, the JIT, the first limiter.
for (let i = 0; i < 30; i++) reference.sandbox().delete();

const inProcess: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
  const started = performance.now();
  const sandbox = reference.sandbox();
  inProcess.push(performance.now() - started);
  sandbox.delete();
}
const overHttp: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
  const started = performance.now();
  const res = await request(reference.app).post("/__control/sandboxes").set(auth).send({});
  overHttp.push(performance.now() - started);
  reference.sandboxes.delete((res.body as { id: string }).id);
}
console.log(
  `creation, in process: median ${ms(median(inProcess))}, p90 ${ms(p90(inProcess))} (${ROUNDS} rounds)`,
);
console.log(`creation, POST /__control/sandboxes: median ${ms(median(overHttp))}, p90 ${ms(p90(overHttp))}`);

const measure = () => {
  gc();
  gc();
  const { heapUsed, rss } = process.memoryUsage();
  return { heapUsed, rss };
};
const MiB = 1024 * 1024;
const none = measure();
const sandboxes = Array.from({ length: COUNT }, () => reference.sandbox());
const fresh = measure();
for (const sandbox of sandboxes) {
  for (const path of ["/api/v1/contacts", "/api/v1/products", "/api/v1/invoices", "/api/v1/expenses"]) {
    for (const label of ["lumiere-full", "boreal-full"]) {
      await request(reference.app)
        .get(`${path}?limit=200`)
        .set("Authorization", `Bearer ${sandbox.tokens[label] ?? ""}`);
    }
  }
}
const read = measure();
const line = (what: string, m: { heapUsed: number; rss: number }) =>
  console.log(
    `${what}: heap +${((m.heapUsed - none.heapUsed) / MiB).toFixed(1)} MiB ` +
      `(${((m.heapUsed - none.heapUsed) / COUNT / 1024).toFixed(0)} KiB each), ` +
      `RSS +${((m.rss - none.rss) / MiB).toFixed(1)} MiB`,
  );
console.log(
  `with none: heap ${(none.heapUsed / MiB).toFixed(1)} MiB, RSS ${(none.rss / MiB).toFixed(1)} MiB`,
);
line(`${COUNT} fresh sandboxes`, fresh);
line(`${COUNT} sandboxes, every list read once`, read);
for (const sandbox of sandboxes) sandbox.delete();
sandboxes.length = 0;
const after = measure();
console.log(`after deleting them: heap +${((after.heapUsed - none.heapUsed) / MiB).toFixed(1)} MiB`);
// Again, to tell a leak (it grows with each round) from what the first round left warm.
for (let round = 0; round < 3; round++) {
  for (const sandbox of Array.from({ length: COUNT }, () => reference.sandbox())) sandbox.delete();
}
const again = measure();
console.log(
  `after 3 more rounds of ${COUNT} made and deleted: heap +${((again.heapUsed - none.heapUsed) / MiB).toFixed(1)} MiB`,
);
