/**
 * What a reset costs (POST /__control/reset; the goal is under 50 ms): each round adds 10 000 contacts
 * and products to the store (how they got there does not change a reset), then resets over HTTP; the
 * median and p95 of the resets alone are printed. Usage: npm run bench:reset [-- --rounds 100 --records 10000]
 */
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import request from "supertest";
import { ManualClock } from "../src/model/clock.js";
import { createReference } from "../src/entry/reference.js";

import { Decimal } from "decimal.js";
import { storedContact } from "../src/test-support/records.js";

const { values } = parseArgs({
  options: { rounds: { type: "string", default: "100" }, records: { type: "string", default: "10000" } },
});
const ROUNDS = Number(values.rounds);
const RECORDS = Number(values.records);

const KEY = "bench-control-key-0123456789";
const clock = new ManualClock("2026-11-20T12:00:00.000Z");
const reference = await createReference({
  clock,
  controlKey: KEY,
  rateLimit: { limit: 1e9, windowMs: 60_000 },
  log: () => {},
});
const orgs = ["org_lumiere", "org_boreal"];
let n = 0;
const timings: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  for (let i = 0; i < RECORDS; i++) {
    n += 1;
    clock.advance(1);
    const organizationId = orgs[i % 2] ?? "org_lumiere";
    const at = clock.now();
    if (i % 2 === 0) {
      reference.store.add({
        type: "contact",
        data: storedContact({ id: `con_b${n}`, organizationId, name: `C${n}`, at }),
      });
    } else {
      reference.store.add({
        type: "product",
        data: {
          id: `prd_b${n}`,
          organizationId,
          sku: `B-${n}`,
          name: `P${n}`,
          description: null,
          type: "PRODUCT",
          unitPrice: new Decimal(1),
          taxable: true,
          createdAt: at,
          updatedAt: at,
        },
      });
    }
  }
  const started = performance.now();
  const res = await request(reference.app).post("/__control/reset").set("Authorization", `Bearer ${KEY}`);
  timings.push(performance.now() - started);
  if (res.status !== 200) throw new Error(`reset answered ${res.status}`);
}
timings.sort((a, b) => a - b);
const at = (q: number) => timings[Math.min(timings.length - 1, Math.floor(q * timings.length))] ?? NaN;
console.log(
  `${ROUNDS} resets over HTTP, each after ${RECORDS} created records: median ${at(0.5).toFixed(2)} ms, p95 ${at(0.95).toFixed(2)} ms, max ${at(1).toFixed(2)} ms`,
);
