import fc from "fast-check";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { checkProperty, type TestReference } from "../../test-support/reference.js";
import { controlledReference, ctl } from "../../test-support/control.js";
import { createSandbox, defaultState, snapshotOf, type TestSandbox } from "../../test-support/sandboxes.js";
import { seedContact } from "../../test-support/records.js";

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

/** Runs `act` on world `i`, then checks that no other world changed at all. */
async function onlyIn(real: Real, i: number, act: (w: TestSandbox) => Promise<void>): Promise<void> {
  const others = real.worlds.filter((_, j) => j !== i);
  const before = others.map((w) => snapshotOf(w.state()));
  await act(real.worlds[i] as TestSandbox);
  expect(others.map((w) => snapshotOf(w.state()))).toEqual(before);
}

const countOf = (w: TestSandbox, org: (typeof ORGS)[number]) =>
  w.state().store.countContacts(w.organizations[org] ?? "");

/**
 * A command on world `i`: one request there (through the API, or the world's own control surface),
 * answered with the status the model expects while no other world changes; then the model keeps
 * what it did (`after`), and the world is held to the model.
 */
function command(
  name: string,
  i: number,
  send: (ref: TestReference, w: TestSandbox) => request.Test,
  status: (world: World) => number,
  after: (world: World, w: TestSandbox) => void,
): fc.AsyncCommand<Model, Real> {
  return {
    check: () => true,
    async run(model, real) {
      const world = model[i] as World;
      await onlyIn(real, i, async (w) => {
        expect((await send(real.ref, w)).status).toBe(status(world));
      });
      after(world, real.worlds[i] as TestSandbox);
    },
    toString: () => name,
  };
}

const createContact = (i: number, org: (typeof ORGS)[number]) =>
  command(
    `CreateContact(${i}, ${org})`,
    i,
    (ref, w) =>
      request(ref.app)
        .post("/api/v1/contacts")
        .set(w.auth(LABEL[org]))
        .send({ type: "CLIENT", name: `w${i}` }),
    () => 201,
    (world, w) => {
      world.created[org] += 1;
      expect(countOf(w, org)).toBe(world.fixtureContacts[org] + world.created[org]);
    },
  );

// A sku is unique within one organization of one world: the same sku elsewhere is free.
const createProduct = (i: number, sku: string) =>
  command(
    `CreateProduct(${i}, ${sku})`,
    i,
    (ref, w) =>
      request(ref.app)
        .post("/api/v1/products")
        .set(w.auth("lumiere-full"))
        .send({ sku, name: "p", unitPrice: 1 }),
    (world) => (world.skus.has(sku) ? 400 : 201),
    (world) => {
      world.skus.add(sku);
    },
  );

const reset = (i: number) =>
  command(
    `Reset(${i})`,
    i,
    (ref, w) => ctl(ref, w.id).post("/reset", {}),
    () => 200,
    (world, w) => {
      world.created = { org_lumiere: 0, org_boreal: 0 };
      world.skus = new Set();
      world.faults = 0;
      world.clockMs = world.startMs;
      for (const org of ORGS) expect(countOf(w, org)).toBe(world.fixtureContacts[org]);
      expect(w.state().clock.now().getTime()).toBe(world.startMs);
    },
  );

const advanceClock = (i: number, seconds: number) =>
  command(
    `AdvanceClock(${i}, ${seconds}s)`,
    i,
    (ref, w) => ctl(ref, w.id).put("/clock", { advance: `PT${seconds}S` }),
    () => 200,
    (world, w) => {
      world.clockMs += seconds * 1000;
      expect(w.state().clock.now().getTime()).toBe(world.clockMs);
    },
  );

const addFault = (i: number, times: number) =>
  command(
    `AddFault(${i}, ×${times})`,
    i,
    (ref, w) =>
      ctl(ref, w.id).post("/faults", { method: "GET", path: "/api/v1/invoices", status: 500, times }),
    () => 201,
    (world) => {
      world.faults += times;
    },
  );

const readInvoices = (i: number) =>
  command(
    `ReadInvoices(${i})`,
    i,
    (ref, w) => request(ref.app).get("/api/v1/invoices").set(w.auth("boreal-full")),
    (world) => (world.faults > 0 ? 500 : 200),
    (world) => {
      if (world.faults > 0) world.faults -= 1;
    },
  );

const seedContacts = (i: number, n: number) =>
  command(
    `SeedContacts(${i}, ${n})`,
    i,
    (ref, w) =>
      ctl(ref, w.id).post("/records", {
        contacts: Array.from({ length: n }, () =>
          seedContact(w.organizations.org_boreal ?? "", { type: "SUPPLIER", name: "seeded" }),
        ),
      }),
    () => 201,
    (world) => {
      world.created.org_boreal += n;
    },
  );

const clearJournal = (i: number) =>
  command(
    `ClearJournal(${i})`,
    i,
    (ref, w) => ctl(ref, w.id).delete("/journal"),
    () => 200,
    (_world, w) => {
      expect(w.state().journal.size).toBe(0);
    },
  );

const world = fc.integer({ min: 0, max: WORLDS - 1 });
const commands = [
  fc.tuple(world, fc.constantFrom(...ORGS)).map(([i, org]) => createContact(i, org)),
  fc.tuple(world, fc.constantFrom("A", "B", "C")).map(([i, sku]) => createProduct(i, sku)),
  world.map((i) => reset(i)),
  fc.tuple(world, fc.integer({ min: 1, max: 200_000 })).map(([i, s]) => advanceClock(i, s)),
  fc.tuple(world, fc.integer({ min: 1, max: 3 })).map(([i, n]) => addFault(i, n)),
  world.map((i) => readInvoices(i)),
  fc.tuple(world, fc.integer({ min: 1, max: 5 })).map(([i, n]) => seedContacts(i, n)),
  world.map((i) => clearJournal(i)),
];

describe("sandboxes never see each other", () => {
  it("random operations in N sandboxes and the default state change nothing another holds", async () => {
    await checkProperty(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 25 }), async (cmds) => {
        const ref = await controlledReference();
        const worlds = [defaultState(ref)];
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
