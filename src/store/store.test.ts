import { Decimal } from "decimal.js";
import { describe, expect, it } from "vitest";
import type { Contact, Product } from "../model/records.js";
import { Store } from "./store.js";
import { storedContact } from "../test-support/records.js";

const at = (iso: string) => new Date(iso);

const contact = (id: string, organizationId: string, type: Contact["type"], createdAt: string): Contact =>
  storedContact({ id, organizationId, type, name: id, at: at(createdAt) });

const product = (id: string, organizationId: string, sku: string): Product => ({
  id,
  organizationId,
  sku,
  name: sku,
  description: null,
  type: "PRODUCT",
  unitPrice: new Decimal("1"),
  taxable: true,
  createdAt: at("2026-01-01T00:00:00.000Z"),
  updatedAt: at("2026-01-01T00:00:00.000Z"),
});

function twoOrganizations(): Store {
  const store = new Store();
  store.add({ type: "organization", data: { id: "a", name: "A", plan: "BUSINESS" } });
  store.add({ type: "organization", data: { id: "b", name: "B", plan: "BUSINESS" } });
  return store;
}

describe("Store", () => {
  it("keeps each organization's records out of the other's lists and lookups", () => {
    const store = twoOrganizations();
    store.add({ type: "contact", data: contact("c1", "a", "CLIENT", "2026-01-01T00:00:00.000Z") });
    store.add({ type: "product", data: product("p1", "a", "SKU") });
    expect(store.listContacts("b", { limit: 50 })).toEqual([]);
    expect(store.contact("b", "c1")).toBeUndefined();
    expect(store.productBySku("b", "SKU")).toBeUndefined();
    expect(store.listProducts("b", { limit: 50 })).toEqual([]);
  });

  it("filters contacts by exact type through its own index", () => {
    const store = twoOrganizations();
    store.add({ type: "contact", data: contact("c1", "a", "CLIENT", "2026-01-01T00:00:00.000Z") });
    store.add({ type: "contact", data: contact("c2", "a", "BOTH", "2026-01-02T00:00:00.000Z") });
    store.add({ type: "contact", data: contact("c3", "a", "CLIENT", "2026-01-03T00:00:00.000Z") });
    expect(store.listContacts("a", { limit: 50, type: "CLIENT" }).map((c) => c.id)).toEqual(["c3", "c1"]);
    expect(store.listContacts("a", { limit: 50, type: "SUPPLIER" })).toEqual([]);
    expect(store.listContacts("a", { limit: 1 }).map((c) => c.id)).toEqual(["c3"]);
  });

  it("allows one sku per organization, the same sku in another", () => {
    const store = twoOrganizations();
    store.add({ type: "product", data: product("p1", "a", "SKU") });
    store.add({ type: "product", data: product("p2", "b", "SKU") });
    expect(() => store.add({ type: "product", data: product("p3", "a", "SKU") })).toThrow(/duplicate sku/);
    expect(store.productBySku("a", "sku")).toBeUndefined();
  });

  it("freezes what it stores, so no caller can change a record in place", () => {
    const store = twoOrganizations();
    store.add({ type: "contact", data: contact("c1", "a", "CLIENT", "2026-01-01T00:00:00.000Z") });
    const [stored] = store.listContacts("a", { limit: 1 });
    expect(Object.isFrozen(stored)).toBe(true);
  });

  it("refuses records of an unknown organization and duplicate ids", () => {
    const store = twoOrganizations();
    expect(() =>
      store.add({ type: "contact", data: contact("c1", "zz", "CLIENT", "2026-01-01T00:00:00.000Z") }),
    ).toThrow(/unknown organization/);
    store.add({ type: "contact", data: contact("c1", "a", "CLIENT", "2026-01-01T00:00:00.000Z") });
    expect(() =>
      store.add({ type: "contact", data: contact("c1", "a", "BOTH", "2026-01-02T00:00:00.000Z") }),
    ).toThrow(/duplicate id/);
  });

  it("serves contacts created within one millisecond last added first, whatever their ids", () => {
    const store = twoOrganizations();
    for (const id of ["c2", "c9", "c1"])
      store.add({ type: "contact", data: contact(id, "a", "CLIENT", "2026-01-01T00:00:00.000Z") });
    expect(store.listContacts("a", { limit: 50 }).map((c) => c.id)).toEqual(["c1", "c9", "c2"]);
    expect(store.listContacts("a", { limit: 50, type: "CLIENT" }).map((c) => c.id)).toEqual([
      "c1",
      "c9",
      "c2",
    ]);
  });
});
