import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { tmpdir } from "node:os";
import { join } from "node:path";
import request from "supertest";
import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../model/clock.js";
import {
  ENDPOINTS,
  describeEndpoint,
  expectData,
  expectError,
  expectInvalid,
  TEST_NOW,
  type TestReference,
} from "../../test-support/reference.js";
import { CONTROL_AUTH, controlledReference } from "../../test-support/control.js";
import { createSandbox, snapshotOf, type TestSandbox } from "../../test-support/sandboxes.js";
import { openBrowser, TOKENS_PATH } from "../../test-support/pages.js";
import { OPERATIONS } from "./runs.js";

// Sandboxes over HTTP: two of them and the default state, side by side, through every door and every
// operation of the control surface; their bounds; their safety.

const ctl = (ref: TestReference) => ({
  get: (path: string) => request(ref.app).get(`/__control${path}`).set(CONTROL_AUTH),
  post: (path: string, body?: object) =>
    request(ref.app).post(`/__control${path}`).set(CONTROL_AUTH).send(body),
  put: (path: string, body?: object) =>
    request(ref.app).put(`/__control${path}`).set(CONTROL_AUTH).send(body),
  delete: (path: string) => request(ref.app).delete(`/__control${path}`).set(CONTROL_AUTH),
});

/** The default state and two sandboxes, each reached the way a client reaches it. */
async function world(options: Parameters<typeof controlledReference>[0] = {}) {
  const ref = await controlledReference(options);
  const a = await createSandbox(ref);
  const b = await createSandbox(ref);
  const main: TestSandbox = {
    id: "",
    tokens: Object.fromEntries(ref.manifest.tokens.map((t) => [t.label, t.token])),
    organizations: { org_lumiere: "org_lumiere", org_boreal: "org_boreal", org_petitpas: "org_petitpas" },
    auth: (label) => ref.auth(label),
    state: () => ref.state,
  };
  /** The control surface of one of them: /__control or /__control/sandboxes/{id}. */
  const under = (s: TestSandbox) => (s.id === "" ? "" : `/sandboxes/${s.id}`);
  return { ref, a, b, main, all: [main, a, b], under };
}

const ids = async (ref: TestReference, s: TestSandbox, list: string, label = "lumiere-full") => {
  const res = await request(ref.app).get(`${list}?limit=200`).set(s.auth(label));
  return (expectData(res, 200) as { id: string }[]).map((r) => r.id);
};

describe("the API reaches a sandbox through its tokens only", () => {
  it.each(ENDPOINTS.filter((e) => e.method === "get").map((e) => ({ e, name: describeEndpoint(e) })))(
    "$name: each reads its own copy, the same records under other ids",
    async ({ e }) => {
      const { ref, all } = await world();
      const lists = await Promise.all(all.map((s) => ids(ref, s, e.path)));
      expect(lists[1]?.length).toBe(lists[0]?.length);
      expect(lists[2]?.length).toBe(lists[0]?.length);
      expect(new Set(lists.flat()).size).toBe(lists.flat().length);
    },
  );

  it.each(ENDPOINTS.filter((e) => e.method === "post").map((e) => ({ e, name: describeEndpoint(e) })))(
    "$name: a creation lands in that state alone",
    async ({ e }) => {
      const { ref, a, all } = await world();
      const before = all.map((s) => snapshotOf(s.state()).records);
      const body = e.path.endsWith("contacts")
        ? { type: "CLIENT", name: "Only in A" }
        : { sku: "ONLY-A", name: "Only in A", unitPrice: 1 };
      const created = expectData(
        await request(ref.app).post(e.path).set(a.auth("lumiere-full")).send(body),
        201,
      ) as {
        id: string;
      };
      expect(await ids(ref, a, e.path)).toContain(created.id);
      const after = all.map((s) => snapshotOf(s.state()).records);
      expect(after[0]).toBe(before[0]);
      expect(after[2]).toBe(before[2]);
      expect(after[1]).not.toBe(before[1]);
      // The same sku is free in the other worlds (spec-gaps #20 holds per organization, and per world).
      if (!e.path.endsWith("contacts")) {
        for (const s of all.filter((x) => x !== a)) {
          expectData(await request(ref.app).post(e.path).set(s.auth("lumiere-full")).send(body), 201);
        }
      }
    },
  );

  it("answers a sandbox's token states as the default state does: revoked, expired, no scope, no plan", async () => {
    const { ref, a } = await world();
    const get = (label: string) => request(ref.app).get("/api/v1/contacts").set(a.auth(label));
    expectError(await get("lumiere-revoked"), 401, "unauthorized");
    expectError(await get("lumiere-expired"), 401, "unauthorized");
    expectError(await get("lumiere-products-read"), 403, "forbidden");
    expectError(await get("petitpas-full"), 403, "forbidden");
    expectData(await get("lumiere-contacts-read"), 200);
  });

  it("counts each state's requests in its own rate-limit windows", async () => {
    const { ref, a, b, main } = await world({ rateLimit: { limit: 2, windowMs: 60_000 } });
    const get = (s: TestSandbox) => request(ref.app).get("/api/v1/contacts").set(s.auth("lumiere-full"));
    expectData(await get(a), 200);
    expectData(await get(a), 200);
    expectError(await get(a), 429, "rate_limited");
    expectData(await get(b), 200);
    expectData(await get(main), 200);
  });

  it("journals each request in the journal of the state that answered it", async () => {
    const { ref, a, b, main } = await world();
    await request(ref.app).get("/api/v1/invoices").set(a.auth("boreal-full"));
    await request(ref.app).get("/api/v1/expenses").set(b.auth("lumiere-full"));
    await request(ref.app).get("/api/v1/products");
    expect(
      a
        .state()
        .journal.list()
        .map((e) => [e.path, e.token, e.organization]),
    ).toEqual([["/api/v1/invoices", "boreal-full", a.organizations.org_boreal]]);
    expect(
      b
        .state()
        .journal.list()
        .map((e) => e.path),
    ).toEqual(["/api/v1/expenses"]);
    // No token: the default state's, as always.
    expect(
      main
        .state()
        .journal.list()
        .map((e) => [e.path, e.status]),
    ).toEqual([["/api/v1/products", 401]]);
  });

  it("applies a sandbox's own latency, and only to its requests", async () => {
    const { ref, a, main } = await world();
    expect((await ctl(ref).put(`/sandboxes/${a.id}/latency`, { minMs: 150 })).status).toBe(200);
    let started = performance.now();
    expectData(await request(ref.app).get("/api/v1/contacts").set(a.auth("lumiere-full")), 200);
    // A lower bound only: the delay is real time.
    expect(performance.now() - started).toBeGreaterThanOrEqual(145);
    expect(main.state().latency).toBeNull();
    started = performance.now();
    expectData(await request(ref.app).get("/api/v1/contacts").set(main.auth("lumiere-full")), 200);
    expect(a.state().journal.list()[0]?.durationMs).toBeGreaterThanOrEqual(145);
  });
});

