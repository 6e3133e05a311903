import { describe, expect, it } from "vitest";
import * as model from "../../src/model/records.js";
import { kitSpec } from "./kit-spec.js";

/**
 * The kit reads the spec's enums from the spec file (kit-spec.ts), the reference from its model; this
 * is where the two readings meet. A difference is a bug in one of them: read §2 and §5 to tell which.
 */
describe("the kit's reading of the spec", () => {
  const { CONTACT_TYPES, ENDPOINTS, EXPENSE_STATUSES, INVOICE_STATUSES, LISTS, PRODUCT_TYPES, SCOPES } =
    kitSpec();

  it.each([
    ["contact types (§2)", CONTACT_TYPES, model.CONTACT_TYPES],
    ["product types (§2)", PRODUCT_TYPES, model.PRODUCT_TYPES],
    ["invoice statuses (§2, §3)", INVOICE_STATUSES, model.INVOICE_STATUSES],
    ["expense statuses (§2, §3)", EXPENSE_STATUSES, model.EXPENSE_STATUSES],
    ["scopes (§5)", SCOPES, model.SCOPES],
  ])("agrees with the reference's model on the %s", (_what, kit, reference) => {
    expect([...kit]).toEqual([...reference]);
  });

  it("names, for every endpoint of §4, a scope of §5", () => {
    for (const e of ENDPOINTS) expect(SCOPES, `${e.method} ${e.path}`).toContain(e.scope);
    for (const list of Object.values(LISTS)) expect(SCOPES, list.path).toContain(list.scope);
  });
});
