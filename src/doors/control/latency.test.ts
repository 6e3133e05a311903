import { describe, expect, it } from "vitest";
import { expectData, expectInvalid } from "../../test-support/reference.js";
import { api, controlledReference, ctl } from "../../test-support/control.js";

// The delay before every API answer, set and taken back over the control surface.

describe("the latency: GET, PUT and DELETE /__control/latency", () => {
  it("changes the delay before every API answer, and goes back to --latency", async () => {
    const ref = await controlledReference({ latency: { minMs: 1, maxMs: 2 } });
    expect((await ctl(ref).get("/latency")).body).toEqual({ latency: { minMs: 1, maxMs: 2 } });
    expect((await ctl(ref).put("/latency", { minMs: 120 })).body).toEqual({
      latency: { minMs: 120, maxMs: 120 },
    });
    const started = performance.now();
    expectData(await api(ref, "lumiere-full"), 200);
    // A lower bound only: the delay is real time.
    expect(performance.now() - started).toBeGreaterThanOrEqual(115);
    expect((await ctl(ref).put("/latency", { minMs: 0 })).body).toEqual({ latency: null });
    expect((await ctl(ref).delete("/latency")).body).toEqual({ latency: { minMs: 1, maxMs: 2 } });
    expect(ref.control.describe().latency).toEqual({ minMs: 1, maxMs: 2 });
  });

  it.each([
    [{}, "minMs"],
    [{ minMs: -1 }, "minMs"],
    [{ minMs: 60_001 }, "minMs"],
    [{ minMs: 300, maxMs: 200 }, "maxMs"],
    [{ minMs: 1.5 }, "minMs"],
    [{ minMs: 1, jitter: 2 }, "jitter"],
  ])("refuses %j with 400 naming %s, changing nothing", async (body, field) => {
    const ref = await controlledReference();
    expectInvalid(await ctl(ref).put("/latency", body), field);
    expect(ref.state.latency).toBeNull();
  });
});
