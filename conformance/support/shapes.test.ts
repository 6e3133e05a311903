import { kitSpec } from "../spec/kit-spec.js";
import { describe, expect, it } from "vitest";
import {
  recordFields,
  absentOptionals,
  contactCreationProblems,
  duplicateIds,
  fieldProblems,
  problemsKey,
  isTimestamp,
  listedContactProblems,
  listedProductProblems,
  orderBreaks,
  sumProblem,
} from "./shapes.js";

const {
  contacts: CONTACT_FIELDS,
  products: PRODUCT_FIELDS,
  invoices: INVOICE_FIELDS,
  expenses: EXPENSE_FIELDS,
} = recordFields(kitSpec());

const T = "2026-10-30T14:05:09.123Z";
const MIDNIGHT = "2026-10-30T00:00:00.000Z";

const contact = {
  id: "c_1",
  type: "CLIENT",
  name: "Café Lumière",
  email: "a@example.com",
  phone: null,
  address: null,
  taxNumberTPS: null,
  taxNumberTVQ: "1234567890TQ0001",
  createdAt: T,
  updatedAt: T,
};

const product = {
  id: "p_1",
  sku: "SKU-1",
  name: "Widget",
  description: null,
  type: "PRODUCT",
  unitPrice: "12.5000",
  taxable: true,
  createdAt: T,
  updatedAt: T,
};

const invoice = {
  id: "i_1",
  invoiceNumber: "F-0001",
  date: MIDNIGHT,
  dueDate: MIDNIGHT,
  status: "PAID",
  subtotal: "100.0000",
  tps: "5.0000",
  tvq: "9.9750",
  total: "114.9750",
  description: "Work",
  contact: { id: "c_1", name: "Café Lumière", email: null },
  createdAt: T,
};

const expense = {
  id: "e_1",
  date: MIDNIGHT,
  status: "APPROVED",
  amount: "0.1000",
  tps: "0.2000",
  tvq: "0.0000",
  total: "0.3000",
  description: "Paper",
  contact: { id: "c_2", name: "Papeterie" },
  account: { id: "a_1", code: "5100", name: "Fournitures" },
  createdAt: T,
};

describe("timestamps", () => {
  it("are UTC with milliseconds and Z, and name a real instant", () => {
    expect(isTimestamp(T)).toBe(true);
    expect(isTimestamp("2026-10-30T14:05:09Z")).toBe(false);
    expect(isTimestamp("2026-10-30T14:05:09.123+00:00")).toBe(false);
    expect(isTimestamp("2026-02-30T00:00:00.000Z")).toBe(false);
    expect(isTimestamp(1730296800000)).toBe(false);
  });
});

