import { failureKey } from "../failures.js";
import type { Check, CheckContext, HttpExchange } from "../types.js";
import { expectList, fail, type JsonObject } from "../support/assert.js";
import { firstPage, reader } from "../support/data.js";
import {
  absentOptionals,
  duplicateIds,
  fieldProblems,
  problemsKey,
  recordFields,
  sumProblem,
} from "../support/shapes.js";
import { LIST_NAMES, type ListName } from "../spec/kit-spec.js";
import { clauseRange, SECTION, type ClauseId } from "../spec/clauses.js";

/** §2, field by field, on the first page of each list as organization 0 sees it. */

/** §2's conventions every record follows: timestamps and identifiers (money only where there is some). */
const COMMON: readonly ClauseId[] = ["§2.2", "§2.3"];

async function pageItems(
  ctx: CheckContext,
  list: ListName,
): Promise<{ ex: HttpExchange; items: readonly JsonObject[] }> {
  const ex = await firstPage(ctx, list, reader(ctx, list));
  return { ex, items: expectList(ex, `GET ${list} must answer 200 { "data": [...] }`) };
}

/** Fails with the first problems found, counted, and the page they were found on. */
function failWith(
  message: string,
  key: string,
  problems: readonly string[],
  expected: string,
  ex: HttpExchange,
): never {
  const shown = problems.slice(0, 5).join("; ");
  const more = problems.length > 5 ? ` (and ${problems.length - 5} more)` : "";
  fail(`${message}: ${problems.length} problem(s)`, {
    key,
    expected,
    actual: `${shown}${more}`,
    exchange: ex,
  });
}

const fieldsCheck = (list: ListName, what: string, clause: readonly ClauseId[]): Check => ({
  id: `resources.${list}`,
  section: SECTION.resources,
  clause,
  level: "MUST",
  rule: `Every ${what} in a list has §2's fields with their types and formats (optional ones absent, null or typed)${clause.includes("§3 Token status.3") ? ", and no status field (§3)" : ""}`,
  gap: 4,
  // A variant's added fields are judged in the list too (support/shapes.ts, recordFields).
  ...(list === "contacts" || list === "products"
    ? { reads: [list === "contacts" ? "fields.contact.*" : "fields.product.*"] as const }
    : {}),
  async run(ctx) {
    const { ex, items } = await pageItems(ctx, list);
    if (items.length === 0) ctx.skip(`organization 0 has no ${list} to inspect`);
    const found = items.map((item) => fieldProblems(item, recordFields(ctx.spec)[list]));
    const problems = found.flatMap((ps, i) => ps.map((p) => `[${i}] ${p.text}`));
    if (problems.length > 0) {
      const key = problemsKey(found.flat());
      failWith(`${list} depart from §2`, key, problems, `every ${what} as §2 describes it`, ex);
    }
  },
});

export const resourceChecks: readonly Check[] = [
  fieldsCheck("contacts", "contact", [...COMMON, ...clauseRange("§2 Contact", 1, 10), "§3 Token status.3"]),
  fieldsCheck("products", "product", [
    "§2.1",
    ...COMMON,
    ...clauseRange("§2 Product", 1, 9),
    "§3 Token status.3",
  ]),
  fieldsCheck("invoices", "invoice", [
    "§2.1",
    ...COMMON,
    ...clauseRange("§2 Invoice", 1, 12),
    "§3 Invoice status.1",
  ]),
  fieldsCheck("expenses", "expense", [
    "§2.1",
    ...COMMON,
    ...clauseRange("§2 Expense", 1, 11),
    "§3 Expense status.1",
  ]),
  {
    id: "resources.ids-unique",
    section: SECTION.resources,
    clause: ["§2.3", "§2.5"],
    level: "MUST",
    rule: "Identifiers are strings (§2), unique within a list: an identifier identifies (an empty one is shown, not failed: their format and length are not shown)",
    gap: 3,
    async run(ctx) {
      for (const list of LIST_NAMES) {
        const { ex, items } = await pageItems(ctx, list);
        const bad = items.filter((i) => typeof i.id !== "string").map((i) => JSON.stringify(i.id));
        if (bad.length > 0) {
          const key = failureKey("ids not strings", list);
          failWith(`${list}: ids that are not strings`, key, bad, "string ids", ex);
        }
        if (items.some((i) => i.id === "")) {
          ctx.observe(`${list}: an empty id`, `${list}: an item has the empty string as its id.`);
        }
        const dup = duplicateIds(items);
        if (dup.length > 0)
          failWith(
            `${list}: ids repeated within one page`,
            failureKey("ids repeated", list),
            dup,
            "every id once",
            ex,
          );
      }
    },
  },
  {
    id: "resources.totals",
    section: SECTION.resources,
    clause: ["§2 Invoice.9", "§2 Expense.7"],
    level: "SHOULD",
    rule: "An invoice's total is subtotal + tps + tvq, an expense's amount + tps + tvq (in decimals)",
    gap: 31,
    async run(ctx) {
      for (const [list, base] of [
        ["invoices", "subtotal"],
        ["expenses", "amount"],
      ] as const) {
        const { ex, items } = await pageItems(ctx, list);
        const problems = items.flatMap((item) => sumProblem(item, base) ?? []);
        if (problems.length > 0) {
          const key = failureKey("total is not the sum", list);
          failWith(`${list} whose total is not the sum`, key, problems, `total = ${base} + tps + tvq`, ex);
        }
      }
    },
  },
  {
    id: "resources.reference-nulls",
    section: SECTION.resources,
    clause: "§2.4",
    level: "REFERENCE",
    rule: "Lists carry every field of §2's tables; an unset optional field is null, not absent",
    gap: 4,
    async run(ctx) {
      for (const list of LIST_NAMES) {
        const { ex, items } = await pageItems(ctx, list);
        const absent = items.map((item) => absentOptionals(item, recordFields(ctx.spec)[list]));
        const problems = absent.flatMap((fields, i) => fields.map((f) => `[${i}] ${f} absent`));
        if (problems.length > 0) {
          const key = failureKey("absent", list, [...new Set(absent.flat())].sort().join(", "));
          failWith(`${list} leave optional fields out`, key, problems, "every field present", ex);
        }
      }
    },
  },
];
