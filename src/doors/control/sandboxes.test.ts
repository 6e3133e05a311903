import { readdir, readFile } from "node:fs/promises";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { join } from "node:path";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { ManualClock } from "../../model/clock.js";
import { expectData, expectError, expectInvalid, TEST_NOW } from "../../test-support/reference.js";
import { CONTROL_AUTH, controlledReference, ctl } from "../../test-support/control.js";
import { createSandbox, snapshotOf, threeStates } from "../../test-support/sandboxes.js";
import { tempDirs } from "../../test-support/temp-dirs.js";

// Sandboxes as the control surface manages them: made, listed, deleted, bounded, ended when idle;
// their safety, their memory, and --data, which keeps none of them.

describe("safety", () => {
  it.each([
    ["GET", "/sandboxes"],
    ["POST", "/sandboxes"],
    ["DELETE", "/sandboxes/{id}"],
    ["GET", "/sandboxes/{id}/"],
    ["POST", "/sandboxes/{id}/reset"],
    ["PUT", "/sandboxes/{id}/clock"],
    ["POST", "/sandboxes/{id}/faults"],
    ["GET", "/sandboxes/{id}/journal"],
    ["POST", "/sandboxes/{id}/records"],
  ])("%s /__control%s wants the control key: 401 without it, 403 from another site", async (method, path) => {
    const { ref, a } = await threeStates();
    const url = `/__control${path.replace("{id}", a.id)}`;
    const verb = method.toLowerCase() as "get" | "post" | "put" | "delete";
    const before = snapshotOf(a.state());
    expectError(await request(ref.app)[verb](url).send({}), 401, "unauthorized");
    expectError(
      await request(ref.app)[verb](url).set("Authorization", `Bearer ${a.id}`).send({}),
      401,
      "unauthorized",
    );
    expectError(
      await request(ref.app)[verb](url).set(CONTROL_AUTH).set("Sec-Fetch-Site", "cross-site").send({}),
      403,
      "forbidden",
    );
    expect(snapshotOf(a.state())).toEqual(before);
    expect(ref.sandboxes.size).toBe(2);
  });

  it("a sandbox's id opens nothing in the API: as a token, in a path, in a query", async () => {
    const { ref, a } = await threeStates();
    expectError(
      await request(ref.app).get("/api/v1/contacts").set("Authorization", `Bearer ${a.id}`),
      401,
      "unauthorized",
    );
    expectError(await request(ref.app).get(`/api/v1/contacts?sandbox=${a.id}`), 401, "unauthorized");
    expectError(await request(ref.app).get(`/${a.id}/api/v1/contacts`), 401, "unauthorized");
    expectError(
      await request(ref.app).get(`/${a.id}/api/v1/contacts`).set(a.auth("lumiere-full")),
      404,
      "not_found",
    );
  });

  it("a sandbox's token never reaches another world's data, whatever the path, filter or before", async () => {
    const { ref, a, b, main } = await threeStates();
    const foreign = new Set([
      ...(JSON.stringify(b.state().store.records()).match(/(con|prd|inv|exp|acc)_[0-9A-Za-z]+/g) ?? []),
      ...(JSON.stringify(main.state().store.records()).match(/(con|prd|inv|exp|acc)_[0-9A-Za-z]+/g) ?? []),
    ]);
    const paths = [
      "/api/v1/contacts",
      "/api/v1/contacts?type=CLIENT",
      "/api/v1/contacts?type=SUPPLIER&limit=200",
      "/api/v1/contacts?type=BOTH&before=2030-01-01",
      "/api/v1/products?limit=200",
      "/api/v1/products?before=2026-06-01T00:00:00Z",
      ...["DRAFT", "SENT", "PAID", "OVERDUE", "VOIDED"].map((s) => `/api/v1/invoices?status=${s}&limit=200`),
      "/api/v1/invoices?before=2026-10-30&limit=200",
      "/api/v1/invoices?before=1970-01-01",
      ...["DRAFT", "APPROVED", "PAID", "REJECTED"].map((s) => `/api/v1/expenses?status=${s}&limit=200`),
      "/api/v1/expenses?before=2099-01-01T00:00:00.000Z&limit=200",
      `/api/v1/contacts?organization=${b.organizations.org_lumiere}`,
      `/api/v1/contacts?organizationId=org_lumiere`,
    ];
    let served = 0;
    for (const label of ["lumiere-full", "boreal-full", "lumiere-contacts-read", "boreal-full-2"]) {
      for (const path of paths) {
        const res = await request(ref.app).get(path).set(a.auth(label));
        if (res.status !== 200) continue;
        served += 1;
        for (const id of res.text.match(/(con|prd|inv|exp|acc)_[0-9A-Za-z]+/g) ?? [])
          expect(foreign.has(id)).toBe(false);
      }
    }
    expect(served).toBeGreaterThan(30);
  });
});

