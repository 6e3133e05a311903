import { execFile } from "node:child_process";
import { promisify } from "node:util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { maskInPart, nearMisses } from "./near-miss.js";

/** Tokens shaped like the spec's: a prefix, an underscore, base62. */
const tokenArb = fc
  .tuple(fc.stringMatching(/^[a-z]{2,6}$/), fc.stringMatching(/^[A-Za-z0-9]{8,48}$/))
  .map(([prefix, secret]) => ({ prefix, token: `${prefix}_${secret}` }));

describe("nearMisses", () => {
  it("gives every kind of near miss of a fixture-shaped token", () => {
    const misses = nearMisses("acct_ZlppaRFViM0MMOnpB8Yoi9MQIXKHaWnohLwpR6Ws", "acct");
    expect(misses.map((m) => m.what)).toEqual([
      "every letter's case changed",
      "one letter's case changed",
      "the prefix in another case",
      "its last character dropped",
      "its first character after the prefix dropped",
      "one character dropped from the middle",
      "one character added at the end",
      "one character added in the middle",
      "its last character changed",
    ]);
    expect(misses[0]?.value).toBe("acct_zLPPArfvIm0mmoNPb8yOI9mqixkhAwNOHlWPr6wS");
    expect(misses[2]?.value).toBe("ACCT_ZlppaRFViM0MMOnpB8Yoi9MQIXKHaWnohLwpR6Ws");
  });

  it("never gives the token itself, and each miss is one step from it (length ±1, or the same letters in another case)", () => {
    fc.assert(
      fc.property(tokenArb, ({ prefix, token }) => {
        for (const m of nearMisses(token, prefix)) {
          expect(m.value, m.what).not.toBe(token);
          const step = Math.abs(m.value.length - token.length) === 1 || m.value.length === token.length;
          expect(step, m.what).toBe(true);
          if (/case/.test(m.what)) expect(m.value.toLowerCase()).toBe(token.toLowerCase());
        }
      }),
      { seed: 20261122, numRuns: 200 },
    );
  });

  it("leaves the case changes of the secret out when it has no letter", () => {
    const whats = nearMisses("t_0123456789", "t").map((m) => m.what);
    expect(whats).not.toContain("one letter's case changed");
    expect(whats).not.toContain("every letter's case changed");
  });
});

describe("a near miss's shell form", () => {
  it("rebuilds the near miss from the token's variable, with sh, for every kind", async () => {
    const samples = [
      { prefix: "acct", token: "acct_ZlppaRFViM0MMOnpB8Yoi9MQIXKHaWnohLwpR6Ws" },
      { prefix: "t$x", token: 't$x_a`b\\c"d9' },
      { prefix: "acct", token: "acct_0000000000000000000000000000000000000001" },
    ];
    for (const { prefix, token } of samples) {
      for (const m of nearMisses(token, prefix)) {
        const { stdout } = await promisify(execFile)("sh", ["-c", `printf %s "${m.shell}"`], {
          env: { ...process.env, T: token },
        });
        expect(stdout, `${token}: ${m.what}`).toBe(m.value);
      }
    }
  });
});

describe("maskInPart", () => {
  it("keeps the prefix and three characters at each end, and says how many it hides", () => {
    expect(maskInPart("acct_ZlppaRFViM0MMOnpB8Yoi9MQIXKHaWnohLwpR6Ws", "acct")).toBe(
      "acct_Zlp…(34 hidden)…6Ws",
    );
    expect(maskInPart("ACCT_ZlppaRFViM0MMOnpB8Yoi9MQIXKHaWnohLwpR6Ws", "acct")).toMatch(/^ACCT_Zlp…/);
    expect(maskInPart("acct_short", "acct")).toBe("acct_•••••");
  });
});
