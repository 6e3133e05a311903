import { cp, mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import request from "supertest";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../model/clock.js";
import { defaultFixturesDir } from "../fixtures/paths.js";
import {
  RawNumber,
  TEST_NOW,
  expectData,
  jsonText,
  testReference,
  type TestReference,
  type TestReferenceOptions,
} from "../../test-support/reference.js";
import { DataDir, type StateSource } from "./data-dir.js";
import { fixturesDigest } from "./files.js";
import type { Change } from "./format.js";
import { storedContact } from "../../test-support/records.js";

let root: string;
let dir: string;
let clock: ManualClock;
const open: TestReference[] = [];

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "reference-data-"));
  dir = join(root, "data");
  clock = new ManualClock(TEST_NOW);
});

afterEach(async () => {
  for (const ref of open.splice(0)) await ref.close();
  await rm(root, { recursive: true, force: true });
});

/** A server on `dir`, as `--data dir` starts one; closed after the test if the test did not. */
async function start(options: TestReferenceOptions = {}): Promise<TestReference> {
  const ref = await testReference({ clock, dataDir: dir, ...options });
  open.push(ref);
  return ref;
}

/** Closes it (as SIGTERM does) and starts another on the same folder: a restart. */
async function restart(ref: TestReference, options: TestReferenceOptions = {}): Promise<TestReference> {
  await ref.close();
  open.splice(open.indexOf(ref), 1);
  return start(options);
}

const post = (ref: TestReference, path: string, body: Record<string, unknown>, label = "lumiere-full") =>
  request(ref.app)
    .post(path)
    .set(ref.auth(label))
    .set("Content-Type", "application/json")
    .send(jsonText(body));

const list = async (ref: TestReference, path: string, label = "lumiere-full") =>
  expectData(await request(ref.app).get(`${path}?limit=200`).set(ref.auth(label)), 200) as unknown[];

async function allFilesText(): Promise<string> {
  const names = await readdir(dir);
  const texts = await Promise.all(names.map((n) => readFile(join(dir, n), "utf8")));
  return texts.join("\n");
}

const journalName = async () => (await readdir(dir)).find((n) => n.startsWith("journal-")) ?? "";
const journalText = async () => readFile(join(dir, await journalName()), "utf8");

