import { appendFile, mkdtemp, readdir, readFile, rm, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import request from "supertest";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../model/clock.js";
import { TEST_NOW, expectData, testReference, type TestReference } from "../../test-support/reference.js";
import { frame } from "./format.js";
import { DataError } from "./load.js";

// What a start does with a folder a crash, a disk or a hand has changed: a torn last record is
// dropped and said; anything else that does not check is a refusal naming the file, the record and
// the reason, and the folder is left as it was.

let dir: string;
const open: TestReference[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "reference-data-"));
});

afterEach(async () => {
  for (const ref of open.splice(0)) await ref.close();
  await rm(dir, { recursive: true, force: true });
});

async function start(): Promise<TestReference> {
  const ref = await testReference({ clock: new ManualClock(TEST_NOW), dataDir: dir });
  open.push(ref);
  return ref;
}

async function stop(ref: TestReference): Promise<void> {
  await ref.close();
  open.splice(open.indexOf(ref), 1);
}

const JOURNAL = () => join(dir, "journal-1.log");

/** A folder whose journal holds three products (and the creator's usage), closed cleanly. */
async function folderWithThreeProducts(): Promise<string[]> {
  const ref = await start();
  const ids: string[] = [];
  for (const sku of ["A", "B", "C"]) {
    const res = await request(ref.app).post("/api/v1/products").set(ref.auth("lumiere-full")).send({
      sku,
      name: sku,
      unitPrice: 1,
    });
    ids.push((expectData(res, 201) as { id: string }).id);
  }
  await stop(ref);
  return ids;
}

async function journalLines(): Promise<string[]> {
  return (await readFile(JOURNAL(), "utf8")).split("\n").slice(0, -1);
}

async function snapshotOfFolder(): Promise<Record<string, string>> {
  const names = (await readdir(dir)).filter((n) => n !== "lock");
  return Object.fromEntries(
    await Promise.all(names.map(async (n) => [n, await readFile(join(dir, n), "utf8")])),
  );
}

async function expectRefusal(pattern: RegExp): Promise<void> {
  const before = await snapshotOfFolder();
  const refused = await start().then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(refused).toBeInstanceOf(DataError);
  expect((refused as Error).message).toMatch(pattern);
  // Never a silent reset: the folder is as it was, and free for the next try.
  expect(await snapshotOfFolder()).toEqual(before);
  expect(await readdir(dir)).not.toContain("lock");
}

const skus = (ref: TestReference) =>
  ref.store
    .listProducts("org_lumiere", { limit: 1000 })
    .map((p) => p.sku)
    .filter((s) => s.length === 1)
    .sort();

describe("a torn last record", () => {
  it("without its end of line is dropped, said, and cut before anything is appended", async () => {
    await folderWithThreeProducts();
    const lines = await journalLines();
    const last = lines.at(-1) ?? "";
    await writeFile(JOURNAL(), `${lines.slice(0, -1).join("\n")}\n${last.slice(0, 40)}`);

    const ref = await start();
    expect(ref.data?.torn).toMatchObject({ file: JOURNAL(), record: lines.length, bytes: 40 });
    expect(ref.data?.torn?.reason).toMatch(/no end of line/);
    expect(skus(ref).length).toBeGreaterThanOrEqual(2);
    await request(ref.app).post("/api/v1/products").set(ref.auth("lumiere-full")).send({
      sku: "D",
      name: "D",
      unitPrice: 1,
    });
    await stop(ref);

    const again = await start();
    expect(again.data?.torn).toBeNull();
    expect(skus(again)).toContain("D");
  });

  it("whose checksum fails (cut inside, its newline written) is dropped too", async () => {
    const ids = await folderWithThreeProducts();
    const lines = await journalLines();
    // Find the line of the third product and make it the last one, damaged.
    const third = lines.findIndex((l) => l.includes(ids[2] ?? "?"));
    const damaged = (lines[third] ?? "").replace('"name":"C"', '"name":"Z"');
    await writeFile(JOURNAL(), [...lines.slice(0, third), damaged].join("\n") + "\n");
    const ref = await start();
    expect(ref.data?.torn?.reason).toMatch(/checksum/);
    expect(skus(ref)).toEqual(["A", "B"]);
  });

  it("that is the journal's header (a crash as the journal was made) leaves the snapshot whole", async () => {
    await start().then(stop);
    await writeFile(JOURNAL(), "0000");
    const ref = await start();
    expect(ref.data?.torn?.record).toBe(1);
    expect(ref.store.countContacts("org_lumiere")).toBe(24);
  });
});