describe("fieldProblems", () => {
  it("passes every resource as §2 describes it", () => {
    expect(fieldProblems(contact, CONTACT_FIELDS)).toEqual([]);
    expect(fieldProblems(product, PRODUCT_FIELDS)).toEqual([]);
    expect(fieldProblems(invoice, INVOICE_FIELDS)).toEqual([]);
    expect(fieldProblems(expense, EXPENSE_FIELDS)).toEqual([]);
  });

  it("passes optional fields absent, null or typed (spec-gaps #4), and extra fields", () => {
    const { email: _e, phone: _p, address: _a, taxNumberTPS: _t, ...bare } = contact;
    expect(fieldProblems({ ...bare, extra: 1 }, CONTACT_FIELDS)).toEqual([]);
    expect(fieldProblems({ ...contact, phone: "+1 514 555 0199" }, CONTACT_FIELDS)).toEqual([]);
    expect(fieldProblems({ ...invoice, contact: { id: "c", name: "n" } }, INVOICE_FIELDS)).toEqual([]);
  });

  it("catches a present value of the wrong type, a missing required field, a bad format or enum", () => {
    expect(fieldProblems({ ...contact, phone: 5145550199 }, CONTACT_FIELDS)).toHaveLength(1);
    expect(fieldProblems({ ...contact, name: undefined }, CONTACT_FIELDS)).toHaveLength(1);
    expect(fieldProblems({ ...contact, id: "" }, CONTACT_FIELDS)).toHaveLength(1);
    expect(fieldProblems({ ...contact, id: 7 }, CONTACT_FIELDS)).toHaveLength(1);
    expect(fieldProblems({ ...contact, type: "client" }, CONTACT_FIELDS)).toHaveLength(1);
    expect(fieldProblems({ ...product, unitPrice: "12.50" }, PRODUCT_FIELDS)).toHaveLength(1);
    expect(fieldProblems({ ...product, unitPrice: 12.5 }, PRODUCT_FIELDS)).toHaveLength(1);
    expect(fieldProblems({ ...product, taxable: "true" }, PRODUCT_FIELDS)).toHaveLength(1);
    expect(fieldProblems({ ...invoice, date: T }, INVOICE_FIELDS)).toHaveLength(1);
    expect(fieldProblems({ ...invoice, status: "CANCELLED" }, INVOICE_FIELDS)).toHaveLength(1);
    expect(
      fieldProblems({ ...expense, account: { id: "a", code: 5100, name: "x" } }, EXPENSE_FIELDS),
    ).toEqual([{ field: "account.code", kind: "type", text: "account.code: 5100 is not a string" }]);
    expect(fieldProblems({ ...expense, contact: null }, EXPENSE_FIELDS)).toHaveLength(1);
  });

  it("absentOptionals lists optional fields left out, nested ones included", () => {
    expect(absentOptionals(contact, CONTACT_FIELDS)).toEqual([]);
    const { phone: _p, ...noPhone } = contact;
    expect(absentOptionals(noPhone, CONTACT_FIELDS)).toEqual(["phone"]);
    expect(absentOptionals({ ...invoice, contact: { id: "c", name: "n" } }, INVOICE_FIELDS)).toEqual([
      "contact.email",
    ]);
  });
});

describe("derived invariants", () => {
  it("sums in decimals: 0.1 + 0.2 + 0 = 0.3", () => {
    expect(sumProblem(invoice, "subtotal")).toBeUndefined();
    expect(sumProblem(expense, "amount")).toBeUndefined();
    expect(sumProblem({ ...invoice, total: "114.9749" }, "subtotal")).toContain("114.9749");
    expect(sumProblem({ ...invoice, total: 114.975 }, "subtotal")).toBeUndefined();
  });

  it("finds repeated ids and order inversions", () => {
    expect(duplicateIds([{ id: "a" }, { id: "b" }, { id: "a" }])).toEqual(["a"]);
    expect(
      orderBreaks([{ date: "2026-10-30T00:00:00.000Z" }, { date: "2026-10-29T00:00:00.000Z" }], "date"),
    ).toEqual([]);
    expect(
      orderBreaks([{ createdAt: "2026-10-29T00:00:00.000Z" }, { createdAt: T }], "createdAt"),
    ).toHaveLength(1);
  });
});

