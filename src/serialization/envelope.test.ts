import request from "supertest";
import { beforeAll, describe, expect, it } from "vitest";
import type { Contact } from "../model/records.js";
import { testReference, type TestReference } from "../test-support/reference.js";
import { dataBody, JSON_CONTENT_TYPE } from "./envelope.js";
import { toContact, toExpense, toInvoice, toProduct } from "./resources.js";

const ALL = { limit: 1_000_000 };

describe("the success envelope's bytes", () => {
  let ref: TestReference;
  beforeAll(async () => {
    ref = await testReference();
  });

  // A spread copy is not frozen, so it is serialized afresh: the kept text must be the same bytes.
  function expectSameText<R extends object>(records: readonly R[], serialize: (record: R) => object): void {
    const expected = JSON.stringify({ data: records.map((r) => serialize({ ...r })) });
    expect(dataBody(records.map(serialize)).toString()).toBe(expected);
    expect(dataBody(records.map(serialize)).toString()).toBe(expected);
  }

  it("is JSON.stringify({ data }) for every fixture list, on the first read and on later ones", () => {
    for (const { id } of ref.store.organizations()) {
      expectSameText(ref.store.listContacts(id, ALL), toContact);
      expectSameText(ref.store.listProducts(id, ALL), toProduct);
      expectSameText(ref.store.listInvoices(id, ALL), toInvoice);
      expectSameText(ref.store.listExpenses(id, ALL), toExpense);
    }
  });

  it("keeps one shape per stored record, frozen with what it holds", () => {
    const [invoice] = ref.store.listInvoices("org_lumiere", { limit: 1 });
    if (invoice === undefined) throw new Error("no invoice in the fixtures");
    const shape = toInvoice(invoice);
    expect(toInvoice(invoice)).toBe(shape);
    expect(Object.isFrozen(shape)).toBe(true);
    expect(Object.isFrozen(shape.contact)).toBe(true);
  });

  it("serves a record that is not frozen as it is now, and keeps nothing of it", () => {
    const [stored] = ref.store.listContacts("org_lumiere", { limit: 1 });
    if (stored === undefined) throw new Error("no contact in the fixtures");
    const loose: Contact = { ...stored };
    const before = dataBody([toContact(loose)]).toString();
    loose.name = "Renamed";
    expect(dataBody([toContact(loose)]).toString()).not.toBe(before);
    expect(JSON.parse(dataBody([toContact(loose)]).toString())).toEqual({
      data: [{ ...toContact(stored), name: "Renamed" }],
    });
  });

  it("is JSON.stringify for whatever else a handler answers", () => {
    for (const data of [{ a: 1, b: [null, "é"] }, [], [1, "x", null, { c: true }], "text"]) {
      expect(dataBody(data).toString()).toBe(JSON.stringify({ data }));
    }
  });
});

describe("a list answer over HTTP", () => {
  it("has the headers res.json gave it: JSON with its charset, the length in bytes, no ETag", async () => {
    const ref = await testReference();
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