describe("a folder that does not check is refused", () => {
  it("on a damaged record before the last, naming the file, the record and the reason", async () => {
    await folderWithThreeProducts();
    const lines = await journalLines();
    lines[1] = (lines[1] ?? "").replace('"sku":"A"', '"sku":"Q"');
    await writeFile(JOURNAL(), lines.join("\n") + "\n");
    await expectRefusal(/journal-1\.log: record 2: checksum [0-9a-f]{8} does not match/);
  });

  it("on a record whose checksum holds but that is not a change of this format, even the last", async () => {
    await folderWithThreeProducts();
    const lines = await journalLines();
    const seq = lines.length; // header + (lines - 1) changes: the next is `lines.length`
    await appendFile(JOURNAL(), frame(JSON.stringify({ seq, change: { type: "invoice-paid", data: {} } })));
    await expectRefusal(/journal-1\.log: record \d+: field "change.type"/);
  });

  it("on a change that cannot be applied (a product already there)", async () => {
    await folderWithThreeProducts();
    const lines = await journalLines();
    const product = lines.find((l) => l.includes('"type":"product"')) ?? "";
    const entry = JSON.parse(product.slice(9)) as { seq: number };
    entry.seq = lines.length;
    await appendFile(JOURNAL(), frame(JSON.stringify(entry)));
    await expectRefusal(/journal-1\.log: record \d+: cannot be applied \(duplicate sku A\)/);
  });

  it("on a gap in the change numbers", async () => {
    await folderWithThreeProducts();
    const lines = await journalLines();
    await writeFile(JOURNAL(), [lines[0], ...lines.slice(2)].join("\n") + "\n");
    await expectRefusal(/journal-1\.log: record 2: change number 2, expected 1/);
  });

  it("on a damaged snapshot", async () => {
    await start().then(stop);
    const text = await readFile(join(dir, "state.json"), "utf8");
    await writeFile(join(dir, "state.json"), text.replace("Studio Lumière", "Studio Lumiere"));
    await expectRefusal(/state\.json: the snapshot: checksum/);
  });

  it("on a snapshot of another format version, saying so", async () => {
    await start().then(stop);
    const text = await readFile(join(dir, "state.json"), "utf8");
    const json = text.slice(9, -1).replace('"version":1', '"version":2');
    await writeFile(join(dir, "state.json"), frame(json));
    await expectRefusal(/state\.json: format version 2; this reference reads version 1/);
  });

  it("on tokens made with another prefix", async () => {
    await start().then(stop);
    const refused = await testReference({ dataDir: dir, tokenPrefix: "dev" }).catch((err: unknown) => err);
    expect((refused as Error).message).toMatch(/prefix "acct", not "dev"/);
  });

  it("on a folder that holds files of its own", async () => {
    await writeFile(join(dir, "notes.txt"), "mine");
    await expectRefusal(/is not empty \(notes\.txt\); give an empty or new folder/);
  });
});

describe("what an interrupted snapshot leaves", () => {
  it("a snapshot without its journal (a crash between the two) is loaded alone", async () => {
    await folderWithThreeProducts();
    const ref = await start();
    ref.control.reset();
    await ref.control.durable();
    await stop(ref);
    await unlink(join(dir, "journal-2.log"));
    const again = await start();
    expect(again.data).toMatchObject({ status: "loaded", journalChanges: 0, torn: null });
    expect(skus(again)).toEqual([]);
    expect(await readdir(dir)).toContain("journal-2.log");
  });

  it("a temporary snapshot, an older journal and a dead server's lock temporary are removed", async () => {
    await start().then(stop);
    await writeFile(join(dir, "state.json.123456"), "half a snapshot");
    await writeFile(join(dir, "journal-0.log"), "an old journal");
    await writeFile(join(dir, "lock.999999999.tmp"), "999999999\n"); // no such PID: a dead server's
    const ref = await start();
    expect(ref.data?.status).toBe("loaded");
    expect((await readdir(dir)).sort()).toEqual(["journal-1.log", "lock", "state.json"]);
  });
});
