import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { exclusiveBoundMs } from "./schemas.js";

describe("exclusiveBoundMs", () => {
  it.each([
    ["2026-10-30", Date.UTC(2026, 9, 30)],
    ["2026-10-30T00:00:00Z", Date.UTC(2026, 9, 30)],
    ["2026-10-30T00:00:00.000Z", Date.UTC(2026, 9, 30)],
    ["2026-10-30T00:00:00.000000Z", Date.UTC(2026, 9, 30)],
    ["2026-10-30T00:00:00.0001Z", Date.UTC(2026, 9, 30) + 1],
    ["2026-10-30T00:00:00.1239Z", Date.UTC(2026, 9, 30) + 124],
    ["2026-10-30T00:00:00.0001+05:30", Date.UTC(2026, 9, 29, 18, 30) + 1],
    // V8's Date.parse alone reads this as 10 ms.
    ["1970-01-01T00:00:00.00010000000Z", 1],
    // Before the epoch the fraction still counts up from the second: .9995 is -0.5 ms.
    ["1969-12-31T23:59:59.9995Z", 0],
  ])("bounds %s at %i", (text, expected) => {
    expect(exclusiveBoundMs(text)).toBe(expected);
  });

  it("keeps exactly the whole-ms keys strictly below the instant written", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(1900, 0, 1), max: Date.UTC(2200, 0, 1) }),
        fc.stringMatching(/^[0-9]{0,9}$/),
        fc.integer({ min: -2, max: 2 }),
        (ms, beyond, offset) => {
          const text = `${new Date(ms).toISOString().slice(0, -1)}${beyond}Z`;
          const key = ms + offset;
          // The instant is ms + 0.beyond: a key is below it when below ms, or at ms with a fraction left.
          const below = key < ms || (key === ms && /[1-9]/.test(beyond));
          expect(key < exclusiveBoundMs(text)).toBe(below);
        },
      ),
      { seed: Number(process.env.FC_SEED ?? 424242), numRuns: 500 },
    );
  });
});
