import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { fixtureToken, killAllBins, startBin, type BinRun } from "../../test-support/bin.js";

/**
 * The promise of `--data`: no acknowledged write lost. The real server takes concurrent creations
 * and is killed with SIGKILL at a random moment, several rounds on the same folder; each restart
 * must serve every record answered 201, whole, and any record it serves must be one that was sent,
 * whole (an unacknowledged one may be there or not, never in part).
 *
 * Every other start compacts after 2 KiB of journal, so that kills also land in or around a
 * snapshot and its rename.
 *
 * The moment of each kill is counted in acknowledgements (after the k-th 201, then a random few ms),
 * not in time, so the verdict does not depend on the machine's speed; the time limits only catch a
 * hang. CRASH_ROUNDS and CRASH_SEED replay or extend a run.
 */

const ROUNDS = Number(process.env.CRASH_ROUNDS ?? 4);
const SEED = Number(process.env.CRASH_SEED ?? Date.now() % 1_000_000);
const WORKERS = 6;
const ROUND_LIMIT_MS = 30_000;

/** mulberry32: a small seeded generator, so that a failing run's choices replay. */
function random(seed: number): (n: number) => number {
  let a = seed >>> 0;
  return (n) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

interface Sent {
  path: "/api/v1/contacts" | "/api/v1/products";
  /** What a list must show for it: every field sent, as served. */
  expected: Record<string, unknown>;
  body: string;
}

let dir = "";

afterEach(async () => {
  killAllBins();
  if (dir !== "") await rm(dir, { recursive: true, force: true });
});

const BANNER = /listening on (http:\/\/127\.0\.0\.1:\d+)/;

async function serve(compact: boolean): Promise<{ run: BinRun; baseUrl: string }> {
  const run = startBin([
    "--port",
    "0",
    "--data",
    dir,
    "--rate-limit",
    "1000000",
    ...(compact ? ["--compact-after", "2048"] : []),
  ]);
  const [, baseUrl = ""] = await run.waitFor(BANNER, ROUND_LIMIT_MS);
  return { run, baseUrl };
}

it(
  `loses no acknowledged write across ${ROUNDS} SIGKILLs at random moments (CRASH_SEED=${SEED})`,
  async () => {
    dir = await mkdtemp(join(tmpdir(), "reference-crash-"));
    const rand = random(SEED);
    const token = await fixtureToken("boreal-full");
    const headers = { Authorization: `Bearer ${token}`, "Content-Type": "application/json" };
    const sent = new Map<string, Sent>();
    const acked = new Map<string, Record<string, unknown>>();
    const report: string[] = [];
    let server = await serve(true);

    for (let round = 1; round <= ROUNDS; round += 1) {
      const killAfter = 1 + rand(25);
      const delayMs = rand(15);
      let acks = 0;
      let killed = false;
      const kill = () => {
        if (killed) return;
        killed = true;
        server.run.child.kill("SIGKILL");
      };
      const guard = setTimeout(kill, ROUND_LIMIT_MS);
      const worker = async (w: number) => {
        for (let n = 0; !killed; n += 1) {
          const marker = `crash-${round}-${w}-${n}`;
          const item: Sent =
            n % 2 === 0
              ? {
                  path: "/api/v1/products",
                  expected: {
                    sku: marker,
                    name: `Product ${marker}`,
                    unitPrice: `${n}.${String(rand(10_000)).padStart(4, "0")}`,
                  },
                  body: "",
                }
              : {
                  path: "/api/v1/contacts",
                  expected: { type: "SUPPLIER", name: marker, email: `${marker}@example.com` },
                  body: "",
                };
          // The price goes out as written: a JSON number that never passes through a float here.
          item.body =
            item.path === "/api/v1/products"
              ? `{"sku":"${marker}","name":"Product ${marker}","unitPrice":${String(item.expected.unitPrice)}}`
              : JSON.stringify(item.expected);
          sent.set(marker, item);
          let res: Response;
          try {
            res = await fetch(`${server.baseUrl}${item.path}`, { method: "POST", headers, body: item.body });
          } catch {
            return; // the server is gone
          }
          const json = (await res.json().catch(() => null)) as { data?: Record<string, unknown> } | null;
          if (res.status !== 201 || json?.data === undefined) {
            throw new Error(`${item.path} answered ${res.status}: ${JSON.stringify(json)}`);
          }
          acked.set(marker, json.data);
          acks += 1;
          if (acks === killAfter) setTimeout(kill, delayMs);
        }
      };
      await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
      await server.run.exited;
      clearTimeout(guard);
      expect(
        acks,
        `round ${round} reached ${killAfter} acknowledgements before the time limit`,
      ).toBeGreaterThanOrEqual(killAfter);

      server = await serve(round % 2 === 0);
      const banner = server.run.output().stdout;
      expect(banner).toContain(`state: loaded from ${dir}`);
      const served = new Map<string, Record<string, unknown>>();
      for (const path of ["/api/v1/products", "/api/v1/contacts"] as const) {
        const res = await fetch(`${server.baseUrl}${path}?limit=200`, { headers });
        const { data } = (await res.json()) as { data: Record<string, unknown>[] };
        expect(data.length, "the test keeps each list under one page").toBeLessThan(200);
        for (const item of data) {
          const marker = String(path === "/api/v1/products" ? item.sku : item.name);
          if (!marker.startsWith("crash-")) continue;
          expect(served.has(marker), `${marker} served once`).toBe(false);
          served.set(marker, item);
          const wanted = sent.get(marker);
          expect(wanted, `${marker} was sent`).toBeDefined();
          expect(item, `${marker} is whole`).toMatchObject(wanted?.expected ?? {});
        }
      }
      for (const [marker, data] of acked) {
        expect(served.get(marker), `acknowledged ${marker} is there, whole`).toMatchObject(data);
      }
      const unacked = [...served.keys()].filter((m) => !acked.has(m)).length;
      const torn = /dropped the torn last record/.test(banner);
      const journal = (await readdir(dir)).find((n) => n.startsWith("journal-")) ?? "?";
      report.push(
        `round ${round}${round % 2 === 1 ? " (compacting)" : ""}: SIGKILL ${delayMs} ms after 201 number ${killAfter}; ${acks} acknowledged this round, ${acked.size} in all, all served whole; unacknowledged served whole, in all: ${unacked}; torn record dropped: ${torn ? "yes" : "no"}; now on ${journal}`,
      );
    }
    server.run.child.kill("SIGTERM");
    expect(await server.run.exited).toBe(0);
    console.log(`crash test, CRASH_SEED=${SEED}\n${report.join("\n")}`);
  },
  (ROUNDS + 1) * 2 * ROUND_LIMIT_MS,
);