describe("each control operation acts on its state alone", () => {
  type Step = (ref: TestReference, path: string, s: TestSandbox) => Promise<request.Response>;
  /** Every operation of the table on one state (the others must not change), and what it must change there. */
  const steps: Record<string, { run: Step; changes: boolean }> = {
    describe: { run: (ref, p) => ctl(ref).get(`${p}/`), changes: false },
    reset: {
      run: async (ref, p, s) => {
        await request(ref.app)
          .post("/api/v1/contacts")
          .set(s.auth("lumiere-full"))
          .send({ type: "CLIENT", name: "x" });
        return ctl(ref).post(`${p}/reset`, {});
      },
      changes: true,
    },
    clock: { run: (ref, p) => ctl(ref).get(`${p}/clock`), changes: false },
    setClock: {
      run: (ref, p) => ctl(ref).put(`${p}/clock`, { advance: "P3D", frozen: true }),
      changes: true,
    },
    restoreClock: {
      run: async (ref, p) => {
        await ctl(ref).put(`${p}/clock`, { advance: "P1D" });
        return ctl(ref).delete(`${p}/clock`);
      },
      changes: false,
    },
    faults: { run: (ref, p) => ctl(ref).get(`${p}/faults`), changes: false },
    addFault: {
      run: (ref, p) => ctl(ref).post(`${p}/faults`, { status: 500, untilCleared: true }),
      changes: true,
    },
    clearFaults: {
      run: async (ref, p) => {
        await ctl(ref).post(`${p}/faults`, { status: 500, times: 3 });
        return ctl(ref).delete(`${p}/faults`);
      },
      changes: true,
    },
    clearFault: {
      run: async (ref, p) => {
        const fault = (await ctl(ref).post(`${p}/faults`, { status: 500, times: 3 })).body as { id: string };
        return ctl(ref).delete(`${p}/faults/${fault.id}`);
      },
      changes: false,
    },
    journal: { run: (ref, p) => ctl(ref).get(`${p}/journal`), changes: false },
    waitForRequest: {
      run: async (ref, p, s) => {
        await request(ref.app).get("/api/v1/invoices").set(s.auth("lumiere-full"));
        return ctl(ref).get(`${p}/journal/wait?path=/api/v1/invoices&timeoutMs=1000`);
      },
      changes: true,
    },
    clearJournal: {
      run: async (ref, p, s) => {
        await request(ref.app).get("/api/v1/invoices").set(s.auth("lumiere-full"));
        return ctl(ref).delete(`${p}/journal`);
      },
      changes: true,
    },
    addRecords: {
      run: (ref, p, s) =>
        ctl(ref).post(`${p}/records`, {
          contacts: [
            {
              organizationId: s.organizations.org_lumiere,
              type: "CLIENT",
              name: "Seeded",
              email: null,
              phone: null,
              address: null,
              taxNumberTPS: null,
              taxNumberTVQ: null,
            },
          ],
        }),
      changes: true,
    },
    latency: { run: (ref, p) => ctl(ref).get(`${p}/latency`), changes: false },
    setLatency: { run: (ref, p) => ctl(ref).put(`${p}/latency`, { minMs: 1, maxMs: 2 }), changes: true },
    restoreLatency: {
      run: async (ref, p) => {
        await ctl(ref).put(`${p}/latency`, { minMs: 1 });
        return ctl(ref).delete(`${p}/latency`);
      },
      changes: false,
    },
  };

  it("covers every operation on one state of the table", () => {
    expect(Object.keys(steps).sort()).toEqual(Object.keys(OPERATIONS).sort());
  });

  const cases = Object.entries(steps).flatMap(([name, step]) =>
    (["default", "a sandbox"] as const).map((target) => ({ name, step, target })),
  );
  it.each(cases)("$name on $target changes nothing elsewhere", async ({ step, target }) => {
    const { ref, a, main, all, under } = await world();
    // Something in every state first, so that a reset or a clear elsewhere would show.
    for (const s of all) {
      await request(ref.app)
        .post("/api/v1/contacts")
        .set(s.auth("boreal-full"))
        .send({ type: "CLIENT", name: "pre" });
      s.state().faults.add(
        { hold: { untilCleared: true }, path: "/api/v1/expenses", error: undefined, delayMs: 0 },
        s.state().clock.now(),
      );
    }
    const acted = target === "default" ? main : a;
    const others = all.filter((s) => s !== acted);
    const before = others.map((s) => snapshotOf(s.state()));
    const mine = snapshotOf(acted.state());
    const res = await step.run(ref, under(acted), acted);
    expect(res.status, res.text).toBeLessThan(300);
    expect(others.map((s) => snapshotOf(s.state()))).toEqual(before);
    if (step.changes) expect(snapshotOf(acted.state())).not.toEqual(mine);
  });

  it("describes a sandbox as such, its id and organizations, with the operations' sandbox paths", async () => {
    const { ref, a } = await world();
    const res = await ctl(ref).get(`/sandboxes/${a.id}/`);
    expect(res.body).toMatchObject({
      sandbox: { id: a.id, path: `/__control/sandboxes/${a.id}`, organizations: a.organizations },
    });
    expect((res.body as { operations: { sandboxPath: string | null }[] }).operations).toContainEqual(
      expect.objectContaining({ path: "/__control/reset", sandboxPath: "/__control/sandboxes/{id}/reset" }),
    );
    expect(((await ctl(ref).get("/")).body as { sandbox: unknown }).sandbox).toBeNull();
  });

  it("refuses a sandbox reset of an organization that is not the sandbox's", async () => {
    const { ref, a } = await world();
    expectInvalid(
      await ctl(ref).post(`/sandboxes/${a.id}/reset`, { organization: "org_lumiere" }),
      "organization",
    );
    expect(
      (await ctl(ref).post(`/sandboxes/${a.id}/reset`, { organization: a.organizations.org_lumiere })).status,
    ).toBe(200);
  });
});

