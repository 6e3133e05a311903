import { describe, expect, it } from "vitest";
import { parseDuration } from "./duration.js";

describe("parseDuration (ISO 8601, days to seconds)", () => {
  it.each([
    ["PT61S", 61_000],
    ["PT0S", 0],
    ["PT1M", 60_000],
    ["PT1H30M", 5_400_000],
    ["P1D", 86_400_000],
    ["P2DT3H", 2 * 86_400_000 + 3 * 3_600_000],
    ["PT0.5S", 500],
    ["PT1.25S", 1250],
    ["-PT5M", -300_000],
  ])("reads %s as %i ms", (text, expected) => {
    expect(parseDuration(text)).toBe(expected);
  });

  it.each([
    ["", "empty"],
    ["P", "no component"],
    ["PT", "a T without time"],
    ["P1DT", "a T without time after days"],
    ["61", "no designator"],
    ["PT61", "a number without unit"],
    ["P1Y", "years depend on the calendar"],
    ["P1M", "months depend on the calendar"],
    ["P1W", "weeks are not taken"],
    ["pt61s", "lower case"],
    ["PT1.2345S", "sub-millisecond"],
    ["PT1S ", "a trailing space"],
    ["+PT1S", "a plus sign"],
  ])("refuses %j (%s)", (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });
});
