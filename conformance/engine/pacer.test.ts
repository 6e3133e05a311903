import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ManifestToken } from "../manifest-schema.js";
import { Pacer, RatePacer, defaultSafetyMargin, type PacerTimer } from "./pacer.js";
import { BurstReservation } from "./tokens.js";
import { nth, testManifest } from "../test-support/local.js";
import type { HttpExchange, HttpRequest } from "../types.js";

/** Time that moves only when the pacer sleeps or the test advances it. */
class FakeTimer implements PacerTimer {
  t = 1_000;
  sleeps: number[] = [];
  reasons: string[] = [];

  now(): number {
    return this.t;
  }

  sleep(ms: number, reason?: string): Promise<void> {
    this.sleeps.push(ms);
    if (reason !== undefined) this.reasons.push(reason);
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

/** testManifest() plus two tokens equivalent to a-full (same organization, same scopes). */
function manifestWithSpares() {
  const base = testManifest();
  const full = nth(base.tokens, 0);
  const spares: ManifestToken[] = [2, 3].map((n) => ({
    ...full,
    label: `a-full-${n}`,
    token: `tst_aFullSpare000${n}`,
  }));
  return { ...base, tokens: [...base.tokens, ...spares] };
}

const manifest = manifestWithSpares();
const token = (label: string): ManifestToken => {
  const found = manifest.tokens.find((t) => t.label === label);
  if (found === undefined) throw new Error(`no token ${label}`);
  return found;
};
const get = (auth: HttpRequest["auth"]): HttpRequest => ({ method: "GET", path: "/api/v1/contacts", auth });
const labelOf = (request: HttpRequest | undefined): string => {
  const auth = request?.auth;
  return auth === null || auth === undefined || "header" in auth ? "(none)" : auth.label;
};

function ratePacer(per: "token" | "organization" | "address", rateLimit = 10) {
  const timer = new FakeTimer();
  const pacer = new RatePacer({
    rateLimit,
    windowMs: 1000,
    per,
    manifest,
    timer,
    wallClock: () => Date.parse("2026-01-01"),
  });
  return { timer, pacer };
}

describe("RatePacer", () => {
  it("paces each token apart when the limit is per token", async () => {
    const { timer, pacer } = ratePacer("token");
    for (let i = 0; i < 9; i += 1) await pacer.acquire(get(token("a-contacts-read")));
    for (let i = 0; i < 9; i += 1) await pacer.acquire(get(token("b-full")));
    expect(timer.sleeps).toEqual([]);
    await pacer.acquire(get(token("a-contacts-read")));
    expect(timer.sleeps).toEqual([1000]);
    expect(pacer.total).toBe(19);
  });

  it("spreads a token's work round robin over the tokens of the same organization and scopes", async () => {
    const { timer, pacer } = ratePacer("token");
    const sent: string[] = [];
    for (let i = 0; i < 27; i += 1) sent.push(labelOf(await pacer.acquire(get(token("a-full")))));
    expect(sent.slice(0, 6)).toEqual(["a-full", "a-full-2", "a-full-3", "a-full", "a-full-2", "a-full-3"]);
    for (const label of ["a-full", "a-full-2", "a-full-3"])
      expect(sent.filter((l) => l === label)).toHaveLength(9);
    // Three tokens' allowance at once; b-full (another organization) and a-contacts-read never stand in.
    expect(timer.sleeps).toEqual([]);
    expect(labelOf(await pacer.acquire(get(token("b-full"))))).toBe("b-full");
    expect(labelOf(await pacer.acquire(get(token("a-contacts-read"))))).toBe("a-contacts-read");
  });

  it("counts requests without an active token in one shared budget, and a raw header naming a token in its budget too", async () => {
    const { pacer } = ratePacer("token");
    expect(pacer.budgets(get(null))).toEqual(["no active token"]);
    expect(pacer.budgets(get({ header: "Basic x" }))).toEqual(["no active token"]);
    expect(pacer.budgets(get(token("a-revoked")))).toEqual(["no active token"]);
    expect(pacer.budgets(get(token("a-expired")))).toEqual(["no active token"]);
    expect(pacer.budgets(get({ header: `bearer ${token("b-full").token}` }))).toEqual([
      "no active token",
      "token b-full",
    ]);
    // Exactly the header §5 shows (the preflight's): the token's budget alone.
    expect(pacer.budgets(get({ header: `Bearer ${token("b-full").token}` }))).toEqual(["token b-full"]);
  });

  it("counts the tokens of one organization together when the limit is per organization, and never swaps them", async () => {
    const { timer, pacer } = ratePacer("organization");
    for (let i = 0; i < 9; i += 1) {
      expect(labelOf(await pacer.acquire(get(token(i % 2 === 0 ? "a-full" : "a-contacts-read"))))).not.toBe(
        "a-full-2",
      );
    }
    await pacer.acquire(get(token("b-full")));
    expect(timer.sleeps).toEqual([]);
    await pacer.acquire(get(token("a-full-3")));
    expect(timer.sleeps).toEqual([1000]);
  });

  it("counts every request together when the limit is per address", async () => {
    const { timer, pacer } = ratePacer("address");
    for (const label of [
      "a-full",
      "b-full",
      "a-none",
      "a-full",
      "b-full",
      "a-full",
      "a-full",
      "b-full",
      "a-none",
    ]) {
      expect(labelOf(await pacer.acquire(get(token(label))))).toBe(label);
    }
    await pacer.acquire(get(null));
    expect(timer.sleeps).toEqual([1000]);
  });

  it("after a 429 to a paced request, holds only that request's budget and keeps the declared pace", async () => {
    const { timer, pacer } = ratePacer("token");
    for (let i = 0; i < 5; i += 1) await pacer.acquire(get(token("b-full")));
    const limited = await pacer.acquire(get(token("a-contacts-read")));
    pacer.limited(limited ?? get(null), 300, true);
    expect(pacer.per).toBe("token");
    // Other tokens go on at once; the limited one waits what the target asked.
    await pacer.acquire(get(token("b-full")));
    await pacer.acquire(get(null));
    expect(timer.sleeps).toEqual([]);
    await pacer.acquire(get(token("a-contacts-read")));
    expect(timer.sleeps).toEqual([300]);
    expect(timer.reasons).toEqual(["token a-contacts-read: held after a 429, as the target asked"]);
  });

  it("holds only the token's budget after a 429 to an unpaced request (the burst)", async () => {
    const { timer, pacer } = ratePacer("token");
    pacer.record(get(token("a-contacts-read")));
    pacer.limited(get(token("a-contacts-read")), 500, false);
    await pacer.acquire(get(token("b-full")));
    expect(timer.sleeps).toEqual([]);
    await pacer.acquire(get(token("a-contacts-read")));
    expect(timer.sleeps).toEqual([500]);
  });

  it("says which budget a pacing wait is for", async () => {
    const { timer, pacer } = ratePacer("token");
    for (let i = 0; i < 10; i += 1) await pacer.acquire(get(token("a-contacts-read")));
    expect(timer.reasons).toEqual(["pacing token a-contacts-read: 9 requests per 1 s"]);
  });

  it("never lets more than the allowance into any window of any budget, whatever tokens the requests carry", async () => {
    const labels = manifest.tokens.map((t) => t.label);
    const op = fc.oneof(
      fc.record({
        kind: fc.constant("acquire" as const),
        label: fc.option(fc.constantFrom(...labels), { nil: undefined }),
      }),
      fc.record({ kind: fc.constant("advance" as const), ms: fc.integer({ min: 0, max: 700 }) }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("token" as const, "organization" as const, "address" as const),
        fc.integer({ min: 1, max: 12 }),
        fc.array(op, { maxLength: 150 }),
        async (per, rateLimit, ops) => {
          const timer = new FakeTimer();
          const pacer = new RatePacer({
            rateLimit,
            windowMs: 1000,
            per,
            manifest,
            timer,
            wallClock: () => Date.parse("2026-01-01"),
          });
          const stamps = new Map<string, number[]>();
          for (const o of ops) {
            if (o.kind === "advance") {
              timer.t += o.ms;
              continue;
            }
            const sent = await pacer.acquire(get(o.label === undefined ? null : token(o.label)));
            for (const budget of pacer.budgets(sent)) {
              const list = stamps.get(budget) ?? [];
              list.push(timer.now());
              stamps.set(budget, list);
              expect(busiestWindow(list, 1000), budget).toBeLessThanOrEqual(pacer.allowance);
            }
          }
        },
      ),
      { numRuns: 200, seed: 20261122 },
    );
  });

  /** An answer to `request` with `status` and, when given, a RateLimit header saying `remaining`. */
  const answer = (request: HttpRequest, status: number, remaining?: number): HttpExchange => ({
    request,
    status,
    headers: remaining === undefined ? {} : { ratelimit: `"p";r=${remaining};t=1` },
    text: "",
    json: undefined,
    curl: "curl x",
  });

  it("widens its scope when the target counts more of the run than the declared budget holds, once the run has seen a window of its own", async () => {
    const { timer, pacer } = ratePacer("token");
    for (const label of ["a-full", "a-full-2", "a-full-3", "b-full"]) await pacer.acquire(get(token(label)));
    const last = (await pacer.acquire(get(token("a-contacts-read")))) ?? get(null);
    // Within the run's first window the target's count may hold an earlier run's requests: not read.
    pacer.observe(last, answer(last, 429));
    expect(pacer.scope).toEqual({ per: "token", source: "declared" });
    timer.t += 1100;
    for (const label of [
      "a-full",
      "a-full-2",
      "a-full-3",
      "b-full",
      "a-full",
      "a-full-2",
      "a-full-3",
      "b-full",
    ])
      await pacer.acquire(get(token(label)));
    const seen = (await pacer.acquire(get(token("a-contacts-read")))) ?? get(null);
    // The target counted 9 in a-contacts-read's budget: 1 is its own, 7 its organization's, 9 everybody's.
    pacer.observe(seen, answer(seen, 200, 1));
    expect(pacer.scope).toMatchObject({ per: "address", source: "observed" });
    expect(pacer.scope.why).toMatch(
      /remaining count of 1 .* a-contacts-read .* 1 requests of the run counted per token, 9 per address/,
    );
  });

  it("reads one or two more than it counted as the edge of a window, not as a wider scope", async () => {
    const { timer, pacer } = ratePacer("token");
    await pacer.acquire(get(token("b-full")));
    timer.t += 1100;
    for (let i = 0; i < 5; i += 1) await pacer.acquire(get(token("b-full")));
    const seen = (await pacer.acquire(get(token("a-full")))) ?? get(null);
    pacer.observe(seen, answer(seen, 200, 8));
    expect(pacer.per).toBe("token");
  });

  it("spreads no work onto the token kept for the burst while it is kept, and releases it when the target's headers count", async () => {
    const timer = new FakeTimer();
    const reservation = new BurstReservation(token("a-full-3"));
    const pacer = new RatePacer({
      rateLimit: 10,
      windowMs: 1000,
      per: "token",
      manifest,
      timer,
      wallClock: () => Date.parse("2026-01-01"),
      reservation,
    });
    const sent: string[] = [];
    for (let i = 0; i < 6; i += 1) sent.push(labelOf(await pacer.acquire(get(token("a-full")))));
    expect(sent).not.toContain("a-full-3");
    pacer.observe(get(null), answer(get(null), 401));
    expect(reservation.token?.label).toBe("a-full-3");
    pacer.observe(get(null), answer(get(null), 401, 9));
    expect(reservation).toMatchObject({ token: undefined, released: true });
    for (let i = 0; i < 3; i += 1) sent.push(labelOf(await pacer.acquire(get(token("a-full")))));
    expect(sent).toContain("a-full-3");
  });

  it("offers an equivalent token with room in place of one the target refused, and none when there is none", async () => {
    const { pacer } = ratePacer("token");
    const refused = (await pacer.acquire(get(token("a-full")))) ?? get(null);
    pacer.limited(refused, 500, true);
    expect(labelOf(pacer.instead(get(token("a-full")), refused))).not.toBe(labelOf(refused));
    expect(pacer.instead(get(token("a-contacts-read")), get(token("a-contacts-read")))).toBeUndefined();
  });
});