describe("--data: a restart serves the same state", () => {
  it("seeds a new folder from the fixtures and says so", async () => {
    const ref = await start();
    expect(ref.data).toMatchObject({ status: "new", dir, seededFrom: defaultFixturesDir(), torn: null });
    expect((await readdir(dir)).sort()).toEqual(["journal-1.log", "lock", "state.json"]);
    const again = await restart(ref);
    expect(again.data).toMatchObject({ status: "loaded", journalChanges: 0, fixturesChanged: false });
  });

  it("keeps created contacts and products, each price as its exact text", async () => {
    const ref = await start();
    const contact = expectData(
      await post(ref, "/api/v1/contacts", {
        type: "BOTH",
        name: "Café Ünïcode 😀",
        email: "a@example.com",
        phone: "+1 514 555 0000",
        address: "1 rue X, Montréal",
        taxNumberTPS: "123456789RT0001",
        taxNumberTVQ: "1234567890TQ0001",
      }),
      201,
    ) as { id: string };
    for (const [sku, price] of [
      ["P-1", "999999999999.9999"],
      ["P-2", "0.0001"],
      ["P-3", "12.5"],
    ] as const) {
      expectData(
        await post(ref, "/api/v1/products", { sku, name: sku, unitPrice: new RawNumber(price) }),
        201,
      );
    }
    const contacts = await list(ref, "/api/v1/contacts");
    const products = await list(ref, "/api/v1/products");

    const again = await restart(ref);
    expect(again.data).toMatchObject({ status: "loaded", journalChanges: expect.any(Number) as number });
    expect(await list(again, "/api/v1/contacts")).toEqual(contacts);
    expect(await list(again, "/api/v1/products")).toEqual(products);
    expect((contacts as { id: string }[]).map((c) => c.id)).toContain(contact.id);
    const prices = (products as { sku: string; unitPrice: string }[]).filter((p) => p.sku.startsWith("P-"));
    expect(prices.map((p) => p.unitPrice).sort()).toEqual(["0.0001", "12.5000", "999999999999.9999"]);
    expect(await journalText()).toContain('"unitPrice":"999999999999.9999"');
  });

  it("answers 201 only once the change is in the journal", async () => {
    const ref = await start();
    const created = expectData(
      await post(ref, "/api/v1/products", { sku: "ON-DISK", name: "x", unitPrice: 1 }),
      201,
    ) as { id: string };
    // Read while the server still runs: the answer came after the write, not at close.
    expect(await journalText()).toContain(created.id);
  });

  it("journals nothing for a refused request", async () => {
    const ref = await start();
    expectData(await post(ref, "/api/v1/products", { sku: "TAKEN", name: "x", unitPrice: 1 }), 201);
    const before = await journalText();
    const refused = [
      await post(ref, "/api/v1/products", { sku: "TAKEN", name: "duplicate", unitPrice: 1 }),
      await post(ref, "/api/v1/products", { sku: "NEG", name: "x", unitPrice: -1 }),
      await post(ref, "/api/v1/contacts", { type: "NOPE", name: "x" }),
      await post(ref, "/api/v1/contacts", { type: "CLIENT", name: "x" }, "lumiere-contacts-read"),
      await post(ref, "/api/v1/contacts", { type: "CLIENT", name: "x" }, "lumiere-revoked"),
      await request(ref.app).post("/api/v1/invoices").set(ref.auth("lumiere-full")).send({}),
    ];
    expect(refused.map((r) => r.status)).toEqual([400, 400, 400, 403, 401, 404]);
    await ref.state.durable();
    expect(await journalText()).toBe(before);
  });

  it("keeps tokens created and revoked by their hash, never in clear, with their usage after a clean close", async () => {
    const ref = await start();
    const { token, view } = ref.tokens.create({
      organizationId: "org_lumiere",
      name: "made at runtime",
      scopes: ["contacts:read"],
    });
    for (let i = 0; i < 3; i += 1) {
      expect(
        (await request(ref.app).get("/api/v1/contacts").set("Authorization", `Bearer ${token}`)).status,
      ).toBe(200);
    }
    const revokedId = ref.tokenId("lumiere-expiring");
    clock.advance(1000);
    const revoked = ref.tokens.revoke(revokedId);
    await ref.state.durable();
    expect(await allFilesText()).not.toContain(token);

    const again = await restart(ref);
    const resolved = again.tokens.lookup(token);
    expect(resolved.ok && resolved.token).toMatchObject({
      id: view.id,
      name: "made at runtime",
      requestCount: 3,
      lastUsedAt: new Date(TEST_NOW),
      status: "Active",
    });
    expect(again.tokens.get(revokedId)).toMatchObject({ status: "Revoked", revokedAt: revoked.revokedAt });
    const res = await request(again.app).get("/api/v1/contacts").set(again.auth("lumiere-expiring"));
    expect(res.status).toBe(401);
    expect(await allFilesText()).not.toContain(token);
    expect(await allFilesText()).not.toContain(again.token("lumiere-full"));
  });

  it("keeps the clock once set, running or frozen, forgets it once restored, and lets --now win", async () => {
    const ref = await start();
    ref.control.setClock({ now: "2030-01-01T00:00:00Z", frozen: true });
    let again = await restart(ref);
    expect(again.control.clock()).toMatchObject({ now: "2030-01-01T00:00:00.000Z", frozen: true });

    again.control.setClock({ frozen: false });
    clock.advance(5000);
    again = await restart(again);
    expect(again.control.clock()).toMatchObject({ now: "2030-01-01T00:00:05.000Z", frozen: false });

    again = await restart(again, { now: new Date("2028-06-01T00:00:00Z") });
    expect(again.control.clock().now).toBe("2028-06-01T00:00:00.000Z");
    again = await restart(again);
    expect(again.control.clock().now).toBe(clock.now().toISOString());

    again.control.setClock({ now: "2031-01-01T00:00:00Z" });
    again.control.restoreClock();
    again = await restart(again);
    expect(again.control.clock()).toMatchObject({ now: clock.now().toISOString(), offsetMs: 0 });
  });

  it("keeps a reset: everything back to the fixtures, or one organization only", async () => {
    const ref = await start();
    const fixtures = await list(ref, "/api/v1/products");
    const boreal = await list(ref, "/api/v1/products", "boreal-full");
    expectData(await post(ref, "/api/v1/products", { sku: "GONE", name: "x", unitPrice: 1 }), 201);
    expectData(
      await post(ref, "/api/v1/products", { sku: "B-KEPT", name: "x", unitPrice: 1 }, "boreal-full"),
      201,
    );
    ref.tokens.revoke(ref.tokenId("lumiere-full"));
    ref.control.reset({ organization: "org_lumiere" });
    await ref.control.durable();

    let again = await restart(ref);
    expect(await list(again, "/api/v1/products")).toEqual(fixtures);
    expect((await list(again, "/api/v1/products", "boreal-full")).length).toBe(boreal.length + 1);
    expect(again.tokens.get(again.tokenId("lumiere-full"))?.status).toBe("Active");

    again.control.reset();
    await again.control.durable();
    again = await restart(again);
    expect(await list(again, "/api/v1/products", "boreal-full")).toEqual(boreal);
    expect(again.data).toMatchObject({ journalChanges: 0 });
  });

  it("compacts the journal into a new snapshot past its size limit; a restart reads it back whole", async () => {
    const ref = await start({ persistence: { compactAfterBytes: 20_000 } });
    const at = new Date(TEST_NOW);
    // Enough contacts that their journal lines pass the limit, added in one go.
    const count = 200;
    for (let n = 0; n < count; n += 1) {
      ref.store.add({
        type: "contact",
        data: storedContact({ id: `con_bulk${n}`, organizationId: "org_boreal", name: `Bulk ${n}`, at }),
      });
    }
    await ref.state.durable();
    // The write that crossed the line asked for a snapshot: let it run.
    for (let i = 0; i < 50 && (ref.dataStats()?.snapshots ?? 0) < 2; i += 1) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(ref.dataStats()?.snapshots).toBeGreaterThanOrEqual(2);
    expect(await readdir(dir)).not.toContain("journal-1.log");
    const again = await restart(ref);
    expect(again.store.countContacts("org_boreal")).toBe(10 + count);
  });

  it("once a write fails, says so and answers every later write with a 500, never a 201", async () => {
    const failures: Error[] = [];
    const ref = await start({ onPersistenceFailure: (err) => failures.push(err) });
    await rm(dir, { recursive: true });
    ref.control.reset(); // a snapshot, into a folder that is gone
    await expect(ref.control.durable()).rejects.toThrow(
      /writing the state failed .*ENOENT.*nothing more is saved/,
    );
    expect(failures).toHaveLength(1);
    const res = await post(ref, "/api/v1/products", { sku: "LOST", name: "x", unitPrice: 1 });
    expect(res.status).toBe(500);
  });

  it("never writes to the fixtures, and creates a missing folder", async () => {
    const fixturesDir = await mkdtemp(join(tmpdir(), "reference-fixtures-"));
    try {
      await cp(defaultFixturesDir(), fixturesDir, { recursive: true });
      const digest = await fixturesDigest(fixturesDir);
      const mtimes = async () =>
        Promise.all(
          (await readdir(fixturesDir)).map(async (n) => (await stat(join(fixturesDir, n))).mtimeMs),
        );
      const before = await mtimes();
      dir = join(root, "nested", "data");
      const ref = await start({ fixturesDir });
      expectData(await post(ref, "/api/v1/products", { sku: "X", name: "x", unitPrice: 1 }), 201);
      ref.control.reset();
      await ref.control.durable();
      await restart(ref, { fixturesDir });
      expect(await fixturesDigest(fixturesDir)).toBe(digest);
      expect(await mtimes()).toEqual(before);
    } finally {
      await rm(fixturesDir, { recursive: true, force: true });
    }
  });
});

