import { describe, expect } from "vitest";
import { CONTROL_KEY, controlledReference } from "../../test-support/control.js";
import { snapshotOf } from "../../test-support/sandboxes.js";
import { ControlClient, ControlError, type SandboxClient } from "../../clients/control.js";
import { serverTest } from "../../test-support/serve.js";
import { seedContact } from "../../test-support/records.js";

// 20 sandboxes driven at once from 20 separate clients against one listening reference, as 20 test
// workers would, every step awaited so that their requests interleave: no client sees what another
// did, and the default state sees nothing at all.

const WORKERS = 20;
const CONTACTS = 5;

const it = serverTest;

describe("20 sandboxes in parallel", () => {
  it("each client sees its own records, clock, faults and journal, and nothing of the others'", async ({
    serve,
  }) => {
    const ref = await controlledReference();
    const baseUrl = `http://127.0.0.1:${await serve(ref.app)}`;
    const defaultBefore = snapshotOf(ref.state);

    const run = async (worker: number) => {
      const control = new ControlClient({ baseUrl, key: CONTROL_KEY });
      const start = new Date(Date.UTC(2030, 0, 1 + worker)).toISOString();
      const sandbox: SandboxClient = await control.createSandbox({ now: start });
      const token = sandbox.tokens["lumiere-full"] ?? "";
      const api = (path: string, init: RequestInit = {}) =>
        fetch(`${baseUrl}${path}`, {
          ...init,
          headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
        });
      const names: string[] = [];
      for (let i = 0; i < CONTACTS; i++) {
        const name = `worker ${worker} contact ${i}`;
        names.push(name);
        const res = await api("/api/v1/contacts", {
          method: "POST",
          body: JSON.stringify({ type: "CLIENT", name }),
        });
        expect(res.status).toBe(201);
      }
      // A fault that holds until cleared: every read of this worker fails, no other worker's.
      const fault = await sandbox.addFault({ path: "/api/v1/products", status: 500, untilCleared: true });
      for (let i = 0; i < 3; i++) expect((await api("/api/v1/products")).status).toBe(500);
      await sandbox.clearFault(fault.id);
      expect((await api("/api/v1/products")).status).toBe(200);
      // Its own clock.
      await sandbox.advanceClock(`PT${worker + 1}H`);
      const created = await api("/api/v1/contacts", {
        method: "POST",
        body: JSON.stringify({ type: "SUPPLIER", name: `worker ${worker} late` }),
      });
      const late = ((await created.json()) as { data: { createdAt: string } }).data.createdAt;
      expect(late).toBe(new Date(Date.parse(start) + (worker + 1) * 3_600_000).toISOString());
      // Seeded in bulk, and waited for.
      await sandbox.addRecords({
        contacts: [seedContact(sandbox.organizations.org_lumiere ?? "", { name: `worker ${worker} seeded` })],
      });
      const waited = sandbox.waitForRequest({ method: "GET", path: "/api/v1/invoices", timeoutMs: 10_000 });
      await api("/api/v1/invoices?status=PAID");
      expect((await waited).query).toBe("status=PAID");
      const list = (await (await api("/api/v1/contacts?limit=200")).json()) as { data: { name: string }[] };
      const journal = await sandbox.journal();
      return { worker, sandbox, names, list: list.data.map((c) => c.name), journal, fault: fault.id };
    };

    const results = await Promise.all(Array.from({ length: WORKERS }, (_, i) => run(i)));

    for (const { worker, sandbox, names, list, journal } of results) {
      const mine = list.filter((n) => n.startsWith("worker "));
      expect(mine.sort()).toEqual([...names, `worker ${worker} late`, `worker ${worker} seeded`].sort());
      // Every journal entry is this sandbox's: its token, its organization, its requests only.
      expect(journal.length).toBe(CONTACTS + 3 + 1 + 1 + 1 + 1);
      for (const entry of journal) {
        expect(entry.token).toBe("lumiere-full");
        expect(entry.organization).toBe(sandbox.organizations.org_lumiere);
      }
      expect(journal.filter((e) => e.status === 500)).toHaveLength(3);
      expect(await sandbox.faults()).toEqual([]);
    }
    expect(new Set(results.map((r) => r.sandbox.id)).size).toBe(WORKERS);
    expect(snapshotOf(ref.state)).toEqual(defaultBefore);

    // Deleted, each is gone for its own client and nobody else's.
    const [first, ...rest] = results;
    await first?.sandbox.delete();
    await expect(first?.sandbox.clock()).rejects.toBeInstanceOf(ControlError);
    for (const { sandbox } of rest) expect((await sandbox.clock()).now).toMatch(/^2030-01-/);
    const control = new ControlClient({ baseUrl, key: CONTROL_KEY });
    expect((await control.sandboxes()).length).toBe(WORKERS - 1);
  });
});
