import { describe, expect } from "vitest";
import type { TestReference, TestReferenceOptions } from "../test-support/reference.js";
import { CONTROL_TABLE, SHORTHANDS } from "../doors/control/table.js";
import { ControlClient, ControlError, ReferenceUnreachableError } from "./control.js";
import { CONTROL_KEY, controlledReference } from "../test-support/control.js";
import { freePort, serverTest, type ServeBare } from "../test-support/serve.js";

// The typed client against a real listening server: what a Playwright fixture does.

const it = serverTest;

async function serve(serveBare: ServeBare, options: TestReferenceOptions = {}) {
  const ref = await controlledReference(options);
  const baseUrl = `http://127.0.0.1:${await serveBare(ref.app)}`;
  return { ref, baseUrl, control: new ControlClient({ baseUrl, key: CONTROL_KEY }) };
}

const contacts = (baseUrl: string, ref: TestReference) =>
  fetch(`${baseUrl}/api/v1/contacts?limit=1`, { headers: ref.auth("lumiere-full") });

describe("ControlClient", () => {
  it("resets, moves the clock, arms faults and reads the journal", async ({ serveBare }) => {
    const { ref, baseUrl, control } = await serve(serveBare);
    expect((await control.describe()).operations.length).toBeGreaterThan(5);
    expect(await control.advanceClock("PT1H")).toMatchObject({ now: "2026-11-20T13:00:00.000Z" });
    await control.addFault({ path: "/api/v1/contacts", status: 500 });
    expect(await control.faults()).toHaveLength(1);
    expect((await contacts(baseUrl, ref)).status).toBe(500);
    expect((await contacts(baseUrl, ref)).status).toBe(200);
    expect((await control.journal({ status: 500 })).map((e) => e.fault)).toEqual(["fault_1"]);
    expect(await control.reset()).toMatchObject({ organizations: expect.arrayContaining(["org_lumiere"]) });
    expect(await control.journal()).toEqual([]);
    expect(await control.restoreClock()).toMatchObject({ now: "2026-11-20T12:00:00.000Z" });
  });

  it("throws a ControlError with the status, code and details of a refusal", async ({ serveBare }) => {
    const { control } = await serve(serveBare);
    const error = await control.setClock({ advance: "soon" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ControlError);
    expect(error).toMatchObject({
      status: 400,
      code: "invalid_request",
      details: { advance: [expect.any(String)] },
    });
    const wrongKey = new ControlClient({
      baseUrl: (await serve(serveBare)).baseUrl,
      key: "not-the-key-at-all",
    });
    await expect(wrongKey.clock()).rejects.toMatchObject({ status: 401, code: "unauthorized" });
  });
});

describe("latency and dropped connections, seen from a real client", () => {
  it("a delay fault holds the answer back at least that long, then serves it", async ({ serveBare }) => {
    const { ref, baseUrl, control } = await serve(serveBare);
    await control.addFault({ delayMs: 300 });
    const started = performance.now();
    const res = await contacts(baseUrl, ref);
    // A lower bound only: a busy machine can make it slower, never faster.
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(res.status).toBe(200);
    expect((await control.journal())[0]?.durationMs).toBeGreaterThanOrEqual(290);
  });

  it("a drop fault closes the connection without an answer, once", async ({ serveBare }) => {
    const { ref, baseUrl, control } = await serve(serveBare);
    await control.addFault({ drop: true, path: "/api/v1/contacts" });
    await expect(contacts(baseUrl, ref)).rejects.toThrow(TypeError);
    expect((await contacts(baseUrl, ref)).status).toBe(200);
    const [ok, dropped] = await control.journal();
    expect(ok?.status).toBe(200);
    expect(dropped).toMatchObject({ status: null, fault: "fault_1" });
  });

  it("--latency delays every API answer within its range", async ({ serveBare }) => {
    const { ref, baseUrl, control } = await serve(serveBare, { latency: { minMs: 150, maxMs: 200 } });
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      expect((await contacts(baseUrl, ref)).status).toBe(200);
      expect(performance.now() - started).toBeGreaterThanOrEqual(145);
    }
    expect((await control.describe()).latency).toEqual({ minMs: 150, maxMs: 200 });
  });
});

