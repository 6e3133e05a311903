import {
  stored,
  type Contact,
  type ContactType,
  type Expense,
  type ExpenseStatus,
  type Invoice,
  type InvoiceStatus,
  type LedgerAccount,
  type Organization,
  type Product,
  type Stored,
} from "../model/records.js";
import { OrderedIndex, type Keyed } from "./ordered-index.js";

export interface PageQuery {
  limit: number;
  /** Exclusive upper bound on the list's order key, in ms since the epoch. */
  before?: number;
}

/**
 * One collection of an organization: every record in serving order, plus one index per value of the
 * field lists filter on, so that a filtered page is read as directly as an unfiltered one.
 */
class Collection<T extends Keyed, Tag extends string> {
  readonly #all: OrderedIndex<Stored<T>>;
  readonly #byTag = new Map<Tag, OrderedIndex<Stored<T>>>();
  readonly #byId = new Map<string, Stored<T>>();
  readonly #key: (item: T) => number;
  readonly #tie: (item: T) => number;
  readonly #tag: (item: T) => Tag;

  constructor(key: (item: T) => number, tie: (item: T) => number, tag: (item: T) => Tag) {
    this.#key = key;
    this.#tie = tie;
    this.#tag = tag;
    this.#all = new OrderedIndex<Stored<T>>(key, tie);
  }

