/**
 * `npm run bench:inprocess`: a list read as a component test makes it, one at a time, through
 * `reference.fetch`, through msw's `setupServer` with the reference's handlers, and with `fetch` over
 * HTTP on loopback: to the same reference served in this process, and to the built server in a child
 * process (`node dist/bundle/bin.js`); and msw with a handler answering fixed bytes, which is msw's own
 * cost whatever answers behind it (with a predicate, as the reference's handlers match, and with a
 * path, as most hand-written handlers do); and a read through `reference.fetch` followed by msw's
 * fixed answer, which shows what the two cost when they alternate. Each round runs every target in
 * turn, so that noise from other work on the machine falls on all of them alike; the figures are
 * medians over rounds, the ratios medians of the per-round ratios. Goals: in process at least twice
 * as fast as HTTP (issue 19); through the msw handlers at most 1.5× `reference.fetch` (issue 28).
 *
 * Not in CI: timings are noisy. Usage: npm run bench:inprocess [-- --rounds 5 --reads 2000 --limit 50]
 * (`--limit`: the page's size, 1 to 200; the default page, 24 contacts, without it)
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { cpus } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { http } from "msw";
import { setupServer } from "msw/node";
import { createReference } from "../src/entry/reference.js";
import { referenceHandlers } from "../src/clients/msw.js";
import { createServer } from "../src/edge/server.js";
import { ControlClient } from "../src/clients/control.js";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "5" },
    reads: { type: "string", default: "2000" },
    limit: { type: "string" },
  },
});
const ROUNDS = Number(values.rounds);
const READS = Number(values.reads);
const PATH = `/api/v1/contacts${values.limit === undefined ? "" : `?limit=${values.limit}`}`;
const ROOT = join(import.meta.dirname, "..");

const reference = await createReference({ rateLimit: { limit: 1e9, windowMs: 60_000 }, log: () => {} });
const token = reference.manifest.tokens.find((t) => t.label === "lumiere-full")?.token ?? "";
const headers = { Authorization: `Bearer ${token}` };

const server = createServer(reference.app).listen(0, "127.0.0.1");
await once(server, "listening");
const local = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

// The built server, as `npm start` runs it, in a process of its own.
const CONTROL_KEY = "bench-control-key-0123456789";
const child = spawn(
  process.execPath,
  [
    join(ROOT, "dist", "bundle", "bin.js"),
    ...["--port", "0", "--quiet", "--rate-limit", "1000000000", "--control-key", CONTROL_KEY],
  ],
  { stdio: ["ignore", "pipe", "inherit"] },
);
// Whatever ends this process (a refusal before the runs, an error) ends the child too.
process.once("exit", () => child.kill("SIGTERM"));
let remote = "";
for await (const line of createInterface({ input: child.stdout })) {
  remote = /(http:\/\/\S+)/.exec(line)?.[1] ?? "";
  if (remote !== "") break;
}
if (remote === "") throw new Error("the server in the child process printed no URL");

// A page larger than the fixtures' 24 contacts: the same contacts added to both references.
const extra = Math.max(0, Number(values.limit ?? 0) - 24);
if (extra > 0) {
  const contacts = Array.from({ length: extra }, (_, i) => ({
    id: `con_bench${String(i).padStart(11, "0")}`,
    organizationId: "org_lumiere",
    type: "CLIENT" as const,
    name: `Bench contact ${i}`,
    email: `bench${i}@example.com`,
    phone: null,
    address: "1 rue du Banc, Montréal QC",
    taxNumberTPS: null,
    taxNumberTVQ: null,
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
  }));
  reference.control.addRecords({ contacts });
  await new ControlClient({ baseUrl: remote, key: CONTROL_KEY }).addRecords({ contacts });
}

// msw intercepts this origin only; the HTTP targets are elsewhere and msw is closed while they run.
const MOCKED = "http://localhost:4010";
const msw = setupServer(...referenceHandlers(reference, MOCKED));
// msw's own cost: a handler answering fixed bytes, the reference's answer captured once.
const captured = await reference.fetch(`${MOCKED}${PATH}`, { headers });
const fixed = { status: captured.status, headers: [...captured.headers], body: await captured.arrayBuffer() };
const fixedResponse = () => new Response(fixed.body, { status: fixed.status, headers: fixed.headers });
const STATIC = "http://localhost:4011";
const mswStatic = setupServer(http.get(`${STATIC}/api/v1/contacts`, fixedResponse));
const MATCHED = "http://localhost:4012";
const mswMatched = setupServer(
  http.all(({ request }) => request.url.startsWith(`${MATCHED}/`), fixedResponse),
);

interface Target {
  name: string;
  before?: () => void;
  after?: () => void;
  read: () => Promise<Response>;
}

const targets: Target[] = [
  { name: "HTTP, server in a child process", read: () => fetch(`${remote}${PATH}`, { headers }) },
  { name: "HTTP, server in this process", read: () => fetch(`${local}${PATH}`, { headers }) },
  { name: "reference.fetch", read: () => reference.fetch(`${MOCKED}${PATH}`, { headers }) },
  {
    name: "msw setupServer + fetch",
    before: () => msw.listen({ onUnhandledRequest: "error" }),
    after: () => msw.close(),
    read: () => fetch(`${MOCKED}${PATH}`, { headers }),
  },
  {
    name: "msw setupServer, fixed answer, path",
    before: () => mswStatic.listen({ onUnhandledRequest: "error" }),
    after: () => mswStatic.close(),
    read: () => fetch(`${STATIC}${PATH}`, { headers }),
  },
  {
    name: "msw setupServer, fixed answer, predicate",
    before: () => mswMatched.listen({ onUnhandledRequest: "error" }),
    after: () => mswMatched.close(),
    read: () => fetch(`${MATCHED}${PATH}`, { headers }),
  },
  {
    // The two rows above one after the other, in the same process: what msw's path and the
    // reference's cost when they alternate, as they do in every read through the handlers.
    name: "reference.fetch, then the fixed answer",
    before: () => mswMatched.listen({ onUnhandledRequest: "error" }),
    after: () => mswMatched.close(),
    read: async () => {
      await (await reference.fetch(`${MOCKED}${PATH}`, { headers })).arrayBuffer();
      return fetch(`${MATCHED}${PATH}`, { headers });
    },
  },
];

interface Measure {
  wallUs: number;
  cpuUs: number;
}

async function run(target: Target, reads: number): Promise<Measure> {
  target.before?.();
  try {
    const cpu = process.cpuUsage();
    const started = process.hrtime.bigint();
    for (let i = 0; i < reads; i += 1) {
      const res = await target.read();
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${target.name}: status ${res.status}`);
    }
    const wallUs = Number(process.hrtime.bigint() - started) / 1000 / reads;
    const used = process.cpuUsage(cpu);
    return { wallUs, cpuUs: (used.user + used.system) / reads };
  } finally {
    target.after?.();
  }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] ?? NaN) : ((s[mid - 1] ?? NaN) + (s[mid] ?? NaN)) / 2;
};

try {
  // Every target answers the same bytes before anything is timed.
  const bodies = new Set<string>();
  for (const target of targets) {
    target.before?.();
    bodies.add(await (await target.read()).text());
    target.after?.();
  }
  if (bodies.size !== 1) throw new Error("the targets answered different bodies");

  console.log(
    `${cpus().length} × ${cpus()[0]?.model ?? "?"}, Node ${process.version}; ` +
      `GET ${PATH} (lumiere-full, ${JSON.parse([...bodies][0] ?? "{}").data.length} contacts), ` +
      `one read at a time; ${ROUNDS} rounds × ${READS} reads per target after a warm-up round\n`,
  );
  const results = new Map<string, Measure[]>(targets.map((t) => [t.name, []]));
  for (let round = 0; round <= ROUNDS; round += 1) {
    for (const target of targets) {
      const measure = await run(target, round === 0 ? Math.min(READS, 500) : READS);
      if (round > 0) results.get(target.name)?.push(measure);
    }
  }
  const httpLocal = results.get("HTTP, server in this process") ?? [];
  const httpRemote = results.get("HTTP, server in a child process") ?? [];
  const inProcess = results.get("reference.fetch") ?? [];
  const rows = targets.map((t) => {
    const ms = results.get(t.name) ?? [];
    const wall = median(ms.map((m) => m.wallUs));
    const ratio = (http: Measure[]) =>
      median(ms.map((m, i) => (http[i]?.wallUs ?? NaN) / m.wallUs)).toFixed(2);
    const times = (of: Measure[], measure: (m: Measure) => number) =>
      median(ms.map((m, i) => measure(m) / measure(of[i] ?? { wallUs: NaN, cpuUs: NaN }))).toFixed(2);
    return [
      t.name,
      wall.toFixed(0),
      Math.round(1e6 / wall).toLocaleString("en-US"),
      median(ms.map((m) => m.cpuUs)).toFixed(0),
      `${ratio(httpLocal)}×`,
      `${ratio(httpRemote)}×`,
      `${times(inProcess, (m) => m.wallUs)}× / ${times(inProcess, (m) => m.cpuUs)}×`,
    ];
  });
  const head = [
    "target",
    "µs/read",
    "reads/s",
    "CPU µs/read (this process)",
    "vs HTTP here",
    "vs HTTP child",
    "÷ reference.fetch (time / CPU)",
  ];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  for (const row of [head, ...rows]) console.log(row.map((c, i) => c.padEnd(widths[i] ?? 0)).join("  "));
} finally {
  msw.close();
  mswStatic.close();
  mswMatched.close();
  server.close();
  child.kill("SIGTERM");
}
