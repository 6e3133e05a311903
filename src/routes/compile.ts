import {
  SpecVariantError,
  defaultSpec,
  type EndpointId,
  type EnumName,
  type Spec,
} from "../../spec/index.js";
import type { ErrorTable } from "../model/errors.js";
import { wireOf, type Wire } from "../serialization/resources.js";
import type { RateLimitOptions } from "../store/windows.js";
import { apiTable, rowsOf, type ApiTable, type TableRow } from "./table.js";

/**
 * What serving a spec needs, built from it in one place (issue 26): the route table (paths, scopes,
 * filters, the request schemas with its limits, enumerations and added fields, the response schemas),
 * the error table, the rate-limit window and the CORS options. Every state holds its Spec; the doors
 * read `compileSpec(state.spec)`, made once per Spec object (a WeakMap: a sandbox's spec goes with it).
 * The OpenAPI document is built from it lazily (src/openapi/document.ts), memoized the same way.
 */
export interface CompiledSpec {
  readonly spec: Spec;
  /** Its enumerations and added fields are the default file's: the default wire serves it. */
  readonly defaultWire: boolean;
  readonly table: ApiTable;
  /** The table's rows in order. */
  readonly rows: readonly TableRow[];
  readonly wire: Wire;
  /** §7 by situation: the status and code of each. */
  readonly errors: ErrorTable;
  /** §8: `limits.rate` as the rolling windows count it. */
  readonly rateLimit: RateLimitOptions;
  /** §4 CORS: the methods and request headers a pre-flight allows. */
  readonly cors: { readonly methods: readonly string[]; readonly headers: readonly string[] };
}

/** The enumeration each list's filter may take: the domain filters each list by one field only. */
const FILTERABLE: Partial<Record<EndpointId, { values: EnumName; field: string }>> = {
  listContacts: { values: "contactTypes", field: "type" },
  listInvoices: { values: "invoiceStatuses", field: "status" },
  listExpenses: { values: "expenseStatuses", field: "status" },
};

/** What the file can say but this reference cannot serve: refused like a bad key, by path. */
function unservable(spec: Spec): void {
  const problems: { path: string; message: string }[] = [];
  for (const [id, row] of Object.entries(spec.endpoints) as [EndpointId, Spec["endpoints"][EndpointId]][]) {
    const filter = "filter" in row ? row.filter : undefined;
    if (filter === undefined) continue;
    const allowed = FILTERABLE[id];
    if (allowed === undefined || allowed.values !== filter.values) {
      problems.push({
        path: `endpoints.${id}.filter.values`,
        message:
          allowed === undefined
            ? "the reference filters contacts by type and invoices and expenses by status only"
            : `the reference filters this list by its ${allowed.field}: ${allowed.values}`,
      });
    }
  }
  if (problems.length > 0) throw new SpecVariantError(problems, "the spec");
}

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

const compiled = new WeakMap<Spec, CompiledSpec>();

/** The spec compiled for serving, made once per Spec object; a spec it cannot serve is refused. */
export function compileSpec(spec: Spec): CompiledSpec {
  let made = compiled.get(spec);
  if (made === undefined) {
    unservable(spec);
    const base = defaultSpec();
    const defaultWire = sameJson(spec.enums, base.enums) && sameJson(spec.fields, base.fields);
    const wire = wireOf(spec, defaultWire);
    const table = apiTable(spec, wire);
    made = {
      spec,
      defaultWire,
      table,
      rows: rowsOf(table),
      wire,
      errors: spec.errors,
      rateLimit: { limit: spec.limits.rate.requests, windowMs: spec.limits.rate.windowSeconds * 1000 },
      cors: { methods: spec.cors.methods, headers: spec.cors.headers },
    };
    compiled.set(spec, made);
  }
  return made;
}
