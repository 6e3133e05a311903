import type { Decimal } from "decimal.js";
import type { ContactType, ExpenseStatus, InvoiceStatus, ProductType } from "../model/records.js";

/**
 * What the operations of §1 take, already checked against §4 and §8: the domain states them, and
 * validation/ builds each from a request (its schemas `satisfies` these types).
 */

export interface PageInput {
  /** 1 to 200 (§4 Pagination). */
  limit: number;
  /** Only items strictly before this instant, in ms since the epoch (spec-gaps #8). */
  before?: number | undefined;
}

export interface ContactListInput extends PageInput {
  type?: ContactType | undefined;
}

export type ProductListInput = PageInput;

export interface InvoiceListInput extends PageInput {
  status?: InvoiceStatus | undefined;
}

export interface ExpenseListInput extends PageInput {
  status?: ExpenseStatus | undefined;
}

export interface ContactCreateInput {
  type: ContactType;
  name: string;
  email?: string | undefined;
  phone?: string | undefined;
  address?: string | undefined;
  taxNumberTPS?: string | undefined;
  taxNumberTVQ?: string | undefined;
}

export interface ProductCreateInput {
  sku: string;
  name: string;
  description?: string | undefined;
  type: ProductType;
  /** Exact: never passed through a binary float (spec-gaps #19). */
  unitPrice: Decimal;
  taxable: boolean;
}
