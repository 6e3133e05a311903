import request from "supertest";
import { describe, expect, it } from "vitest";
import { expectError, expectInvalid, type TestReference } from "../../test-support/reference.js";
import { ctl } from "../../test-support/control.js";
import { snapshotOf, threeStates, type TestSandbox } from "../../test-support/sandboxes.js";
import { openBrowser, TOKENS_PATH } from "../../test-support/pages.js";
import { CONTROL_TABLE } from "./table.js";
import { seedContact } from "../../test-support/records.js";

// Each operation of the control surface, on the default state or on a sandbox, acts on that state
// alone; the other doors (the pages, the control surface itself) never open onto a sandbox.

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
          contacts: [seedContact(s.organizations.org_lumiere ?? "", { type: "CLIENT", name: "Seeded" })],
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
    const onOneState = Object.entries(CONTROL_TABLE).filter(([, operation]) => operation.on === "state");
    expect(Object.keys(steps).sort()).toEqual(onOneState.map(([name]) => name).sort());
  });

  const cases = Object.entries(steps).flatMap(([name, step]) =>
    (["default", "a sandbox"] as const).map((target) => ({ name, step, target })),
  );
  it.each(cases)("$name on $target changes nothing elsewhere", async ({ step, target }) => {
    const { ref, a, main, all, under } = await threeStates();
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
    const { ref, a } = await threeStates();
    const res = await ctl(ref).get(`/sandboxes/${a.id}/`);
    expect(res.body).toMatchObject({
      sandbox: { id: a.id, path: `/__control/sandboxes/${a.id}`, organizations: a.organizations },
    });
    expect((res.body as { operations: { sandboxPath: string | null }[] }).operations).toContainEqual(
      expect.objectContaining({ path: "/__control/reset", sandboxPath: "/__control/sandboxes/{id}/reset" }),
    );
    expect(((await ctl(ref).get("/")).body as { sandbox: unknown }).sandbox).toBeNull();
  });

  it("resets one organization of a sandbox by its id or the fixture's, never another sandbox's", async () => {
    const { ref, a, b } = await threeStates();
    expectInvalid(
      await ctl(ref).post(`/sandboxes/${a.id}/reset`, { organization: b.organizations.org_lumiere }),
      "organization",
    );
    expectInvalid(
      await ctl(ref).post(`/sandboxes/${a.id}/reset`, { organization: "org_nowhere" }),
      "organization",
    );
    for (const organization of ["org_lumiere", a.organizations.org_lumiere]) {
      const res = await ctl(ref).post(`/sandboxes/${a.id}/reset`, { organization });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toMatchObject({ organizations: [a.organizations.org_lumiere] });
    }
  });

  it("aims a sandbox's fault at a fixture organization id as at its own", async () => {
    const { ref, a } = await threeStates();
    const armed = await ctl(ref).post(`/sandboxes/${a.id}/faults`, {
      organization: "org_boreal",
      status: 500,
    });
    expect(armed.body).toMatchObject({ organization: a.organizations.org_boreal });
    expect((await request(ref.app).get("/api/v1/contacts").set(a.auth("lumiere-full"))).status).toBe(200);
    expect((await request(ref.app).get("/api/v1/contacts").set(a.auth("boreal-full"))).status).toBe(500);
  });
});

describe("the other doors", () => {
  it("the token pages show the default state's organizations and tokens, never a sandbox's", async () => {
    const { ref, a } = await threeStates();
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
    const { ref, a } = await threeStates();
    expectError(await request(ref.app).get("/__control/").set(a.auth("lumiere-full")), 401, "unauthorized");
    expectError(
      await request(ref.app).get(`/__control/sandboxes/${a.id}/journal`).set(a.auth("lumiere-full")),
      401,
      "unauthorized",
    );
  });
});
