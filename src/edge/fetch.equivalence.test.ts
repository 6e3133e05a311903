import type { Server } from "node:http";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ManualClock } from "../model/clock.js";
import { close, listen } from "../test-support/raw-http.js";
import {
  checkProperty,
  FC_SEED,
  TEST_NOW,
  testReference,
  type TestReference,
} from "../test-support/reference.js";
import { createServer } from "./server.js";

/**
 * The promise of reference.fetch (issue 19): for any sequence of requests, what a client sees through
 * it is what it sees over HTTP, and the reference counts it the same way. Two references are built
 * alike (same fixtures, same clock, same ids, a low rate limit so that 429s come); each random
 * sequence goes to one over HTTP on loopback with Node's fetch, and to the other through
 * reference.fetch. Every answer is compared (status, headers, bytes, or the network error), then the
 * journals and every fixture token's usage.
 */

const KEY = "ctl_equivalence-0123456789";
const RATE_LIMIT = 4;

// --- what a sequence is made of ----------------------------------------------------------------------

interface Step {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | undefined;
}

const LABELS = [
  "lumiere-full",
  "lumiere-full-2",
  "boreal-full",
  "lumiere-contacts-read",
  "lumiere-contacts-write",
  "lumiere-products-write",
  "lumiere-no-scope",
  "lumiere-revoked",
  "lumiere-expired",
  "lumiere-expiring",
  "petitpas-full",
] as const;

type Credential =
  | { kind: "label"; label: (typeof LABELS)[number] }
  | { kind: "raw"; value: string }
  | { kind: "none" };

const credential: fc.Arbitrary<Credential> = fc.oneof(
  // One token more often than the others, so that its rate limit runs out within a sequence.
  { weight: 4, arbitrary: fc.constant({ kind: "label" as const, label: "lumiere-full" as const }) },
  { weight: 4, arbitrary: fc.constantFrom(...LABELS).map((label) => ({ kind: "label" as const, label })) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(
        "Bearer acct_0000000000000000000000000000000000000000",
        "Bearer short",
        "Basic dXNlcjpwYXNz",
        "Bearer a, Bearer b",
        `Bearer ${KEY}`,
      )
      .map((value) => ({ kind: "raw" as const, value })),
  },
  { weight: 1, arbitrary: fc.constant({ kind: "none" as const }) },
);

const LIST_PATHS = ["/api/v1/contacts", "/api/v1/products", "/api/v1/invoices", "/api/v1/expenses"];
const OTHER_PATHS = ["/api/v1/nowhere", "/api/v1/contacts/", "/API/v1/contacts", "/api/v2/contacts"];

const query = fc
  .record(
    {
      limit: fc.constantFrom("1", "2", "50", "200", "0", "201", "abc", "050"),
      type: fc.constantFrom("CLIENT", "SUPPLIER", "BOTH", "client"),
      status: fc.constantFrom("PAID", "DRAFT", "OVERDUE", "nope"),
      before: fc.constantFrom("2026-10-30", "2026-10-30T00:00:00.000Z", "2026-10-30T12:00", "yesterday"),
    },
    { requiredKeys: [] },
  )
  .map((q) => {
    const search = new URLSearchParams(q as Record<string, string>).toString();
    return search === "" ? "" : `?${search}`;
  });

interface Body {
  contentType: string | undefined;
  text: string;
}

const contactBody: fc.Arbitrary<Body> = fc.oneof(
  fc.constantFrom("CLIENT", "SUPPLIER", "BOTH").map((type) => ({
    contentType: "application/json",
    text: JSON.stringify({ type, name: `Contact ${type}` }),
  })),
  fc.constantFrom(
    { contentType: "application/json", text: JSON.stringify({ type: "CLIENT", name: "x".repeat(201) }) },
    { contentType: "application/json", text: JSON.stringify({ type: "CLIENT", name: "A", emial: "a@b" }) },
    { contentType: "application/json", text: '{"type":"CLIENT",' },
    { contentType: "text/plain", text: JSON.stringify({ type: "CLIENT", name: "A" }) },
    { contentType: undefined, text: JSON.stringify({ type: "CLIENT", name: "A" }) },
    { contentType: "application/json", text: "" },
    { contentType: "application/json", text: "[]" },
  ),
);

const productBody: fc.Arbitrary<Body> = fc.oneof(
  // Three skus only, so that duplicates (400, §4) come up.
  fc
    .record({
      sku: fc.constantFrom("SKU-A", "SKU-B", "SKU-C"),
      price: fc.constantFrom("0", "12.5", "1.2345"),
    })
    .map(({ sku, price }) => ({
      contentType: "application/json",
      text: `{"sku":"${sku}","name":"Product ${sku}","unitPrice":${price}}`,
    })),
  fc.constantFrom(
    { contentType: "application/json", text: '{"sku":"SKU-X","name":"P","unitPrice":1.23456}' },
    { contentType: "application/json", text: '{"sku":"SKU-X","name":"P","unitPrice":"12"}' },
    { contentType: "application/json", text: '{"sku":"SKU-X","name":"P","unitPrice":-1}' },
  ),
);