describe("POST, GET and DELETE /__control/sandboxes", () => {
  it("answers 201 with the id and the token manifest, and lists without tokens", async () => {
    const ref = await controlledReference();
    const res = await ctl(ref).post("/sandboxes", { now: "2030-01-01T00:00:00Z" });
    expect(res.status).toBe(201);
    const body = res.body as {
      id: string;
      manifest: { tokens: { token: string; label: string }[]; tokenPrefix: string };
    };
    expect(body).toMatchObject({
      id: expect.stringMatching(/^sbx_[0-9A-Za-z]{16}$/),
      path: `/__control/sandboxes/${body.id}`,
      clock: { now: "2030-01-01T00:00:00.000Z", frozen: false },
      createdAt: TEST_NOW,
      expiresAt: "2026-11-20T12:30:00.000Z",
      manifest: { version: 1, tokenPrefix: "acct" },
    });
    expect(body.manifest.tokens.map((t) => t.label)).toEqual(ref.manifest.tokens.map((t) => t.label));
    const list = await ctl(ref).get("/sandboxes");
    expect(list.body).toEqual([expect.objectContaining({ id: body.id })]);
    expect(list.text).not.toContain(body.manifest.tokens[0]?.token ?? "?");
    expect(list.text).not.toContain("manifest");
  });

  it("refuses an unknown field or a bad instant with 400, making nothing", async () => {
    const ref = await controlledReference();
    expectInvalid(await ctl(ref).post("/sandboxes", { now: "tomorrow" }), "now");
    expectInvalid(await ctl(ref).post("/sandboxes", { fixtures: "mine" }), "fixtures");
    expect(ref.sandboxes.size).toBe(0);
  });

  it("DELETE ends it: its tokens get 401 at once, its surface 404", async () => {
    const { ref, a, b } = await threeStates();
    expectData(await request(ref.app).get("/api/v1/contacts").set(a.auth("lumiere-full")), 200);
    expect((await ctl(ref).delete(`/sandboxes/${a.id}`)).body).toEqual({ deleted: a.id });
    for (const label of Object.keys(a.tokens)) {
      expectError(await request(ref.app).get("/api/v1/contacts").set(a.auth(label)), 401, "unauthorized");
    }
    expectError(await ctl(ref).get(`/sandboxes/${a.id}/clock`), 404, "not_found");
    expectError(await ctl(ref).delete(`/sandboxes/${a.id}`), 404, "not_found");
    expectData(await request(ref.app).get("/api/v1/contacts").set(b.auth("lumiere-full")), 200);
  });

  it("past the maximum, answers 429 rate_limited saying why, with Retry-After", async () => {
    const clock = new ManualClock(TEST_NOW);
    const ref = await controlledReference({ clock, maxSandboxes: 2, sandboxIdleMs: 600_000 });
    await createSandbox(ref);
    clock.advance(60_000);
    await createSandbox(ref);
    const res = await ctl(ref).post("/sandboxes", {});
    const error = expectError(res, 429, "rate_limited");
    expect(error.message).toContain("At most 2 sandboxes at once (--max-sandboxes, REFERENCE_MAX_SANDBOXES)");
    expect(res.headers["retry-after"]).toBe("540");
    expect(() => ref.sandbox()).toThrow(/At most 2 sandboxes/);
  });

  it("ends a sandbox left idle, on the reference's base clock", async () => {
    const clock = new ManualClock(TEST_NOW);
    const ref = await controlledReference({ clock, sandboxIdleMs: 60_000 });
    const a = await createSandbox(ref);
    clock.advance(59_000);
    expectData(await request(ref.app).get("/api/v1/contacts").set(a.auth("lumiere-full")), 200);
    clock.advance(59_000);
    expect((await ctl(ref).get(`/sandboxes/${a.id}/clock`)).status).toBe(200);
    clock.advance(60_000);
    expect((await ctl(ref).get("/sandboxes")).body).toEqual([]);
    expectError(
      await request(ref.app).get("/api/v1/contacts").set(a.auth("lumiere-full")),
      401,
      "unauthorized",
    );
  });
});

describe("memory", () => {
  it("frees a deleted sandbox's state, once the API and the control surface have used it", async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const ref = await controlledReference({ rateLimit: { limit: 10, windowMs: 60_000 } });
    const a = await createSandbox(ref);
    // Everything that keeps something per state: a limiter, the domain, a journal pattern, a fault.
    expectData(await request(ref.app).get("/api/v1/contacts").set(a.auth("lumiere-full")), 200);
    expectData(
      await request(ref.app)
        .post("/api/v1/contacts")
        .set(a.auth("lumiere-full"))
        .send({ type: "CLIENT", name: "x" }),
      201,
    );
    await ctl(ref).post(`/sandboxes/${a.id}/faults`, { status: 500, untilCleared: true });
    const inProcess = ref.sandbox();
    const weak = [new WeakRef(a.state()), new WeakRef(inProcess.state)];
    await ctl(ref).delete(`/sandboxes/${a.id}`);
    inProcess.delete();
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    expect(weak.map((w) => w.deref())).toEqual([undefined, undefined]);
  });
});

describe("--data keeps no sandbox", () => {
  const temp = tempDirs("acct-sandbox-data-");

  it("writes nothing of a sandbox, and a restart has none", async () => {
    const dir = await temp.make();
    const ref = await controlledReference({ dataDir: dir });
    const stats = ref.dataStats();
    const a = await createSandbox(ref);
    const created = expectData(
      await request(ref.app)
        .post("/api/v1/contacts")
        .set(a.auth("lumiere-full"))
        .send({ type: "CLIENT", name: "Ephemeral" }),
      201,
    ) as { id: string };
    await ctl(ref).put(`/sandboxes/${a.id}/clock`, { advance: "P9D" });
    await ctl(ref).post(`/sandboxes/${a.id}/reset`, {});
    expect(ref.dataStats()).toEqual(stats);
    await ref.close();
    const files = await Promise.all((await readdir(dir)).map((f) => readFile(join(dir, f), "utf8")));
    expect(files.join("")).not.toContain(created.id);
    expect(files.join("")).not.toContain(a.id);
    const again = await controlledReference({ dataDir: dir });
    try {
      expect(again.sandboxes.size).toBe(0);
      expectError(
        await request(again.app).get("/api/v1/contacts").set(a.auth("lumiere-full")),
        401,
        "unauthorized",
      );
      expect(again.clock.now().toISOString()).toBe(TEST_NOW);
    } finally {
      await again.close();
    }
  });
});
