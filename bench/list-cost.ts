/**
 * What a list request costs as the organization grows: GET /api/v1/contacts?limit=50 over real HTTP
 * on loopback, with 100 and with 100 000 contacts in the caller's organization. The store keeps the
 * order it serves, so the two should cost the same. Usage: npm run bench:list [-- --runs 7 --requests 2000]
 */
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import { ManualClock } from "../src/model/clock.js";
import { createReference } from "../src/entry/reference.js";
import { storedContact } from "../src/test-support/records.js";

const { values } = parseArgs({
  options: { runs: { type: "string", default: "7" }, requests: { type: "string", default: "2000" } },
});
const RUNS = Number(values.runs);
const REQUESTS = Number(values.requests);

async function measure(contacts: number): Promise<number[]> {
  const clock = new ManualClock("2026-11-20T12:00:00.000Z");
  const reference = await createReference({
    clock,
    rateLimit: { limit: 1e9, windowMs: 60_000 },
    log: () => {},
  });
  const token = reference.manifest.tokens.find((t) => t.label === "lumiere-full")?.token ?? "";
  const existing = reference.store.countContacts("org_lumiere");
  const base = Date.parse("2020-01-01T00:00:00.000Z");
  for (let n = existing; n < contacts; n += 1) {
    const at = new Date(base + n * 1000);
    const data = storedContact({
      id: `con_bench${String(n).padStart(8, "0")}`,
      organizationId: "org_lumiere",
      type: n % 3 === 0 ? "CLIENT" : n % 3 === 1 ? "SUPPLIER" : "BOTH",
      name: `Contact ${n}`,
      email: `c${n}@example.com`,
      at,
    });
    reference.store.add({ type: "contact", data });
  }
  const server = reference.app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}/api/v1/contacts?limit=50`;
  const headers = { Authorization: `Bearer ${token}` };
  const medians: number[] = [];
  try {
    for (let i = 0; i < 200; i += 1) await (await fetch(url, { headers })).arrayBuffer(); // warm-up
    for (let run = 0; run < RUNS; run += 1) {
      const times: number[] = [];
      for (let i = 0; i < REQUESTS; i += 1) {
        const t0 = process.hrtime.bigint();
        const res = await fetch(url, { headers });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`status ${res.status}`);
        times.push(Number(process.hrtime.bigint() - t0) / 1000);
      }
      medians.push(median(times));
    }
  } finally {
    server.closeAllConnections();
    server.close();
  }
  return medians;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
};

const small = await measure(100);
const large = await measure(100_000);
const row = (label: string, ms: number[]) =>
  `${label.padEnd(18)} median of run medians ${median(ms).toFixed(1).padStart(7)} µs   runs: ${ms.map((m) => m.toFixed(0)).join(" ")}`;
console.log(`GET /api/v1/contacts?limit=50, ${RUNS} runs × ${REQUESTS} requests, loopback HTTP`);
console.log(row("100 contacts", small));
console.log(row("100 000 contacts", large));
console.log(`ratio 100 000 / 100: ${(median(large) / median(small)).toFixed(2)}`);
