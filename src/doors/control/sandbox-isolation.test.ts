import fc from "fast-check";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { checkProperty, type TestReference } from "../../test-support/reference.js";
import { CONTROL_AUTH, controlledReference } from "../../test-support/control.js";
import { createSandbox, snapshotOf, type TestSandbox } from "../../test-support/sandboxes.js";

// A model-based property (fast-check commands, fixed seed printed on failure, FC_SEED to explore):
// random operations through the API and the control surface, each aimed at one of N sandboxes or the
// default state, never change anything another of them holds, and do to their own what the model says.

const WORLDS = 4; // the default state and three sandboxes
const ORGS = ["org_lumiere", "org_boreal"] as const;
const LABEL = { org_lumiere: "lumiere-full", org_boreal: "boreal-full" } as const;

interface World {
  /** Contacts created since the last reset, per fixture organization. */
  created: Record<(typeof ORGS)[number], number>;
  skus: Set<string>;
  /** Faults armed on GET /api/v1/invoices, not yet taken. */
  faults: number;
  clockMs: number;
  fixtureContacts: Record<(typeof ORGS)[number], number>;
  startMs: number;
}
type Model = World[];
interface Real {
  ref: TestReference;
  worlds: TestSandbox[];
}

const under = (w: TestSandbox) => (w.id === "" ? "/__control" : `/__control/sandboxes/${w.id}`);

/** Runs `act` on world `i`, then checks that no other world changed at all. */
async function onlyIn(real: Real, i: number, act: (w: TestSandbox) => Promise<void>): Promise<void> {
  const others = real.worlds.filter((_, j) => j !== i);
  const before = others.map((w) => snapshotOf(w.state()));
  await act(real.worlds[i] as TestSandbox);
  expect(others.map((w) => snapshotOf(w.state()))).toEqual(before);
}

const countOf = (w: TestSandbox, org: (typeof ORGS)[number]) =>
  w.state().store.countContacts(w.organizations[org] ?? "");

class CreateContact implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly i: number,
    readonly org: (typeof ORGS)[number],
  ) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const world = model[this.i] as World;
    await onlyIn(real, this.i, async (w) => {
      const res = await request(real.ref.app)
        .post("/api/v1/contacts")
        .set(w.auth(LABEL[this.org]))
        .send({ type: "CLIENT", name: `w${this.i}` });
      expect(res.status).toBe(201);
    });
    world.created[this.org] += 1;
    const w = real.worlds[this.i] as TestSandbox;
    expect(countOf(w, this.org)).toBe(world.fixtureContacts[this.org] + world.created[this.org]);
  }
  toString = () => `CreateContact(${this.i}, ${this.org})`;
}

class CreateProduct implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly i: number,
    readonly sku: string,
  ) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const world = model[this.i] as World;
    let status = 0;
    await onlyIn(real, this.i, async (w) => {
      const res = await request(real.ref.app)
        .post("/api/v1/products")
        .set(w.auth("lumiere-full"))
        .send({ sku: this.sku, name: "p", unitPrice: 1 });
      status = res.status;
    });
    // A sku is unique within one organization of one world: the same sku elsewhere is free.
    expect(status).toBe(world.skus.has(this.sku) ? 400 : 201);
    world.skus.add(this.sku);
  }
  toString = () => `CreateProduct(${this.i}, ${this.sku})`;
}

class Reset implements fc.AsyncCommand<Model, Real> {
  constructor(readonly i: number) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const world = model[this.i] as World;
    await onlyIn(real, this.i, async (w) => {
      expect(
        (
          await request(real.ref.app)
            .post(`${under(w)}/reset`)
            .set(CONTROL_AUTH)
            .send({})
        ).status,
      ).toBe(200);
    });
    world.created = { org_lumiere: 0, org_boreal: 0 };
    world.skus = new Set();
    world.faults = 0;
    world.clockMs = world.startMs;
    const w = real.worlds[this.i] as TestSandbox;
    for (const org of ORGS) expect(countOf(w, org)).toBe(world.fixtureContacts[org]);
    expect(w.state().clock.now().getTime()).toBe(world.startMs);
  }
  toString = () => `Reset(${this.i})`;
}

class AdvanceClock implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly i: number,
    readonly seconds: number,
  ) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const world = model[this.i] as World;
    await onlyIn(real, this.i, async (w) => {
      const res = await request(real.ref.app)
        .put(`${under(w)}/clock`)
        .set(CONTROL_AUTH)
        .send({ advance: `PT${this.seconds}S` });
      expect(res.status).toBe(200);
    });
    world.clockMs += this.seconds * 1000;
    expect((real.worlds[this.i] as TestSandbox).state().clock.now().getTime()).toBe(world.clockMs);
  }
  toString = () => `AdvanceClock(${this.i}, ${this.seconds}s)`;
}

