import { describe, expect, it } from "vitest";
import type { TestReference, TestReferenceOptions } from "../../test-support/reference.js";
import { ControlClient, ControlError } from "./client.js";
import { CONTROL_KEY, controlledReference } from "../../test-support/control.js";
import { listenPerTest } from "../../test-support/serve.js";

// The typed client against a real listening server: what a Playwright fixture does.

const listenOn = listenPerTest();

async function serve(options: TestReferenceOptions = {}) {
  const ref = await controlledReference(options);
  const baseUrl = `http://127.0.0.1:${await listenOn(ref.app)}`;
  return { ref, baseUrl, control: new ControlClient({ baseUrl, key: CONTROL_KEY }) };
}

const contacts = (baseUrl: string, ref: TestReference) =>
  fetch(`${baseUrl}/api/v1/contacts?limit=1`, { headers: ref.auth("lumiere-full") });

describe("ControlClient", () => {
  it("resets, moves the clock, arms faults and reads the journal", async () => {
    const { ref, baseUrl, control } = await serve();
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

  it("throws a ControlError with the status, code and details of a refusal", async () => {
    const { control } = await serve();
    const error = await control.setClock({ advance: "soon" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ControlError);
    expect(error).toMatchObject({
      status: 400,
      code: "invalid_request",
      details: { advance: [expect.any(String)] },
    });
    const wrongKey = new ControlClient({ baseUrl: (await serve()).baseUrl, key: "not-the-key-at-all" });
    await expect(wrongKey.clock()).rejects.toMatchObject({ status: 401, code: "unauthorized" });
  });
});

describe("latency and dropped connections, seen from a real client", () => {
  it("a delay fault holds the answer back at least that long, then serves it", async () => {
    const { ref, baseUrl, control } = await serve();
    await control.addFault({ delayMs: 300 });
    const started = performance.now();
    const res = await contacts(baseUrl, ref);
    // A lower bound only: a busy machine can make it slower, never faster.
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(res.status).toBe(200);
    expect((await control.journal())[0]?.durationMs).toBeGreaterThanOrEqual(290);
  });

  it("a drop fault closes the connection without an answer, once", async () => {
    const { ref, baseUrl, control } = await serve();
    await control.addFault({ drop: true, path: "/api/v1/contacts" });
    await expect(contacts(baseUrl, ref)).rejects.toThrow(TypeError);
    expect((await contacts(baseUrl, ref)).status).toBe(200);
    const [ok, dropped] = await control.journal();
    expect(ok?.status).toBe(200);
    expect(dropped).toMatchObject({ status: null, fault: "fault_1" });
  });

  it("--latency delays every API answer within its range", async () => {
    const { ref, baseUrl, control } = await serve({ latency: { minMs: 150, maxMs: 200 } });
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      expect((await contacts(baseUrl, ref)).status).toBe(200);
      expect(performance.now() - started).toBeGreaterThanOrEqual(145);
    }
    expect((await control.describe()).latency).toEqual({ minMs: 150, maxMs: 200 });
  });
});