describe("created records against what was sent", () => {
  const sent = { type: "SUPPLIER", name: "Élodie", email: "e@example.com", phone: "+1 514 555 0199" };

  it("contact creation: id, type, name, createdAt, email and phone as sent; extras pass when typed", () => {
    const answer = { id: "c_9", ...sent, createdAt: T };
    expect(contactCreationProblems(kitSpec(), sent, answer)).toEqual([]);
    expect(contactCreationProblems(kitSpec(), sent, { ...answer, address: null, updatedAt: T })).toEqual([]);
    expect(contactCreationProblems(kitSpec(), sent, { ...answer, phone: "5145550199" })).toHaveLength(1);
    expect(contactCreationProblems(kitSpec(), sent, { ...answer, createdAt: "2026-10-30" })).toHaveLength(1);
    expect(contactCreationProblems(kitSpec(), sent, { ...answer, updatedAt: 5 })).toHaveLength(1);
    expect(
      contactCreationProblems(
        kitSpec(),
        { type: "CLIENT", name: "x" },
        { id: "c", type: "CLIENT", name: "x", createdAt: T, email: null },
      ),
    ).toEqual([]);
  });

  it("listed contact: §2's fields, and every field sent as sent", () => {
    const item = { ...contact, ...sent, phone: sent.phone, taxNumberTVQ: null };
    expect(listedContactProblems(kitSpec(), sent, item)).toEqual([]);
    expect(listedContactProblems(kitSpec(), sent, { ...item, name: "Elodie" })).toHaveLength(1);
  });

  it("a field not sent reads back absent, null or empty, never a value from elsewhere or the text None", () => {
    const item = { ...contact, ...sent, taxNumberTVQ: null };
    const { address: _a, ...withoutAddress } = item;
    expect(listedContactProblems(kitSpec(), sent, withoutAddress)).toEqual([]);
    expect(listedContactProblems(kitSpec(), sent, { ...item, address: "" })).toEqual([]);
    expect(problemsKey(listedContactProblems(kitSpec(), sent, { ...item, address: "None" }))).toBe(
      "address not absent",
    );
    expect(
      problemsKey(listedContactProblems(kitSpec(), sent, { ...item, taxNumberTVQ: "1234567890TQ0001" })),
    ).toBe("taxNumberTVQ not absent");
    const minimal = { type: "CLIENT", name: "x" };
    const answer = { id: "c", type: "CLIENT", name: "x", createdAt: T };
    expect(
      problemsKey(contactCreationProblems(kitSpec(), minimal, { ...answer, email: "someone@else.example" })),
    ).toBe("email not absent");
  });

  it("contacts and products carry no status field (§3), not even null", () => {
    expect(problemsKey(fieldProblems({ ...contact, status: "ACTIVE" }, CONTACT_FIELDS))).toBe(
      "status not absent",
    );
    expect(problemsKey(fieldProblems({ ...product, status: null }, PRODUCT_FIELDS))).toBe(
      "status not absent",
    );
    expect(fieldProblems(invoice, INVOICE_FIELDS)).toEqual([]);
    const answer = { id: "c_9", ...sent, createdAt: T, status: "ACTIVE" };
    expect(problemsKey(contactCreationProblems(kitSpec(), sent, answer))).toBe("status not absent");
  });

  it("listed product: values sent, unitPrice with four decimals, §4's defaults", () => {
    const draft = { sku: "SKU-1", name: "Widget", unitPrice: "12.5" };
    expect(listedProductProblems(kitSpec(), draft, product)).toEqual([]);
    expect(listedProductProblems(kitSpec(), draft, { ...product, description: "" })).toEqual([]);
    expect(listedProductProblems(kitSpec(), draft, { ...product, unitPrice: "12.5001" })).toHaveLength(1);
    expect(listedProductProblems(kitSpec(), draft, { ...product, type: "SERVICE" })).toHaveLength(1);
    expect(listedProductProblems(kitSpec(), draft, { ...product, taxable: false })).toHaveLength(1);
    expect(listedProductProblems(kitSpec(), draft, { ...product, description: "made up" })).toHaveLength(1);
    expect(
      listedProductProblems(
        kitSpec(),
        { ...draft, type: "SERVICE", taxable: false },
        { ...product, type: "SERVICE", taxable: false },
      ),
    ).toEqual([]);
  });
});

describe("problemsKey", () => {
  it("names each field and how it is wrong, never the values, whatever the record", () => {
    const one = fieldProblems({ ...contact, id: 7, name: undefined }, CONTACT_FIELDS);
    const other = fieldProblems({ ...contact, id: 12, name: undefined, email: "x@y.z" }, CONTACT_FIELDS);
    expect(problemsKey(one)).toBe("id type, name missing");
    expect(problemsKey(other)).toBe(problemsKey(one));
  });
});
