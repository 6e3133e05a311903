import type { z } from "zod";
import { ApiError } from "../../model/errors.js";
import { FixtureError } from "../../store/fixtures/failure.js";
import {
  checkRecords,
  knownOf,
  type CheckedRecords,
  type RecordSources,
} from "../../store/fixtures/records.js";
import { randomIds } from "../../store/ids.js";
import type { ReferenceState } from "../../store/state.js";
import type { RecordsInput } from "./schemas.js";

/** Where added records' failures say they come from: the body's lists, and the state. */
const ADDED: RecordSources = {
  contacts: "contacts",
  products: "products",
  accounts: "accounts",
  invoices: "invoices",
  expenses: "expenses",
  known: "one of the state's records",
  organizationsFile: "the state's organizations",
};

/**
 * Records of `POST /__control/records` with what they left out filled in and their organization ids
 * read by `organization` (a sandbox's own for a fixture id), checked by the fixtures' rules against
 * themselves and the state's records; a failure is a 400 naming the record's field.
 */
export function checkAdded(
  state: ReferenceState,
  input: z.output<typeof RecordsInput>,
  organization: (id: string) => string,
): CheckedRecords {
  const now = state.clock.now().toISOString();
  const id = (prefix: string, given: string | undefined) => given ?? randomIds(prefix);
  const placed = <R extends { organizationId: string; createdAt?: string | undefined }>(r: R) => ({
    ...r,
    organizationId: organization(r.organizationId),
    createdAt: r.createdAt ?? now,
  });
  const records = {
    contacts: (input.contacts ?? []).map((r) => {
      const c = placed(r);
      return { ...c, id: id("con", r.id), updatedAt: r.updatedAt ?? c.createdAt };
    }),
    products: (input.products ?? []).map((r) => {
      const p = placed(r);
      return { ...p, id: id("prd", r.id), updatedAt: r.updatedAt ?? p.createdAt };
    }),
    accounts: (input.accounts ?? []).map((r) => ({
      ...r,
      organizationId: organization(r.organizationId),
      id: id("acc", r.id),
    })),
    invoices: (input.invoices ?? []).map((r) => ({ ...placed(r), id: id("inv", r.id) })),
    expenses: (input.expenses ?? []).map((r) => ({ ...placed(r), id: id("exp", r.id) })),
  };
  const existing = state.store.records();
  const known = knownOf({ ...existing, organizations: existing.organizations.map((o) => o.id) });
  try {
    return checkRecords(records, ADDED, known);
  } catch (err) {
    if (!(err instanceof FixtureError)) throw err;
    const field = [err.file, err.record, err.field].filter((p) => p !== undefined).join(".");
    throw new ApiError("invalidRequest", err.message, { [field]: [err.detail ?? err.message] });
  }
}
