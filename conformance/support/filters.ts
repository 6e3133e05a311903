import type { HttpExchange } from "../types.js";
import { fail, type JsonObject } from "./assert.js";
import { type KitSpec, type ListName } from "../spec/kit-spec.js";

/**
 * The kit's one reading of §4's list filters. `status` on invoices and expenses matches exactly. For
 * contacts, whether `type=CLIENT` (or `SUPPLIER`) also answers the contacts of type BOTH is open: the
 * spec makes BOTH a type of its own and says no more. So a BOTH contact may be in either answer, and
 * `type=BOTH` holds only BOTH contacts. lists.type-filter-both shows which reading a target took; the
 * reference's own (exact) is judged by lists.reference-type-filter.
 */

/** `either`: the kit's stance above; `exact`: a contact answers `type=X` only when its type is X. */
export type FilterReading = "either" | "exact";

/** The field a list's filter works on: contacts' `type`, invoices' and expenses' `status`. */
export const filterField = (spec: KitSpec, list: ListName): string =>
  spec.LISTS[list].filter?.param ?? "type";

/** Whether `item` belongs in the answer to the list's filter set to `value`. */
export function matchesFilter(
  spec: KitSpec,
  list: ListName,
  value: string,
  item: JsonObject,
  reading: FilterReading = "either",
): boolean {
  const own = item[filterField(spec, list)];
  const both = spec.BOTH?.both;
  if (list !== "contacts" || both === undefined) return own === value;
  return own === value || (reading === "either" && value !== both && own === both);
}

/** What an answer to the filter may hold, as a failure says it: "only type CLIENT or BOTH". */
export function filterExpectation(
  spec: KitSpec,
  list: ListName,
  value: string,
  reading: FilterReading = "either",
): string {
  const name = spec.BOTH?.both;
  const both =
    list === "contacts" && reading === "either" && name !== undefined && value !== name ? ` or ${name}` : "";
  return `only ${filterField(spec, list)} ${value}${both}`;
}

/** The items that do not belong in the answer, each said in a few words: `"c_1" has type "BOTH"`. */
export function filterProblems(
  spec: KitSpec,
  list: ListName,
  value: string,
  items: readonly JsonObject[],
  reading: FilterReading = "either",
): string[] {
  const field = filterField(spec, list);
  return items
    .filter((item) => !matchesFilter(spec, list, value, item, reading))
    .map((item) => `${JSON.stringify(item.id)} has ${field} ${JSON.stringify(item[field])}`);
}

/** Fails when an answer to the list's filter set to `value` holds items that do not belong in it. */
export function expectFiltered(
  spec: KitSpec,
  ex: HttpExchange,
  items: readonly JsonObject[],
  list: ListName,
  value: string,
  says: { message: string; key: string; reading?: FilterReading },
): void {
  const wrong = filterProblems(spec, list, value, items, says.reading);
  if (wrong.length === 0) return;
  fail(says.message, {
    key: says.key,
    expected: filterExpectation(spec, list, value, says.reading),
    actual: wrong.slice(0, 5).join("; "),
    exchange: ex,
  });
}
