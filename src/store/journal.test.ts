import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FC_SEED } from "../test-support/tokens.js";
import { JOURNAL_BODY_BUDGET, JOURNAL_BODY_CAP, Journal, type JournalRecord } from "./journal.js";

// The journal's rows and its ring of bodies, against a plain list of what was recorded.

const record = (i: number, body: Uint8Array | null, organization: string | null = null): JournalRecord => ({
  time: new Date(i * 1000),
  method: i % 2 === 0 ? "GET" : "POST",
  path: `/p${i}`,
  query: "",
  status: i % 5 === 0 ? null : 200,
  token: null,
  organization,
  durationMs: i / 10,
  fault: null,
  requestBody: body,
  responseBody: body === null ? null : body.subarray(0, Math.floor(body.length / 2)),
});

/** A body of `size` bytes, each the entry's number mod 26 as a letter: a body shown is known by its text. */
const bodyOf = (i: number, size: number) => Buffer.alloc(size, String.fromCharCode(97 + (i % 26)));

describe("the journal's bodies", () => {
  it("shows each body whole (its first 4 KiB) or, once later bodies took its place, none; the newest always", () => {
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.integer({ min: 0, max: 3 * JOURNAL_BODY_CAP }), { nil: null }), {
          minLength: 1,
          maxLength: 700,
        }),
        fc.integer({ min: 1, max: 300 }),
        (sizes, capacity) => {
          const journal = new Journal({ capacity });
          sizes.forEach((size, i) => journal.record(record(i, size === null ? null : bodyOf(i, size))));
          const entries = journal.list();
          expect(entries).toHaveLength(Math.min(capacity, sizes.length));
          let kept = 0;
          entries.forEach((entry, k) => {
            const i = sizes.length - 1 - k;
            const size = sizes[i] ?? null;
            expect(entry.path).toBe(`/p${i}`);
            expect(entry.status).toBe(i % 5 === 0 ? null : 200);
            if (size === null) {
              expect(entry.requestBody).toBeNull();
              return;
            }
            const shown = Math.min(size, JOURNAL_BODY_CAP);
            expect(entry.requestBody?.bytes).toBe(size);
            if (entry.requestBody?.text === "") {
              expect(entry.requestBody.truncated || size === 0).toBe(true);
            } else {
              expect(entry.requestBody?.text).toBe(bodyOf(i, shown).toString());
              expect(entry.requestBody?.truncated).toBe(shown < size);
              kept += shown;
            }
            if (k === 0) expect(entry.requestBody?.text).toBe(bodyOf(i, shown).toString());
          });
          expect(kept).toBeLessThanOrEqual(JOURNAL_BODY_BUDGET);
        },
      ),
      { seed: FC_SEED, numRuns: 40 },
    );
  });

  it("keeps the bodies of the entries a cleared organization leaves", () => {
    const journal = new Journal({ capacity: 10 });
    for (let i = 0; i < 15; i++) journal.record(record(i, bodyOf(i, 100), i % 3 === 0 ? "org_a" : "org_b"));
    expect(journal.clear("org_a")).toBe(3);
    const entries = journal.list();
    expect(entries.map((e) => e.path)).toEqual(["/p14", "/p13", "/p11", "/p10", "/p8", "/p7", "/p5"]);
    for (const e of entries) {
      const i = Number(e.path.slice(2));
      expect(e.requestBody?.text).toBe(bodyOf(i, 100).toString());
      expect(e.responseBody?.text).toBe(bodyOf(i, 50).toString());
    }
    journal.record(record(15, bodyOf(15, 10), "org_a"));
    expect(journal.list({ limit: 2 }).map((e) => e.path)).toEqual(["/p15", "/p14"]);
  });
});
