import { describe, expect, it } from "vitest";
import type { CheckResult, KitClock } from "../types.js";
import { PLAIN_EVERY_MS, RunProgress, watchedClock } from "./progress.js";

/** A clock that moves only when slept on. */
function virtualClock(): KitClock & { slept: number[] } {
  let t = 0;
  const slept: number[] = [];
  return {
    slept,
    now: () => t,
    sleep: (ms) => {
      slept.push(ms);
      t += ms;
      return Promise.resolve();
    },
  };
}

const done = (id: string, outcome: CheckResult["outcome"] = "pass"): CheckResult => ({
  id,
  section: "§4 Endpoints",
  clauses: [],
  level: "MUST",
  rule: "r",
  outcome,
  failsRun: outcome === "fail",
  durationMs: 0,
  requests: 0,
  observations: [],
});

function progress(terminal: boolean) {
  const clock = virtualClock();
  const out: string[] = [];
  const p = new RunProgress({ write: (t) => void out.push(t), terminal, columns: 80, clock });
  return { clock, out, p };
}

describe("the progress of a run", () => {
  it("in a CI log, says at once why a long wait begins and then says it at least every 10 s", async () => {
    const { clock, out, p } = progress(false);
    p.start(3);
    p.checkStarted("lists.model");
    p.requestSent();
    await p.wait(35_000, "the target answered 429 to GET /api/v1/contacts with lumiere-full (Retry-After)");
    expect(out).toEqual([
      "conformance: [0/3 checks] 1 request · waiting 35 s: the target answered 429 to GET /api/v1/contacts with lumiere-full (Retry-After)\n",
      "conformance: [0/3 checks] 1 request · waiting 25 s: the target answered 429 to GET /api/v1/contacts with lumiere-full (Retry-After)\n",
      "conformance: [0/3 checks] 1 request · waiting 15 s: the target answered 429 to GET /api/v1/contacts with lumiere-full (Retry-After)\n",
      "conformance: [0/3 checks] 1 request · waiting 5 s: the target answered 429 to GET /api/v1/contacts with lumiere-full (Retry-After)\n",
    ]);
    expect(clock.slept.reduce((a, b) => a + b, 0)).toBe(35_000);
    expect(Math.max(...clock.slept)).toBeLessThanOrEqual(PLAIN_EVERY_MS);
  });

  it("in a CI log, prints nothing for a quick run and a line once 10 s have passed between events", async () => {
    const { clock, out, p } = progress(false);
    p.start(2);
    p.checkStarted("a");
    await clock.sleep(4000);
    p.checkDone(done("a"));
    expect(out).toEqual([]);
    await clock.sleep(6000);
    p.requestSent();
    expect(out).toEqual(["conformance: [1/2 checks] 1 request\n"]);
    // A short wait is not announced; one of 5 s or more is, as it begins.
    await p.wait(3000, "pacing token a: 90 requests per 60 s");
    p.checkDone(done("b", "fail"));
    expect(out).toHaveLength(1);
    await p.wait(7000, "pacing token a: 90 requests per 60 s");
    expect(out.at(-1)).toBe(
      "conformance: [2/2 checks, 1 failed] 1 request · waiting 7 s: pacing token a: 90 requests per 60 s\n",
    );
  });

  it("on a terminal, rewrites one line in place with the wait counting down, and clears it at the end", async () => {
    const { out, p } = progress(true);
    p.start(120);
    p.checkStarted("contacts.invalid-bodies");
    await p.wait(2000, "pacing token lumiere-contacts-write: 90 requests per 60 s");
    expect(out).toEqual([
      "\r\x1b[2K[0/120 checks] 0 requests",
      "\r\x1b[2K[0/120 checks] 0 requests · contacts.invalid-bodies",
      "\r\x1b[2K[0/120 checks] 0 requests · waiting 2 s: pacing token lumiere-contacts-write: …",
      "\r\x1b[2K[0/120 checks] 0 requests · waiting 1 s: pacing token lumiere-contacts-write: …",
      "\r\x1b[2K[0/120 checks] 0 requests · waiting 0 s: pacing token lumiere-contacts-write: …",
    ]);
    expect(out.every((l) => l.length - "\r\x1b[2K".length <= 80)).toBe(true);
    p.finish();
    expect(out.at(-1)).toBe("\r\x1b[2K");
  });

  it("hears every wait of the run through the watched clock, with its reason or the running check's", async () => {
    const { clock, out, p } = progress(false);
    let current: string | undefined = "ratelimit.retry-after";
    const watched = watchedClock(clock, p, () => current);
    await watched.sleep(12_000);
    expect(out[0]).toContain("waiting 12 s: ratelimit.retry-after waits");
    current = undefined;
    await watched.sleep(6000, "pacing token a: 9 requests per 1 s");
    expect(out.at(-1)).toContain("waiting 6 s: pacing token a: 9 requests per 1 s");
    expect(clock.now()).toBe(18_000);
  });
});
