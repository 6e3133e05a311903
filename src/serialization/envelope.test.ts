import request from "supertest";
import { describe, expect } from "vitest";
import type { Contact, Stored } from "../model/records.js";
import { referenceTest } from "../test-support/reference.js";

const it = referenceTest();
import { cachedBytes, dataBytes, JSON_CONTENT_TYPE, jsonBytes, listBytes } from "./envelope.js";
import { toContact, toExpense, toInvoice, toProduct } from "./resources.js";

const ALL = { limit: 1_000_000 };

describe("the success envelope's bytes", () => {
  // A spread copy is not stored, so it is serialized afresh: the kept bytes must be the same.
  function expectSameText<R extends object>(
    records: readonly Stored<R>[],
    serialize: (record: R) => object,
  ): void {
    const bytesOf = cachedBytes(serialize);
    const expected = JSON.stringify({ data: records.map((r) => serialize({ ...r })) });
    expect(listBytes(records.map(bytesOf)).toString()).toBe(expected);
    expect(listBytes(records.map(bytesOf)).toString()).toBe(expected);
  }

  it("is JSON.stringify({ data }) for every fixture list, on the first read and on later ones", ({ ref }) => {
    for (const { id } of ref.store.organizations()) {
      expectSameText(ref.store.listContacts(id, ALL), toContact);
      expectSameText(ref.store.listProducts(id, ALL), toProduct);
      expectSameText(ref.store.listInvoices(id, ALL), toInvoice);
      expectSameText(ref.store.listExpenses(id, ALL), toExpense);
    }
  });

  it("keeps one encoding per stored record, made on its first read", ({ ref }) => {
    const [invoice] = ref.store.listInvoices("org_lumiere", { limit: 1 });
    if (invoice === undefined) throw new Error("no invoice in the fixtures");
    let made = 0;
    const bytesOf = cachedBytes((i: typeof invoice) => {
      made += 1;
      return toInvoice(i);
    });
    const first = bytesOf(invoice);
    expect(bytesOf(invoice)).toBe(first);
    expect(made).toBe(1);
  });

  it("keeps bytes only for what the store keeps: a record it did not store is refused by its type", ({
    ref,
  }) => {
    const [kept] = ref.store.listContacts("org_lumiere", { limit: 1 });
    if (kept === undefined) throw new Error("no contact in the fixtures");
    const loose: Contact = { ...kept };
    const bytesOf = cachedBytes(toContact);
    expect(Object.isFrozen(kept)).toBe(true);
    // @ts-expect-error: a record the store did not keep may still change, so it has no bytes to keep
    expect(bytesOf(loose).toString()).toBe(JSON.stringify(toContact(kept)));
  });

  it("wraps one item as JSON.stringify({ data }) does", () => {
    for (const data of [{ a: 1, b: [null, "é"] }, [], [1, "x", null, { c: true }], "text"]) {
      expect(dataBytes(jsonBytes(data)).toString()).toBe(JSON.stringify({ data }));
    }
  });
});

describe("a list answer over HTTP", () => {
  it("has the headers res.json gave it: JSON with its charset, the length in bytes, no ETag", async ({
    ref,
  }) => {
    // Montréal, Québec: the fixtures hold non-ASCII text, so bytes and characters differ in number.
    const res = await request(ref.app).get("/api/v1/contacts?limit=200").set(ref.auth("lumiere-full"));
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe(JSON_CONTENT_TYPE);
    expect(res.headers["content-length"]).toBe(String(Buffer.byteLength(res.text)));
    expect(res.text.length).toBeLessThan(Buffer.byteLength(res.text));
    expect(res.headers.etag).toBeUndefined();
    expect(res.headers["transfer-encoding"]).toBeUndefined();
    expect(res.headers["access-control-allow-origin"]).toBe("*");
    expect(res.text).toBe(
      JSON.stringify({
        data: ref.store.listContacts("org_lumiere", { limit: 200 }).map((c) => toContact({ ...c })),
      }),
    );
  });
});
