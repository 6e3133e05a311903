import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Pacer, defaultSafetyMargin, type PacerTimer } from "./pacer.js";

/** Time that moves only when the pacer sleeps or the test advances it. */
class FakeTimer implements PacerTimer {
  t = 1_000;
  sleeps: number[] = [];

  now(): number {
    return this.t;
  }

  sleep(ms: number): Promise<void> {
    this.sleeps.push(ms);
    this.t += ms;
    return Promise.resolve();
  }
}

/** The most requests any window of `windowMs` holds, over instants in order. */
function busiestWindow(stamps: readonly number[], windowMs: number): number {
  let most = 0;
  let start = 0;
  for (let end = 0; end < stamps.length; end += 1) {
    while ((stamps[end] ?? 0) - (stamps[start] ?? 0) >= windowMs) start += 1;
    most = Math.max(most, end - start + 1);
  }
  return most;
}

describe("Pacer", () => {
  it("keeps a safety margin of a tenth of the limit, at least one request", () => {
    expect(defaultSafetyMargin(100)).toBe(10);
    expect(defaultSafetyMargin(5)).toBe(1);
    expect(new Pacer({ rateLimit: 100, windowMs: 60_000, timer: new FakeTimer() }).allowance).toBe(90);
    expect(new Pacer({ rateLimit: 1, windowMs: 60_000, timer: new FakeTimer() }).allowance).toBe(1);
    expect(
      new Pacer({ rateLimit: 10, windowMs: 1000, safetyMargin: 0, timer: new FakeTimer() }).allowance,
    ).toBe(10);
  });

  it("lets the allowance through at once, then waits exactly until the oldest request leaves the window", async () => {
    const timer = new FakeTimer();
    const pacer = new Pacer({ rateLimit: 10, windowMs: 1000, timer });
    for (let i = 0; i < 9; i += 1) await pacer.acquire();
    expect(timer.sleeps).toEqual([]);
    await pacer.acquire();
    expect(timer.sleeps).toEqual([1000]);
    expect(pacer.total).toBe(10);
  });

  it("never lets more than the allowance into any window, whatever the mix of paced and unpaced requests", async () => {
    const op = fc.oneof(
      fc.constant({ kind: "acquire" as const }),
      fc.constant({ kind: "record" as const }),
      fc.record({ kind: fc.constant("advance" as const), ms: fc.integer({ min: 0, max: 700 }) }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 2000 }),
        fc.array(op, { maxLength: 120 }),
        async (rateLimit, windowMs, ops) => {
          const timer = new FakeTimer();
          const pacer = new Pacer({ rateLimit, windowMs, timer });
          const all: number[] = [];
          for (const o of ops) {
            if (o.kind === "advance") timer.t += o.ms;
            else if (o.kind === "record") {
              pacer.record();
              all.push(timer.now());
            } else {
              await pacer.acquire();
              const now = timer.now();
              all.push(now);
              // At the instant a paced request is let through, the window holds at most the allowance.
              expect(all.filter((s) => now - s < windowMs).length).toBeLessThanOrEqual(pacer.allowance);
            }
          }
          expect(pacer.total).toBe(all.length);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("never exceeds the allowance in any window when only paced requests are sent, even concurrently", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 5000 }),
        fc.integer({ min: 0, max: 80 }),
        async (rateLimit, windowMs, count) => {
          const timer = new FakeTimer();
          const pacer = new Pacer({ rateLimit, windowMs, timer });
          const stamps: number[] = [];
          await Promise.all(
            Array.from({ length: count }, () => pacer.acquire().then(() => void stamps.push(timer.now()))),
          );
          expect(stamps).toHaveLength(count);
          expect(busiestWindow(stamps, windowMs)).toBeLessThanOrEqual(pacer.allowance);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("makes a paced request wait for an unpaced burst to leave the window", async () => {
    const timer = new FakeTimer();
    const pacer = new Pacer({ rateLimit: 10, windowMs: 1000, timer });
    for (let i = 0; i < 21; i += 1) pacer.record();
    await pacer.acquire();
    expect(timer.sleeps).toEqual([1000]);
  });

  it("refuses a limit or a window it cannot pace", () => {
    expect(() => new Pacer({ rateLimit: 0, windowMs: 1000 })).toThrow(/positive integer/);
    expect(() => new Pacer({ rateLimit: 10, windowMs: 0 })).toThrow(/positive/);
  });
});
