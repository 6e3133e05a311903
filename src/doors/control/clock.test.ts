import { describe, expect, it } from "vitest";
import { expectData, expectError, expectInvalid } from "../../test-support/reference.js";
import { api, controlledReference, createContact, ctl } from "../../test-support/control.js";

// The reference's clock, read and steered over HTTP and in process: what it dates, expires and refills.

describe("the clock: GET, PUT and DELETE /__control/clock", () => {
  it("is read over HTTP as in process", async () => {
    const ref = await controlledReference();
    const res = await ctl(ref).get("/clock");
    expect(res.body).toEqual({ now: "2026-11-20T12:00:00.000Z", frozen: false, offsetMs: 0 });
    expect(ref.control.clock()).toEqual(res.body);
  });

  it("set to an instant, it dates what is created then", async () => {
    const ref = await controlledReference();
    const res = await ctl(ref).put("/clock", { now: "2027-01-01T00:00:00Z", frozen: true });
    expect(res.body).toMatchObject({ now: "2027-01-01T00:00:00.000Z", frozen: true });
    const created = expectData(await createContact(ref, "lumiere-full", "New year"), 201) as {
      createdAt: string;
    };
    expect(created.createdAt).toBe("2027-01-01T00:00:00.000Z");
  });

  it("set to an instant, it is the API's Date header too, so a client's clock skew agrees with createdAt", async () => {
    const ref = await controlledReference();
    await ctl(ref).put("/clock", { now: "2027-01-01T00:00:00Z", frozen: true });
    const res = await api(ref, "lumiere-full", "/api/v1/contacts?limit=1");
    expect(res.headers["date"]).toBe("Fri, 01 Jan 2027 00:00:00 GMT");
  });

  it("moved past a token's expiry, makes the token Expired and the API answer 401 (§3)", async () => {
    const ref = await controlledReference();
    const expiring = ref.tokens.get(ref.tokenId("lumiere-expiring"));
    if (expiring?.expiresAt === null || expiring === undefined)
      throw new Error("fixture lumiere-expiring has no expiry");
    expectData(await api(ref, "lumiere-expiring", "/api/v1/contacts?limit=1"), 200);
    await ctl(ref).put("/clock", { now: expiring.expiresAt.toISOString() });
    expect(ref.tokens.get(expiring.id)?.status).toBe("Expired");
    expectError(await api(ref, "lumiere-expiring", "/api/v1/contacts?limit=1"), 401, "unauthorized");
  });

  it("advanced two days, expires lumiere-expires-tomorrow, which a reset makes Active again", async () => {
    const ref = await controlledReference();
    expect(ref.manifest.tokens.find((t) => t.label === "lumiere-expires-tomorrow")?.expiresAt).toBe(
      "2026-11-21T12:00:00.000Z",
    );
    expectData(await api(ref, "lumiere-expires-tomorrow", "/api/v1/contacts?limit=1"), 200);
    await ctl(ref).put("/clock", { advance: "P2D" });
    expect(ref.tokens.get(ref.tokenId("lumiere-expires-tomorrow"))?.status).toBe("Expired");
    expectError(await api(ref, "lumiere-expires-tomorrow", "/api/v1/contacts?limit=1"), 401, "unauthorized");
    await ctl(ref).post("/reset");
    expectData(await api(ref, "lumiere-expires-tomorrow", "/api/v1/contacts?limit=1"), 200);
  });

  it("advanced a minute, gives a rate-limited token its quota back (§8)", async () => {
    const ref = await controlledReference({ rateLimit: { limit: 3, windowMs: 60_000 } });
    for (let i = 0; i < 3; i++) expectData(await api(ref, "lumiere-full"), 200);
    const limited = expectError(await api(ref, "lumiere-full"), 429, "rate_limited");
    expect(limited.message).toBeTruthy();
    expect((await ctl(ref).put("/clock", { advance: "PT61S" })).status).toBe(200);
    expectData(await api(ref, "lumiere-full"), 200);
  });

  it("frozen, stays put; thawed, runs on; DELETE takes it back to its start", async () => {
    const ref = await controlledReference();
    await ctl(ref).put("/clock", { frozen: true, advance: "P1D" });
    expect(ref.control.clock()).toMatchObject({ now: "2026-11-21T12:00:00.000Z", frozen: true });
    ref.control.setClock({ frozen: false });
    expect(ref.control.clock().frozen).toBe(false);
    const res = await ctl(ref).delete("/clock");
    expect(res.body).toEqual({ now: "2026-11-20T12:00:00.000Z", frozen: false, offsetMs: 0 });
  });

  it.each([
    [{}, "", "nothing to do"],
    [{ now: "2027-01-01" }, "now", "a date without time"],
    [{ now: "2027-01-01T00:00:00" }, "now", "no zone"],
    [{ now: 1798761600000 }, "now", "a number"],
    [{ advance: "61s" }, "advance", "not ISO 8601"],
    [{ advance: "P1M" }, "advance", "months"],
    [{ now: "2027-01-01T00:00:00Z", advance: "PT1S" }, "advance", "both now and advance"],
    [{ frozen: "yes" }, "frozen", "not a boolean"],
    [{ speed: 2 }, "speed", "an unknown field"],
  ])("refuses %j with 400 naming the field (%s, %s) and does not move", async (body, field, _why) => {
    const ref = await controlledReference();
    const res = await ctl(ref).put("/clock", body);
    expectError(res, 400, "invalid_request");
    if (field !== "") expectInvalid(res, field);
    expect(ref.control.clock()).toEqual({ now: "2026-11-20T12:00:00.000Z", frozen: false, offsetMs: 0 });
  });
});
