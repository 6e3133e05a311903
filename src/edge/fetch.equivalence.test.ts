import type { Server } from "node:http";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ManualClock } from "../model/clock.js";
import { close, listen } from "../test-support/serve.js";
import {
  checkProperty,
  FC_SEED,
  TEST_NOW,
  testReference,
  type TestReference,
} from "../test-support/reference.js";
import { TRAFFIC_CONTROL_KEY, authorize, sequence, type Step } from "../test-support/traffic.js";
import { createServer } from "./server.js";

/**
 * The promise of reference.fetch (issue 19): for any sequence of requests, what a client sees through
 * it is what it sees over HTTP, and the reference counts it the same way. Two references are built
 * alike (same fixtures, same clock, same ids, a low rate limit so that 429s come); each random
 * sequence goes to one over HTTP on loopback with Node's fetch, and to the other through
 * reference.fetch. Every answer is compared (status, headers, bytes, or the network error), then the
 * journals and every fixture token's usage.
 */

const RATE_LIMIT = 4;

/** Headers that a connection writes, not the app: present on both sides, compared by their own rule. */
const BY_RULE = ["date", "connection", "keep-alive"];
const IMF_FIXDATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;

type Outcome =
  | {
      kind: "answer";
      status: number;
      statusText: string;
      headers: [string, string][];
      byRule: Record<string, string | null>;
      body: string;
    }
  | { kind: "network error"; name: string; message: string };

/** Real durations differ between any two runs: a control answer's `durationMs` is compared as a number. */
const timeless = (key: string, value: unknown): unknown =>
  key === "durationMs" && typeof value === "number" && value >= 0 ? "<ms>" : value;

async function outcomeOf(answer: Promise<Response>, path: string): Promise<Outcome> {
  let res: Response;
  try {
    res = await answer;
  } catch (err) {
    const e = err as Error;
    return { kind: "network error", name: e.name, message: e.message };
  }
  const raw = await res.text();
  let headers = [...res.headers].filter(([name]) => !BY_RULE.includes(name));
  let body = raw;
  if (path.startsWith("/__control") && raw !== "") {
    body = JSON.stringify(JSON.parse(raw), timeless);
    // The length follows the real durations: it must be the body's own, whatever it is.
    expect(res.headers.get("content-length")).toBe(String(Buffer.byteLength(raw)));
    headers = headers.map(([name, value]) => [name, name === "content-length" ? "<its body's>" : value]);
  }
  const byRule: Record<string, string | null> = {};
  for (const name of BY_RULE) byRule[name] = res.headers.get(name);
  return { kind: "answer", status: res.status, statusText: res.statusText, headers, byRule, body };
}

/** The rule for the headers only a connection has; returns them with the date made comparable. */
function checkByRule(overHttp: Outcome, inProcess: Outcome, step: Step, label: string): void {
  if (overHttp.kind !== "answer" || inProcess.kind !== "answer") return;
  for (const side of [overHttp, inProcess]) {
    const { date } = side.byRule;
    // An IMF-fixdate: the API's is its state's clock, the same on both sides (their clocks move alike);
    // the other doors' is Node's, each side's own real time, compared as "now".
    expect(date, `${label}: Date`).toMatch(IMF_FIXDATE);
    if (Math.abs(Date.parse(date ?? "") - Date.now()) < 60_000) side.byRule.date = "<now>";
  }
  // Node writes Connection and Keep-Alive by one rule on both sides: the client's choice, unless the
  // server closes after a refusal. Node's fetch asks to close after a HEAD (undici does not reuse
  // such a connection); reference.fetch keeps its connection in memory alive as for any method.
  if (step.method === "HEAD" && overHttp.byRule.connection === "close") {
    expect(overHttp.byRule["keep-alive"], label).toBeNull();
    expect(inProcess.byRule, label).toEqual({
      date: overHttp.byRule.date,
      connection: "keep-alive",
      "keep-alive": "timeout=5",
    });
    inProcess.byRule = overHttp.byRule;
  }
  expect(inProcess.byRule, label).toEqual(overHttp.byRule);
}

interface Pair {
  http: TestReference;
  inProcess: TestReference;
  base: string;
  server: Server;
}

async function pair(): Promise<Pair> {
  const build = () => {
    let n = 0;
    return testReference({
      clock: new ManualClock(TEST_NOW),
      controlKey: TRAFFIC_CONTROL_KEY,
      rateLimit: { limit: RATE_LIMIT, windowMs: 60_000 },
      ids: (prefix) => `${prefix}_${String(++n).padStart(16, "0")}`,
    });
  };
  const [http, inProcess] = await Promise.all([build(), build()]);
  const server = createServer(http.app);
  const port = await listen(server);
  return { http, inProcess, base: `http://127.0.0.1:${port}`, server };
}

const init = (step: Step): RequestInit => ({ method: step.method, headers: step.headers, body: step.body });

/** What the state counted: the journal (real durations aside) and every fixture token's usage. */
function counted(ref: TestReference) {
  return {
    journal: ref.control.journal().map((entry) => ({ ...entry, durationMs: typeof entry.durationMs })),
    usage: ref.manifest.tokens.map((t) => {
      const view = ref.tokens.get(ref.tokenId(t.label));
      return [t.label, view?.requestCount, view?.lastUsedAt?.toISOString() ?? null, view?.status];
    }),
  };
}

describe("reference.fetch and HTTP", () => {
  it(`answer and count every random sequence alike (FC_SEED=${FC_SEED})`, { timeout: 120_000 }, async () => {
    const seen = { answers: 0, networkErrors: 0, statuses: new Set<number>() };
    await checkProperty(
      fc.asyncProperty(sequence, async (planned) => {
        const { http, inProcess, base, server } = await pair();
        try {
          for (const [i, item] of planned.entries()) {
            // The same fixture token has the same clear value in both references.
            const step = item.kind === "api" ? authorize(item.api, http) : item.step;
            const label = `step ${i}: ${step.method} ${step.path}`;
            const overHttp = await outcomeOf(fetch(`${base}${step.path}`, init(step)), step.path);
            const inProc = await outcomeOf(inProcess.fetch(`${base}${step.path}`, init(step)), step.path);
            checkByRule(overHttp, inProc, step, label);
            expect(inProc, label).toEqual(overHttp);
            if (overHttp.kind === "answer") seen.statuses.add(overHttp.status);
            else seen.networkErrors += 1;
            seen.answers += 1;
          }
          // A dropped request is journaled when its connection closes, which may follow the rejection.
          await expect.poll(() => counted(inProcess).journal.length).toBe(counted(http).journal.length);
          expect(counted(inProcess)).toEqual(counted(http));
        } finally {
          await close(server);
        }
      }),
      40,
    );
    // The sequences reached what the issue names: errors of every code, 429s, pre-flights, drops.
    expect([...seen.statuses].sort()).toEqual(
      expect.arrayContaining([200, 201, 204, 400, 401, 403, 404, 429, 500]),
    );
    expect(seen.networkErrors).toBeGreaterThan(0);
  });
});
