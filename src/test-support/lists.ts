import request, { type Response } from "supertest";
import type { z } from "zod";
import { CONTACT_TYPES, EXPENSE_STATUSES, INVOICE_STATUSES } from "../model/records.js";
import { ContactJson, ExpenseJson, InvoiceJson, ProductJson } from "../serialization/resources.js";
import type { Addition } from "../store/store.js";
import {
  expectData,
  readFixture,
  referenceTest,
  type FixtureRecord,
  type TestReference,
} from "./reference.js";

// §4's four lists as data, for the tests of what every list does: its path, order key, schema and
// filter, how to add records to it, and the order the fixture files say it serves.

export const LUMIERE = "org_lumiere";
export const BOREAL = "org_boreal";

export interface ListSpec {
  name: "contacts" | "products" | "invoices" | "expenses";
  path: string;
  /** The field lists are ordered and cut by (spec-gaps #7, #8). */
  key: "createdAt" | "date";
  schema: z.ZodType;
  filter?: { param: "type" | "status"; values: readonly string[] } | undefined;
}

const list = (
  name: ListSpec["name"],
  key: ListSpec["key"],
  schema: z.ZodType,
  filter?: ListSpec["filter"],
): ListSpec => ({ name, path: `/api/v1/${name}`, key, schema, filter });

export const CONTACTS = list("contacts", "createdAt", ContactJson, { param: "type", values: CONTACT_TYPES });
export const PRODUCTS = list("products", "createdAt", ProductJson);
const INVOICES = list("invoices", "date", InvoiceJson, { param: "status", values: INVOICE_STATUSES });
const EXPENSES = list("expenses", "date", ExpenseJson, { param: "status", values: EXPENSE_STATUSES });

export const LISTS: ListSpec[] = [CONTACTS, PRODUCTS, INVOICES, EXPENSES];

/**
 * Adds records to an organization straight into the store, each a copy of the organization's first
 * record of the list with its own id and order-key instant.
 */
export function addRecords(
  ref: TestReference,
  spec: ListSpec,
  organizationId: string,
  records: { id: string; at: Date }[],
): void {
  const copy = copier(ref, spec.name, organizationId);
  for (const { id, at } of records) ref.store.add(copy(id, at));
}

function copier(ref: TestReference, name: ListSpec["name"], org: string): (id: string, at: Date) => Addition {
  const first = <T>(records: T[]): T => {
    const [template] = records;
    if (template === undefined) throw new Error(`no ${name} to copy in ${org}`);
    return template;
  };
  const one = { limit: 1 };
  switch (name) {
    case "contacts": {
      const t = first(ref.store.listContacts(org, one));
      return (id, at) => ({ type: "contact", data: { ...t, id, createdAt: at, updatedAt: at } });
    }
    case "products": {
      const t = first(ref.store.listProducts(org, one));
      return (id, at) => ({ type: "product", data: { ...t, id, sku: id, createdAt: at, updatedAt: at } });
    }
    case "invoices": {
      const t = first(ref.store.listInvoices(org, one));
      return (id, at) => ({ type: "invoice", data: { ...t, id, date: at, dueDate: at, createdAt: at } });
    }
    case "expenses": {
      const t = first(ref.store.listExpenses(org, one));
      return (id, at) => ({ type: "expense", data: { ...t, id, date: at, createdAt: at } });
    }
  }
}

/** `n` records older than every fixture, a day apart, with ids that say so. */
export const older = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => ({
    id: `${prefix}_old${String(i).padStart(4, "0")}`,
    at: new Date(Date.UTC(2020, 0, 1) + i * 86_400_000),
  }));

export const ids = (items: { id: string }[]) => items.map((i) => i.id);

export const keyOf = (spec: ListSpec, record: { [field: string]: unknown }): number => {
  const value = record[spec.key];
  if (typeof value !== "string") throw new Error(`no ${spec.key} on a ${spec.name} record`);
  return Date.parse(value);
};

export interface ListHarness {
  /** The reference the harness reads. */
  readonly ref: TestReference;
  /** A GET of `pathAndQuery` with a fixture token. */
  get(pathAndQuery: string, label?: string): Promise<Response>;
  /** A list's items, after checking the success envelope. */
  list(spec: ListSpec, query?: string, label?: string): Promise<{ id: string; [field: string]: unknown }[]>;
  /**
   * Newest first (spec-gaps #7, DECISIONS.md): by the order key, then createdAt, then the later in the
   * file first (the fixtures are loaded in file order): the order the tests expect, from the files.
   */
  expectedOrder(
    spec: ListSpec,
    organizationId: string,
    keep?: (r: FixtureRecord) => boolean,
  ): FixtureRecord[];
  /** A fixture file's records. */
  fixtures(name: ListSpec["name"]): FixtureRecord[];
}

/** The fixture files of the four lists, by name. */
export type FixtureFiles = ReadonlyMap<ListSpec["name"], FixtureRecord[]>;

export async function readFixtureFiles(): Promise<FixtureFiles> {
  const files = new Map<ListSpec["name"], FixtureRecord[]>();
  for (const spec of LISTS) files.set(spec.name, await readFixture(spec.name));
  return files;
}

/** The lists of one reference, and the order the fixture files say they serve. */
export function listHarness(ref: TestReference, files: FixtureFiles): ListHarness {
  const fixtures = (name: ListSpec["name"]) => files.get(name) ?? [];
  const get = (pathAndQuery: string, label = "lumiere-full") =>
    request(ref.app).get(pathAndQuery).set(ref.auth(label));
  return {
    ref,
    get,
    list: async (spec, query = "", label = "lumiere-full") =>
      expectData(await get(`${spec.path}${query}`, label), 200) as { id: string; [field: string]: unknown }[],
    expectedOrder: (spec, organizationId, keep = () => true) =>
      fixtures(spec.name)
        .map((record, position) => ({ record, position }))
        .filter(({ record }) => record.organizationId === organizationId && keep(record))
        .sort(
          (a, b) =>
            keyOf(spec, b.record) - keyOf(spec, a.record) ||
            Date.parse(b.record.createdAt) - Date.parse(a.record.createdAt) ||
            b.position - a.position,
        )
        .map(({ record }) => record),
    fixtures,
  };
}

/**
 * vitest's `test` with `h`, a list harness on the test's own reference, and the fixture files read
 * once per file: `it("…", async ({ h }) => …)`.
 */
export const listTest = referenceTest()
  .extend("files", { scope: "file" }, () => readFixtureFiles())
  .extend("h", ({ ref, files }) => listHarness(ref, files));
