import type { Clock } from "../model/clock.js";
import type { Store } from "../store/store.js";
import type {
  ContactCreateInput,
  ContactListInput,
  ExpenseListInput,
  InvoiceListInput,
  ProductCreateInput,
  ProductListInput,
} from "./inputs.js";
import { DomainError } from "./errors.js";
import type { IdGenerator } from "../store/ids.js";
import type { AddedValues, Contact, Expense, Invoice, Product, Stored } from "../model/records.js";

export interface Deps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
}

/**
 * The operations of §1, each for one organization. Inputs are already validated; the rules left
 * here are those that need the stored data (sku uniqueness) or the clock.
 */
export class Accounting {
  constructor(private readonly deps: Deps) {}

  listContacts(organizationId: string, query: ContactListInput): Stored<Contact>[] {
    return this.deps.store.listContacts(organizationId, query);
  }

  /** `added`: the values of a spec variant's added fields that were sent (none by default). */
  createContact(organizationId: string, input: ContactCreateInput, added?: AddedValues): Contact {
    const now = this.deps.clock.now();
    const contact: Contact = {
      id: this.deps.ids("con"),
      organizationId,
      type: input.type,
      name: input.name,
      email: input.email ?? null,
      phone: input.phone ?? null,
      address: input.address ?? null,
      taxNumberTPS: input.taxNumberTPS ?? null,
      taxNumberTVQ: input.taxNumberTVQ ?? null,
      createdAt: now,
      updatedAt: now, // spec-gaps #29
      ...(added === undefined ? {} : { added }),
    };
    this.deps.store.add({ type: "contact", data: contact });
    return contact;
  }

  listProducts(organizationId: string, query: ProductListInput): Stored<Product>[] {
    return this.deps.store.listProducts(organizationId, query);
  }

  createProduct(organizationId: string, input: ProductCreateInput, added?: AddedValues): Product {
    // §4: a duplicate sku is refused (the spec's duplicateSku situation); checked per organization
    // only, so that the answer never tells one organization what another holds (spec-gaps #20).
    if (this.deps.store.productBySku(organizationId, input.sku) !== undefined) {
      throw new DomainError("sku", "is already used by another product of this organization", "duplicateSku");
    }
    const now = this.deps.clock.now();
    const product: Product = {
      id: this.deps.ids("prd"),
      organizationId,
      sku: input.sku,
      name: input.name,
      description: input.description ?? null,
      type: input.type,
      unitPrice: input.unitPrice,
      taxable: input.taxable,
      createdAt: now,
      updatedAt: now,
      ...(added === undefined ? {} : { added }),
    };
    this.deps.store.add({ type: "product", data: product });
    return product;
  }

  listInvoices(organizationId: string, query: InvoiceListInput): Stored<Invoice>[] {
    return this.deps.store.listInvoices(organizationId, query);
  }

  listExpenses(organizationId: string, query: ExpenseListInput): Stored<Expense>[] {
    return this.deps.store.listExpenses(organizationId, query);
  }
}