/** Every method of `o`, its prototypes' included, but Object's own. */
function methodsOf(o: object): string[] {
  const names = new Set<string>();
  for (let p: object | null = Object.getPrototypeOf(o) as object; p !== Object.prototype && p !== null; ) {
    for (const name of Object.getOwnPropertyNames(p)) {
      const d = Object.getOwnPropertyDescriptor(p, name);
      if (name !== "constructor" && typeof d?.value === "function") names.add(name);
    }
    p = Object.getPrototypeOf(p) as object | null;
  }
  return [...names].sort();
}

describe("one vocabulary in process and over HTTP", () => {
  it("the HTTP client and reference.control have the table's operations, under the same names", async ({
    serveBare,
  }) => {
    const { ref, control } = await serve(serveBare);
    const sandbox = await control.createSandbox();
    const inProcess = ref.control.createSandbox();
    const rows = [...Object.keys(CONTROL_TABLE), ...Object.keys(SHORTHANDS)];
    const state = Object.entries(CONTROL_TABLE).flatMap(([name, op]) => (op.on === "state" ? [name] : []));
    const stateMethods = [...state, ...Object.keys(SHORTHANDS)].sort();
    // What each adds of its own: sending a request over HTTP; finding its state, waiting for --data in process.
    expect(methodsOf(control)).toEqual([...rows, "call"].sort());
    expect(methodsOf(ref.control)).toEqual([...rows, "durable", "scope"].sort());
    expect(methodsOf(sandbox)).toEqual([...stateMethods, "call", "delete"].sort());
    expect(methodsOf(inProcess)).toEqual([...stateMethods, "delete", "durable", "scope"].sort());
  });

  it("advanceClock moves the clock in process as over HTTP", async ({ serveBare }) => {
    const { ref, control } = await serve(serveBare);
    expect(ref.control.advanceClock("PT1H")).toMatchObject({ now: "2026-11-20T13:00:00.000Z" });
    expect(await control.advanceClock("PT1H")).toMatchObject({ now: "2026-11-20T14:00:00.000Z" });
    const sandbox = ref.control.createSandbox();
    expect(sandbox.advanceClock("P1D")).toMatchObject({ now: "2026-11-21T12:00:00.000Z" });
    expect(() => sandbox.advanceClock("soon")).toThrow(/advance: must be an ISO 8601 duration/);
  });
});

describe("when the reference cannot be reached, or is not what answers", () => {
  it("says the reference at the URL could not be reached, and why", async () => {
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const error = await new ControlClient({ baseUrl, key: CONTROL_KEY }).reset().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReferenceUnreachableError);
    expect((error as Error).message).toBe(
      `could not reach the reference at ${baseUrl}: is it running? (connect ECONNREFUSED 127.0.0.1:${port})`,
    );
    expect((error as Error).cause).toBeInstanceOf(TypeError);
  });

  it("refuses a base URL that is no URL, when it is made", () => {
    expect(() => new ControlClient({ baseUrl: "127.0.0.1:4010", key: CONTROL_KEY })).toThrow(
      /baseUrl must be an absolute URL, e\.g\. http:\/\/127\.0\.0\.1:4010/,
    );
  });

  it("says when what answers is not the control surface", async () => {
    const page = () =>
      Promise.resolve(
        new Response("<!doctype html><p>Vite</p>", { headers: { "Content-Type": "text/html" } }),
      );
    const control = new ControlClient({ baseUrl: "http://127.0.0.1:5173", key: CONTROL_KEY, fetch: page });
    await expect(control.clock()).rejects.toMatchObject({
      name: "ControlError",
      status: 200,
      message:
        "GET /__control/clock: 200 text/html rather than the control surface's JSON; is http://127.0.0.1:5173 the reference?",
    });
  });

  it("says when the key is not the one the reference was started with", async ({ serveBare }) => {
    const { baseUrl } = await serve(serveBare);
    const other = new ControlClient({ baseUrl, key: "the-key-of-another-run-0123" });
    await expect(other.reset()).rejects.toMatchObject({
      status: 401,
      message: expect.stringMatching(
        /^The control key does not match the one this reference was started with/,
      ),
    });
  });
});
