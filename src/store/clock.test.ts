import { describe, expect, it } from "vitest";
import { ManualClock } from "../model/clock.js";
import { SteerableClock } from "./clock.js";

const T0 = "2026-11-20T12:00:00.000Z";
const ms = (iso: string) => new Date(iso).getTime();

function steerable(start?: string) {
  const base = new ManualClock(T0);
  const clock = new SteerableClock(base, start === undefined ? undefined : new Date(start));
  return { base, clock };
}

describe("SteerableClock", () => {
  it("follows its base clock until moved", () => {
    const { base, clock } = steerable();
    base.advance(1500);
    expect(clock.now().toISOString()).toBe("2026-11-20T12:00:01.500Z");
  });

  it("starts at the instant it is given and runs on from there", () => {
    const { base, clock } = steerable("2027-01-01T00:00:00Z");
    expect(clock.now().toISOString()).toBe("2027-01-01T00:00:00.000Z");
    base.advance(2000);
    expect(clock.now().toISOString()).toBe("2027-01-01T00:00:02.000Z");
  });

  it("set and advance move it without touching the base", () => {
    const { base, clock } = steerable();
    clock.set("2030-05-05T00:00:00Z");
    clock.advance(61_000);
    expect(clock.now().toISOString()).toBe("2030-05-05T00:01:01.000Z");
    expect(base.now().toISOString()).toBe(T0);
  });

  it("stands still while frozen, moves only when told, and runs on from there once thawed", () => {
    const { base, clock } = steerable();
    clock.setFrozen(true);
    base.advance(10_000);
    expect(clock.now().toISOString()).toBe(T0);
    clock.advance(5000);
    expect(clock.now().getTime()).toBe(ms(T0) + 5000);
    clock.setFrozen(false);
    base.advance(1000);
    expect(clock.now().getTime()).toBe(ms(T0) + 6000);
  });

  it("reports its state: the instant, frozen or not, and its offset from the base", () => {
    const { clock } = steerable();
    clock.advance(-30_000);
    clock.setFrozen(true);
    expect(clock.state()).toEqual({ now: new Date(ms(T0) - 30_000), frozen: true, offsetMs: -30_000 });
  });

  it("restore goes back to the time it started with, thawed", () => {
    const { base, clock } = steerable("2027-01-01T00:00:00Z");
    clock.set("2040-01-01T00:00:00Z");
    clock.setFrozen(true);
    base.advance(1000);
    clock.restore();
    expect(clock.frozen).toBe(false);
    expect(clock.now().toISOString()).toBe("2027-01-01T00:00:01.000Z");
  });

  it.each([["not a date"], [Number.NaN]])("refuses to be set to %s", (value) => {
    const { clock } = steerable();
    expect(() => clock.set(value)).toThrow(RangeError);
    expect(clock.now().toISOString()).toBe(T0);
  });
});