describe("DataDir", () => {
  const source = (): StateSource => ({
    image: () => ({
      organizations: [],
      accounts: [],
      contacts: [],
      products: [],
      invoices: [],
      expenses: [],
      tokens: [],
      clock: null,
    }),
    takeLazy: () => [],
  });
  const org = (n: number): Change => ({
    type: "organization",
    data: { id: `org_${n}`, name: "x", plan: "BUSINESS" },
  });

  /** A data directory started over an empty state, closed once `run` is done. */
  async function started(run: (dataDir: DataDir) => Promise<void>): Promise<void> {
    const { dataDir, loaded } = await DataDir.open({
      dir,
      tokenPrefix: "acct",
      fixturesDir: defaultFixturesDir(),
    });
    try {
      await dataDir.start(source(), loaded, 0);
      await run(dataDir);
    } finally {
      await dataDir.close();
    }
  }

  it("writes the changes recorded while a write is under way together, with one fsync", async () => {
    await started(async (dataDir) => {
      dataDir.record(org(0));
      const first = dataDir.durable();
      for (let n = 1; n <= 100; n += 1) dataDir.record(org(n));
      const waits = Array.from({ length: 100 }, () => dataDir.durable());
      await Promise.all([first, ...waits]);
      expect(dataDir.stats).toMatchObject({ changes: 101, writes: 2 });
    });
  });

  it("resolves durable() at once when nothing is pending", async () => {
    await started(async (dataDir) => {
      await dataDir.durable();
      expect(dataDir.stats.writes).toBe(0);
    });
  });
});