  add(item: T): void {
    if (this.#byId.has(item.id)) throw new Error(`duplicate id ${item.id}`);
    const frozen = stored(item);
    this.#byId.set(item.id, frozen);
    this.#all.insert(frozen);
    const tag = this.#tag(frozen);
    let index = this.#byTag.get(tag);
    if (index === undefined) {
      index = new OrderedIndex<Stored<T>>(this.#key, this.#tie);
      this.#byTag.set(tag, index);
    }
    index.insert(frozen);
  }

  get(id: string): Stored<T> | undefined {
    return this.#byId.get(id);
  }

  get size(): number {
    return this.#byId.size;
  }

  /** Every record, in the order they were added. */
  all(): Stored<T>[] {
    return [...this.#byId.values()];
  }

  page(query: PageQuery, tag?: Tag): Stored<T>[] {
    const index = tag === undefined ? this.#all : this.#byTag.get(tag);
    return index === undefined ? [] : index.newestFirst(query.limit, query.before);
  }
}

/** A record to add, by kind: what `add` takes and what the store tells its listener. */
export type Addition =
  | { type: "organization"; data: Organization }
  | { type: "account"; data: LedgerAccount }
  | { type: "contact"; data: Contact }
  | { type: "product"; data: Product }
  | { type: "invoice"; data: Invoice }
  | { type: "expense"; data: Expense };

/** Every record of a state, by kind: a snapshot's content, and the fixtures' records. */
export interface StoreRecords {
  organizations: Organization[];
  accounts: LedgerAccount[];
  contacts: Contact[];
  products: Product[];
  invoices: Invoice[];
  expenses: Expense[];
}

/** The records as additions, in the order that lets each find what it refers to. */
export function additionsOf(records: StoreRecords): Addition[] {
  return [
    ...records.organizations.map((data) => ({ type: "organization" as const, data })),
    ...records.accounts.map((data) => ({ type: "account" as const, data })),
    ...records.contacts.map((data) => ({ type: "contact" as const, data })),
    ...records.products.map((data) => ({ type: "product" as const, data })),
    ...records.invoices.map((data) => ({ type: "invoice" as const, data })),
    ...records.expenses.map((data) => ({ type: "expense" as const, data })),
  ];
}

const byCreatedAt = (r: { createdAt: Date }): number => r.createdAt.getTime();
const byDate = (r: { date: Date }): number => r.date.getTime();

/**
 * Newest first (spec-gaps #7, DECISIONS.md): by createdAt, or by date and then createdAt; records
 * equal on both come in the reverse order they were added, which for records made through the API is
 * the order of creation. Ids are random and order nothing.
 */
class OrganizationData {
  readonly contacts = new Collection<Contact, ContactType>(byCreatedAt, byCreatedAt, (c) => c.type);
  readonly products = new Collection<Product, "all">(byCreatedAt, byCreatedAt, () => "all");
  readonly invoices = new Collection<Invoice, InvoiceStatus>(byDate, byCreatedAt, (i) => i.status);
  readonly expenses = new Collection<Expense, ExpenseStatus>(byDate, byCreatedAt, (e) => e.status);
  readonly accounts = new Map<string, LedgerAccount>();
  /** sku → product: the uniqueness rule of §4 is per organization and exact (spec-gaps #20). */
  readonly skus = new Map<string, Product>();

  constructor(readonly organization: Organization) {}
}

/**
 * The in-memory store. Every read and write names the organization, and nothing crosses from one
 * organization's data to another's: isolation is a property of the layout, not of a filter.
 * Records are frozen when stored; the store knows nothing of HTTP or validation.
 */
export class Store {
  readonly #orgs = new Map<string, OrganizationData>();
  #listener: ((addition: Addition) => void) | undefined;

  /**
   * Tells `listener` of every record added, once it is in (persistence journals them); one listener,
   * `undefined` removes it. Clearing is not told: whoever clears (a reset) knows it did.
   */
  observe(listener: ((addition: Addition) => void) | undefined): void {
    this.#listener = listener;
  }

  /** Every record, each collection in the order it was added: what a snapshot of the state holds. */
  records(): StoreRecords {
    const orgs = [...this.#orgs.values()];
    return {
      organizations: orgs.map((o) => o.organization),
      accounts: orgs.flatMap((o) => [...o.accounts.values()]),
      contacts: orgs.flatMap((o) => o.contacts.all()),
      products: orgs.flatMap((o) => o.products.all()),
      invoices: orgs.flatMap((o) => o.invoices.all()),
      expenses: orgs.flatMap((o) => o.expenses.all()),
    };
  }

  /**
   * The one way a record comes in, whoever brings it: the fixtures at a seed or a reset, a data
   * directory read back, a journaled change replayed, or the domain creating one. Records are frozen
   * as they are stored; a duplicate id or sku, or an unknown organization, is refused.
   */
  add(addition: Addition): void {
    switch (addition.type) {
      case "organization": {
        const organization = addition.data;
        if (this.#orgs.has(organization.id)) throw new Error(`duplicate organization ${organization.id}`);
        this.#orgs.set(organization.id, new OrganizationData(stored(organization)));
        break;
      }
      case "account": {
        const org = this.#org(addition.data.organizationId);
        if (org.accounts.has(addition.data.id)) throw new Error(`duplicate account ${addition.data.id}`);
        org.accounts.set(addition.data.id, stored(addition.data));
        break;
      }
      case "contact":
        this.#org(addition.data.organizationId).contacts.add(addition.data);
        break;
      case "product": {
        const org = this.#org(addition.data.organizationId);
        if (org.skus.has(addition.data.sku)) throw new Error(`duplicate sku ${addition.data.sku}`);
        org.products.add(addition.data);
        org.skus.set(addition.data.sku, addition.data);
        break;
      }
      case "invoice":
        this.#org(addition.data.organizationId).invoices.add(addition.data);
        break;
      case "expense":
        this.#org(addition.data.organizationId).expenses.add(addition.data);
        break;
    }
    this.#listener?.(addition);
  }

  /** Drops every organization and record: the first step of a reset to the fixtures. */
  clear(): void {
    this.#orgs.clear();
  }

  /** Drops one organization's records, keeping the organization itself (a reset of one organization). */
  clearOrganization(id: string): void {
    this.#orgs.set(id, new OrganizationData(this.#org(id).organization));
  }

  organization(id: string): Organization | undefined {
    return this.#orgs.get(id)?.organization;
  }

  organizations(): Organization[] {
    return [...this.#orgs.values()].map((o) => o.organization);
  }

  contact(organizationId: string, id: string): Stored<Contact> | undefined {
    return this.#orgs.get(organizationId)?.contacts.get(id);
  }

  listContacts(
    organizationId: string,
    query: PageQuery & { type?: ContactType | undefined },
  ): Stored<Contact>[] {
    return this.#org(organizationId).contacts.page(query, query.type);
  }

  countContacts(organizationId: string): number {
    return this.#org(organizationId).contacts.size;
  }

  productBySku(organizationId: string, sku: string): Product | undefined {
    return this.#orgs.get(organizationId)?.skus.get(sku);
  }

  listProducts(organizationId: string, query: PageQuery): Stored<Product>[] {
    return this.#org(organizationId).products.page(query);
  }

  listInvoices(
    organizationId: string,
    query: PageQuery & { status?: InvoiceStatus | undefined },
  ): Stored<Invoice>[] {
    return this.#org(organizationId).invoices.page(query, query.status);
  }

  listExpenses(
    organizationId: string,
    query: PageQuery & { status?: ExpenseStatus | undefined },
  ): Stored<Expense>[] {
    return this.#org(organizationId).expenses.page(query, query.status);
  }

  #org(id: string): OrganizationData {
    const org = this.#orgs.get(id);
    if (org === undefined) throw new Error(`unknown organization ${id}`);
    return org;
  }
}
