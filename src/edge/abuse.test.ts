import type { Server } from "node:http";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ERROR_STATUS, type ErrorCode } from "../model/errors.js";
import { createServer, type ServerOptions } from "./server.js";
import type { Probe, ProbeClass, ProbeContext } from "../test-support/abuse/probe.js";
import { PROBES } from "../test-support/abuse/probes.js";
import { exchange, type RawResponse } from "../test-support/raw-http.js";
import { close, listen } from "../test-support/serve.js";
import { ErrorEnvelope, testReference, type TestReference } from "../test-support/reference.js";

/**
 * The abuse suite: hostile framing, JSON, queries, tokens and slow clients, as raw bytes over a
 * loopback socket, against the reference behind src/edge/server.ts. Whatever a probe sends, the answer
 * must come, must not be a 5xx, must be §7's envelope (or the `data` one, or an empty pre-flight),
 * and must carry the CORS headers; where DECISIONS.md decides the status, the probe names it. Bounded:
 * a fixed catalogue, one connection at a time, short timeouts for the slow clients.
 */

// The server's timeouts, shortened so that a slow-client probe waits a fraction of a second for what
// a real client meets after SERVER_DEFAULTS. Nothing here measures how long anything took.
const QUICK: ServerOptions = {
  headersTimeoutMs: 300,
  requestTimeoutMs: 600,
  timeoutCheckIntervalMs: 50,
  lingerMs: 500,
};

const SUCCESS = new Set([200, 201]);
const ERRORS = new Map<number, ErrorCode>(
  Object.entries(ERROR_STATUS).map(([code, status]) => [status, code as ErrorCode]),
);

/** What an engine or library says when it fails: DECISIONS.md #33 keeps it in the log. */
const ENGINE_TEXT = /Maximum call stack|TypeError|RangeError|Cannot read propert|is not a function|\.js:\d+/;
/** An error answer may name what was sent, but not grow with it past this beyond its size. */
const ERROR_OVERHEAD_BYTES = 4096;

/** The suite's rules for every answer, whatever was sent (`sent`: the request's bytes). */
function judge(res: RawResponse, where: string, sent: number, bodiless = false): void {
  const context = `${where}: ${res.status} ${res.body.slice(0, 200)}`;
  expect(res.status, context).toBeLessThan(500);
  expect(res.headers.get("access-control-allow-origin"), context).toEqual(["*"]);
  expect(res.headers.get("access-control-expose-headers"), context).toHaveLength(1);
  if (bodiless) {
    expect(res.headers.get("content-type")?.[0], context).toMatch(/^application\/json; charset=utf-8$/);
    return;
  }
  if (res.status === 204) {
    expect(res.body, context).toBe("");
    return;
  }
  expect(res.headers.get("content-type")?.[0], context).toMatch(/^application\/json; charset=utf-8$/);
  const body: unknown = JSON.parse(res.body);
  if (SUCCESS.has(res.status)) {
    expect(Object.keys(body as object), context).toEqual(["data"]);
    return;
  }
  const code = ERRORS.get(res.status);
  expect(code, `${context}: a status outside §7`).toBeDefined();
  const parsed = ErrorEnvelope.safeParse(body);
  expect(parsed.success, `${context}: not the §7 envelope`).toBe(true);
  expect(parsed.data?.error.code, context).toBe(code);
  expect(parsed.data?.error.message, context).not.toMatch(ENGINE_TEXT);
  expect(
    Buffer.byteLength(res.body),
    `${context}: an error answer larger than the request`,
  ).toBeLessThanOrEqual(sent + ERROR_OVERHEAD_BYTES);
}

let ref: TestReference;
let server: Server;
let port: number;
const logged: string[] = [];
let context: ProbeContext;

beforeAll(async () => {
  ref = await testReference({
    rateLimit: { limit: 100_000, windowMs: 60_000 },
    log: (line) => logged.push(line),
  });
  context = { token: ref.token("lumiere-full"), tokenOf: (label) => ref.token(label) };
  server = createServer(ref.app, QUICK);
  port = await listen(server);
});

