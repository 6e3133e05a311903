import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ManualClock } from "../model/clock.js";
import { RollingWindows } from "./windows.js";

const WINDOW = 60_000;

function store(limit: number) {
  const clock = new ManualClock("2026-11-20T12:00:00.000Z");
  return { clock, store: new RollingWindows({ limit, windowMs: WINDOW }, clock) };
}

describe("RollingWindows", () => {
  it("accepts `limit` hits in a window and refuses the next", () => {
    const { store: s } = store(3);
    expect([1, 2, 3, 4].map(() => s.increment("k").totalHits)).toEqual([1, 2, 3, 4]);
  });

  it("refuses a burst across what would be a fixed window's boundary", () => {
    // A fixed window would reset at +60 s and accept 3 more right away: 6 in 2 seconds.
    const { clock, store: s } = store(3);
    clock.advance(WINDOW - 1_000);
    [1, 2, 3].forEach(() => s.increment("k"));
    clock.advance(2_000);
    expect(s.increment("k").totalHits).toBe(4);
  });

  it("frees a slot when the oldest accepted hit leaves the window, and says when", () => {
    const { clock, store: s } = store(2);
    const start = clock.now().getTime();
    s.increment("k");
    clock.advance(10_000);
    s.increment("k");
    const refused = s.increment("k");
    expect(refused.totalHits).toBe(3);
    expect(refused.resetTime?.getTime()).toBe(start + WINDOW);
    clock.set(start + WINDOW);
    expect(s.increment("k").totalHits).toBe(2);
  });

  it("refuses every hit in the same millisecond once the limit is reached", () => {
    const { store: s } = store(2);
    expect([1, 2, 3, 4].map(() => s.increment("k").totalHits)).toEqual([1, 2, 3, 3]);
  });

  it("does not let refused hits extend the block", () => {
    const { clock, store: s } = store(1);
    s.increment("k");
    for (let i = 0; i < 100; i += 1) {
      clock.advance(500);
      s.increment("k");
    }
    clock.set(new Date("2026-11-20T12:00:00.000Z").getTime() + WINDOW);
    expect(s.increment("k").totalHits).toBe(1);
  });

  it("counts keys separately and forgets a key on reset", () => {
    const { store: s } = store(1);
    s.increment("a");
    expect(s.increment("b").totalHits).toBe(1);
    expect(s.increment("a").totalHits).toBe(2);
    s.resetKey("a");
    expect(s.increment("a").totalHits).toBe(1);
  });

  it("agrees with a plain log of accepted instants over long runs", () => {
    // Short windows and many hits, so that instants leave the window all the time and the log's
    // skipped part is compacted again and again.
    const step = fc.record({
      advance: fc.integer({ min: 0, max: 5 }),
      key: fc.constantFrom("a", "b"),
    });
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 150 }),
        fc.array(step, { minLength: 300, maxLength: 800 }),
        (limit, steps) => {
          const windowMs = 100;
          const clock = new ManualClock(0);
          const s = new RollingWindows({ limit, windowMs }, clock);
          const model = new Map<string, number[]>();
          for (const { advance, key } of steps) {
            clock.advance(advance);
            const now = clock.now().getTime();
            const log = (model.get(key) ?? []).filter((t) => t > now - windowMs);
            const accepted = log.length < limit;
            if (accepted) log.push(now);
            model.set(key, log);
            const got = s.increment(key);
            expect(got.totalHits).toBe(accepted ? log.length : limit + 1);
            expect(got.resetTime?.getTime()).toBe((log[0] ?? now) + windowMs);
          }
        },
      ),
      { seed: Number(process.env.FC_SEED ?? 20261122), numRuns: 100 },
    );
  });
});