const withBody = (headers: Record<string, string>, body: Body): Pick<Step, "headers" | "body"> => ({
  headers: body.contentType === undefined ? headers : { ...headers, "Content-Type": body.contentType },
  body: body.text,
});

const apiStep: fc.Arbitrary<{ step: Step; credential: Credential }> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .record({ path: fc.constantFrom(...LIST_PATHS), query, credential })
      .map(({ path, query: q, credential: c }) => ({
        step: { method: "GET", path: `${path}${q}`, headers: {} },
        credential: c,
      })),
  },
  {
    weight: 2,
    arbitrary: fc.record({ body: contactBody, credential }).map(({ body, credential: c }) => ({
      step: { method: "POST", path: "/api/v1/contacts", ...withBody({}, body) },
      credential: c,
    })),
  },
  {
    weight: 2,
    arbitrary: fc.record({ body: productBody, credential }).map(({ body, credential: c }) => ({
      step: { method: "POST", path: "/api/v1/products", ...withBody({}, body) },
      credential: c,
    })),
  },
  {
    weight: 1,
    arbitrary: fc
      .record({
        method: fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"),
        path: fc.constantFrom(...OTHER_PATHS, "/api/v1/invoices", "/api/v1/expenses", "/api/v1/contacts"),
        credential,
      })
      .map(({ method, path, credential: c }) => ({ step: { method, path, headers: {} }, credential: c })),
  },
);

const authorize = ({ step, credential: c }: { step: Step; credential: Credential }, ref: TestReference) => {
  if (c.kind === "none") return step;
  const value = c.kind === "raw" ? c.value : `Bearer ${ref.token(c.label)}`;
  return { ...step, headers: { ...step.headers, Authorization: value } };
};

const preflight: fc.Arbitrary<Step> = fc
  .record({
    path: fc.constantFrom(...LIST_PATHS, ...OTHER_PATHS),
    method: fc.constantFrom("GET", "POST", "DELETE"),
    headers: fc.constantFrom("authorization", "authorization,content-type", "x-custom"),
  })
  .map(({ path, method, headers }) => ({
    method: "OPTIONS",
    path,
    headers: {
      Origin: "http://localhost:5173",
      "Access-Control-Request-Method": method,
      "Access-Control-Request-Headers": headers,
    },
  }));

/** Every kind of fault of the control surface: a status, a 429 with Retry-After, a delay, a drop. */
const fault = fc
  .record({
    match: fc.constantFrom(
      {},
      { path: "/api/v1/contacts" },
      { method: "GET" },
      { method: "POST", path: "/api/v1/products" },
      { token: "lumiere-full" },
      { organization: "org_boreal" },
    ),
    times: fc.integer({ min: 1, max: 3 }),
  })
  .map(({ match, times }) => ({ ...match, times }))
  .chain((match) =>
    fc.oneof(
      fc.constantFrom(400, 401, 403, 404, 500).map((status) => ({ ...match, status })),
      fc.integer({ min: 0, max: 30 }).map((retryAfter) => ({ ...match, code: "rate_limited", retryAfter })),
      fc.integer({ min: 1, max: 15 }).map((delayMs) => ({ ...match, delayMs })),
      fc.constant({ ...match, drop: true }),
    ),
  );

const control = (method: string, path: string, body?: object): Step => ({
  method,
  path: `/__control${path}`,
  headers: {
    Authorization: `Bearer ${KEY}`,
    ...(body === undefined ? {} : { "Content-Type": "application/json" }),
  },
  body: body === undefined ? undefined : JSON.stringify(body),
});

const controlStep: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fault.map((f) => control("POST", "/faults", f)) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom({}, { organization: "org_lumiere" }, { organization: "nowhere" })
      .map((b) => control("POST", "/reset", b)),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom({ advance: "PT61S" }, { advance: "P1D" }, { frozen: true }, { advance: "soon" })
      .map((b) => control("PUT", "/clock", b)),
  },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom("", "?limit=3", "?path=/api/v1/contacts", "?status=429", "?limit=0")
      .map((q) => control("GET", `/journal${q}`)),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      control("GET", "/"),
      control("GET", "/faults"),
      control("DELETE", "/faults"),
      control("DELETE", "/journal"),
      control("GET", "/clock"),
      { ...control("GET", "/faults"), headers: { Authorization: "Bearer not-the-key" } },
    ),
  },
);

type Planned = { kind: "api"; api: { step: Step; credential: Credential } } | { kind: "plain"; step: Step };

const sequence: fc.Arbitrary<Planned[]> = fc.array(
  fc.oneof(
    { weight: 6, arbitrary: apiStep.map((api) => ({ kind: "api" as const, api })) },
    { weight: 1, arbitrary: preflight.map((step) => ({ kind: "plain" as const, step })) },
    { weight: 3, arbitrary: controlStep.map((step) => ({ kind: "plain" as const, step })) },
  ),
  { minLength: 1, maxLength: 40, size: "medium" },
);

// --- what is compared --------------------------------------------------------------------------------

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
      controlKey: KEY,
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