afterAll(async () => {
  await close(server);
});

const classes = Object.entries(PROBES) as [ProbeClass, readonly Probe[]][];

describe.each(classes)("abuse: %s", (probeClass, probes) => {
  it.each(probes.map((probe) => [probe.name, probe] as const))("%s", async (_name, probe) => {
    const wanted = probe.responses ?? 1;
    const parts = probe.send(context);
    const sent = (Array.isArray(parts) ? parts : [parts]).reduce((n, part) => n + Buffer.byteLength(part), 0);
    const result = await exchange(port, parts, {
      responses: wanted,
      ...(probe.end === undefined ? {} : { end: probe.end }),
      ...(probe.bodiless === undefined ? {} : { bodiless: probe.bodiless }),
    });
    const where = `${probeClass} ${probe.name}`;
    expect(
      result.responses.length,
      `${where}: ${wanted} answers expected, received ${JSON.stringify(result.raw.slice(0, 300))}`,
    ).toBe(wanted);
    for (const res of result.responses) {
      if (res.status === 100) continue;
      judge(res, where, sent, probe.bodiless);
      if (probe.status !== undefined)
        expect(res.status, `${where}: ${res.body.slice(0, 200)}`).toBe(probe.status);
    }
  });
});

describe("abuse: afterwards", () => {
  it("logged no internal error", () => {
    expect(logged).toEqual([]);
  });

  it("still answers an honest request", async () => {
    const result = await exchange(
      port,
      `GET /api/v1/contacts?limit=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${context.token}\r\n\r\n`,
    );
    expect(result.responses.map((r) => r.status)).toEqual([200]);
  });
});

describe("abuse: memory under many unknown tokens", () => {
  // A full collection before each measure, so that what remains is what the server keeps.
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  const heap = () => {
    gc();
    gc();
    return process.memoryUsage().heapUsed;
  };

  let limited: TestReference;
  let limitedServer: Server;
  let limitedPort: number;
  beforeAll(async () => {
    limited = await testReference({ rateLimit: { limit: 50, windowMs: 60_000 } });
    // The server's own timeouts, not QUICK's: 100 pipelined requests of 4 KB on a busy machine can
    // outlast QUICK's 600 ms for a request, and these tests measure counting and memory, not timeouts.
    limitedServer = createServer(limited.app);
    limitedPort = await listen(limitedServer);
  });
  afterAll(async () => {
    await close(limitedServer);
  });

  /** `count` requests, each with a token never seen before, pipelined 100 to a connection. */
  async function unknownTokens(count: number, length: number, from: number): Promise<Map<number, number>> {
    const statuses = new Map<number, number>();
    for (let start = 0; start < count; start += 100) {
      const batch = Array.from({ length: Math.min(100, count - start) }, (_, i) => {
        const secret = String(from + start + i).padStart(length, "Q");
        return `GET /api/v1/contacts HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer acct_${secret}\r\n\r\n`;
      });
      const result = await exchange(limitedPort, batch.join(""), { responses: batch.length });
      expect(result.responses).toHaveLength(batch.length);
      for (const res of result.responses) {
        judge(res, "unknown token", 0);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      }
    }
    return statuses;
  }

  it("counts unknown tokens against one budget per address, not one per token", async () => {
    const statuses = await unknownTokens(200, 40, 0);
    expect(statuses.get(401)).toBe(50);
    expect(statuses.get(429)).toBe(150);
  });

  it("keeps nothing per unknown token: 3 000 tokens of 4 KB leave the heap within a quarter of them", async () => {
    await unknownTokens(300, 4096, 10_000);
    const before = heap();
    await unknownTokens(3000, 4096, 20_000);
    const grown = heap() - before;
    // 12 MB of tokens went by; a server that kept each would have grown by at least that much.
    expect(grown).toBeLessThan((3000 * 4096) / 4);
    expect(limited.tokens.list("org_lumiere").length).toBe(
      limited.manifest.tokens.filter((t) => t.organization === "org_lumiere").length,
    );
  });
});