describe("the other doors", () => {
  it("the token pages show the default state's organizations and tokens, never a sandbox's", async () => {
    const { ref, a } = await world();
    const browser = await openBrowser(ref);
    const page = await browser.agent.get(TOKENS_PATH);
    for (const id of Object.values(a.organizations)) expect(page.text).not.toContain(id);
    const res = await browser.agent
      .post("/settings/organization")
      .type("form")
      .send({ _csrf: browser.csrf, organization: a.organizations.org_lumiere });
    expect(res.status).toBe(303);
    const after = await browser.agent.get(TOKENS_PATH);
    expect(after.text).toContain("Choose one of the organizations in the list.");
  });

  it("a sandbox's token opens neither the control surface nor a page", async () => {
    const { ref, a } = await world();
    expectError(await request(ref.app).get("/__control/").set(a.auth("lumiere-full")), 401, "unauthorized");
    expectError(
      await request(ref.app).get(`/__control/sandboxes/${a.id}/journal`).set(a.auth("lumiere-full")),
      401,
      "unauthorized",
    );
  });
});

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
    const { ref, a } = await world();
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
    const { ref, a } = await world();
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
    const { ref, a, b, main } = await world();
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
    const { ref, a, b } = await world();
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
  const dirs: string[] = [];
  afterEach(async () => {
    await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
  });

  it("writes nothing of a sandbox, and a restart has none", async () => {
    const dir = await mkdtemp(join(tmpdir(), "acct-sandbox-data-"));
    dirs.push(dir);
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