class AddFault implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly i: number,
    readonly times: number,
  ) {}
  check = () => true;
  async run(model: Model, real: Real) {
    await onlyIn(real, this.i, async (w) => {
      const res = await request(real.ref.app)
        .post(`${under(w)}/faults`)
        .set(CONTROL_AUTH)
        .send({ method: "GET", path: "/api/v1/invoices", status: 500, times: this.times });
      expect(res.status).toBe(201);
    });
    (model[this.i] as World).faults += this.times;
  }
  toString = () => `AddFault(${this.i}, ×${this.times})`;
}

class ReadInvoices implements fc.AsyncCommand<Model, Real> {
  constructor(readonly i: number) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const world = model[this.i] as World;
    let status = 0;
    await onlyIn(real, this.i, async (w) => {
      status = (await request(real.ref.app).get("/api/v1/invoices").set(w.auth("boreal-full"))).status;
    });
    expect(status).toBe(world.faults > 0 ? 500 : 200);
    if (world.faults > 0) world.faults -= 1;
  }
  toString = () => `ReadInvoices(${this.i})`;
}

class SeedContacts implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly i: number,
    readonly n: number,
  ) {}
  check = () => true;
  async run(model: Model, real: Real) {
    await onlyIn(real, this.i, async (w) => {
      const contacts = Array.from({ length: this.n }, () => ({
        organizationId: w.organizations.org_boreal,
        type: "SUPPLIER",
        name: "seeded",
        email: null,
        phone: null,
        address: null,
        taxNumberTPS: null,
        taxNumberTVQ: null,
      }));
      expect(
        (
          await request(real.ref.app)
            .post(`${under(w)}/records`)
            .set(CONTROL_AUTH)
            .send({ contacts })
        ).status,
      ).toBe(201);
    });
    (model[this.i] as World).created.org_boreal += this.n;
  }
  toString = () => `SeedContacts(${this.i}, ${this.n})`;
}

class ClearJournal implements fc.AsyncCommand<Model, Real> {
  constructor(readonly i: number) {}
  check = () => true;
  async run(_model: Model, real: Real) {
    await onlyIn(real, this.i, async (w) => {
      expect(
        (
          await request(real.ref.app)
            .delete(`${under(w)}/journal`)
            .set(CONTROL_AUTH)
        ).status,
      ).toBe(200);
    });
    expect((real.worlds[this.i] as TestSandbox).state().journal.size).toBe(0);
  }
  toString = () => `ClearJournal(${this.i})`;
}

const world = fc.integer({ min: 0, max: WORLDS - 1 });
const commands = [
  fc.tuple(world, fc.constantFrom(...ORGS)).map(([i, org]) => new CreateContact(i, org)),
  fc.tuple(world, fc.constantFrom("A", "B", "C")).map(([i, sku]) => new CreateProduct(i, sku)),
  world.map((i) => new Reset(i)),
  fc.tuple(world, fc.integer({ min: 1, max: 200_000 })).map(([i, s]) => new AdvanceClock(i, s)),
  fc.tuple(world, fc.integer({ min: 1, max: 3 })).map(([i, n]) => new AddFault(i, n)),
  world.map((i) => new ReadInvoices(i)),
  fc.tuple(world, fc.integer({ min: 1, max: 5 })).map(([i, n]) => new SeedContacts(i, n)),
  world.map((i) => new ClearJournal(i)),
];

describe("sandboxes never see each other", () => {
  it("random operations in N sandboxes and the default state change nothing another holds", async () => {
    await checkProperty(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 25 }), async (cmds) => {
        const ref = await controlledReference();
        const main: TestSandbox = {
          id: "",
          tokens: {},
          organizations: { org_lumiere: "org_lumiere", org_boreal: "org_boreal" },
          auth: (label) => ref.auth(label),
          state: () => ref.state,
        };
        const worlds = [main];
        for (let i = 1; i < WORLDS; i++) worlds.push(await createSandbox(ref));
        const model: Model = worlds.map((w) => ({
          created: { org_lumiere: 0, org_boreal: 0 },
          skus: new Set<string>(),
          faults: 0,
          clockMs: w.state().clock.now().getTime(),
          startMs: w.state().clock.now().getTime(),
          fixtureContacts: { org_lumiere: countOf(w, "org_lumiere"), org_boreal: countOf(w, "org_boreal") },
        }));
        await fc.asyncModelRun(() => ({ model, real: { ref, worlds } }), cmds);
      }),
      40,
    );
  });
});
