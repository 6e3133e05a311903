import { Decimal } from "decimal.js";
import type { ProductDraft } from "./arbitraries.js";
import { isRecord, type JsonObject } from "./assert.js";
import type { AddedField } from "../../spec/schema.js";
import type { KitSpec, ListName } from "../spec/kit-spec.js";

/**
 * §2's tables as data, and the judge of one item against them. Pure: unit-tested on its own, used by
 * every check that reads a resource.
 */

export type FieldRule =
  | { kind: "id" }
  | { kind: "string" }
  | { kind: "enum"; values: readonly string[] }
  | { kind: "money" }
  | { kind: "timestamp" }
  | { kind: "midnight" }
  | { kind: "boolean" }
  | { kind: "number" }
  | { kind: "object"; fields: Fields }
  /** A field the record must not carry at all (§3: contacts and products have no status). */
  | { kind: "none" };

export interface Field {
  rule: FieldRule;
  /**
   * spec-gaps #4: the spec does not say which fields may be absent or null beyond the contact's tax
   * numbers. Absent, null and a value of the right type all pass for these; a present value must still
   * have the right type.
   */
  optional?: true;
}

export type Fields = Readonly<Record<string, Field>>;

/** §2: four decimals, no exponent; a sign is not excluded by the spec. */
export const MONEY = /^-?\d+\.\d{4}$/;
/** §2: ISO 8601, UTC, milliseconds, trailing Z. */
export const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const MIDNIGHT = /T00:00:00\.000Z$/;

/** A timestamp in §2's format that names a real instant (no 2024-02-30). */
export function isTimestamp(value: unknown): value is string {
  if (typeof value !== "string" || !TIMESTAMP.test(value)) return false;
  const ms = Date.parse(value);
  return !Number.isNaN(ms) && new Date(ms).toISOString() === value;
}

const id: Field = { rule: { kind: "id" } };
const str: Field = { rule: { kind: "string" } };
const optStr: Field = { rule: { kind: "string" }, optional: true };
const money: Field = { rule: { kind: "money" } };
const timestamp: Field = { rule: { kind: "timestamp" } };
const midnight: Field = { rule: { kind: "midnight" } };
const oneOf = (values: readonly string[]): Field => ({ rule: { kind: "enum", values } });
/** §3 Token status.3: "Contacts and products have no status field." */
const noStatus: Field = { rule: { kind: "none" } };

const contactFields = (spec: KitSpec): Fields => ({
  id,
  type: oneOf(spec.CONTACT_TYPES),
  name: str,
  email: optStr,
  phone: optStr,
  address: optStr,
  taxNumberTPS: optStr,
  taxNumberTVQ: optStr,
  createdAt: timestamp,
  updatedAt: timestamp,
  status: noStatus,
});

const productFields = (spec: KitSpec): Fields => ({
  id,
  sku: str,
  name: str,
  description: optStr,
  type: oneOf(spec.PRODUCT_TYPES),
  unitPrice: money,
  taxable: { rule: { kind: "boolean" } },
  createdAt: timestamp,
  updatedAt: timestamp,
  status: noStatus,
});

// "free text" and a contact's e-mail (optional on a contact) are read as optional (spec-gaps #4).
const invoiceFields = (spec: KitSpec): Fields => ({
  id,
  invoiceNumber: str,
  date: midnight,
  dueDate: midnight,
  status: oneOf(spec.INVOICE_STATUSES),
  subtotal: money,
  tps: money,
  tvq: money,
  total: money,
  description: optStr,
  contact: { rule: { kind: "object", fields: { id, name: str, email: optStr } } },
  createdAt: timestamp,
});

const expenseFields = (spec: KitSpec): Fields => ({
  id,
  date: midnight,
  status: oneOf(spec.EXPENSE_STATUSES),
  amount: money,
  tps: money,
  tvq: money,
  total: money,
  description: optStr,
  contact: { rule: { kind: "object", fields: { id, name: str } } },
  account: { rule: { kind: "object", fields: { id, code: str, name: str } } },
  createdAt: timestamp,
});

/**
 * A field a spec variant adds (`fields.contact.<name>`): typed as the file says, and optional in what a
 * list serves whatever `required` says, since records created before it or without it (the fixtures)
 * have none (null or absent, spec-gaps #4's reading). A decimal reads as §2's money.
 */
export function addedFieldRule(field: AddedField): FieldRule {
  switch (field.type) {
    case "string":
      return field.enum === undefined ? { kind: "string" } : { kind: "enum", values: field.enum };
    case "number":
      return { kind: "number" };
    case "boolean":
      return { kind: "boolean" };
    case "decimal":
      return { kind: "money" };
  }
}

const withAdded = (fields: Fields, added: Readonly<Record<string, AddedField>>): Fields => ({
  ...fields,
  ...Object.fromEntries(
    Object.entries(added).map(([name, f]): [string, Field] => [
      name,
      { rule: addedFieldRule(f), optional: true },
    ]),
  ),
});

const shapes = new WeakMap<KitSpec, Readonly<Record<ListName, Fields>>>();

/** §2's tables under the run's spec (its enumerations, the fields a variant adds), by list. */
export function recordFields(spec: KitSpec): Readonly<Record<ListName, Fields>> {
  let known = shapes.get(spec);
  if (known === undefined) {
    known = {
      contacts: withAdded(contactFields(spec), spec.FIELDS.contact),
      products: withAdded(productFields(spec), spec.FIELDS.product),
      invoices: invoiceFields(spec),
      expenses: expenseFields(spec),
    };
    shapes.set(spec, known);
  }
  return known;
}

const show = (value: unknown): string => JSON.stringify(value) ?? "undefined";

/**
 * One way a record departs from §2 or from what was sent: `field` and `kind` say it without the
 * values (a failure's key is made of them), `text` says it with them.
 */
export interface FieldProblem {
  /** The field's path: `name`, `contact.id`; `item` for a record that is no object. */
  field: string;
  kind: "missing" | "null" | "type" | "format" | "enum" | "not as sent" | "not absent";
  text: string;
}

const problem = (field: string, kind: FieldProblem["kind"], says: string): FieldProblem => ({
  field,
  kind,
  text: `${field}: ${says}`,
});

/** Problems as a failure's key names them: each field and how it is wrong, sorted, no value. */
export const problemsKey = (problems: readonly FieldProblem[]): string =>
  [...new Set(problems.map((p) => `${p.field} ${p.kind}`))].sort().join(", ");

/** Problems as a failure shows them: each with its values, the first `max`. */
export const problemsText = (problems: readonly FieldProblem[], max = problems.length): string =>
  problems
    .slice(0, max)
    .map((p) => p.text)
    .join("; ");

function ruleProblem(value: unknown, rule: FieldRule, path: string): FieldProblem[] {
  switch (rule.kind) {
    case "id":
      return typeof value === "string" && value !== ""
        ? []
        : [
            problem(
              path,
              typeof value === "string" ? "format" : "type",
              `${show(value)} is not a non-empty string (§2 identifiers; spec-gaps #3)`,
            ),
          ];
    case "string":
      return typeof value === "string" ? [] : [problem(path, "type", `${show(value)} is not a string`)];
    case "boolean":
      return typeof value === "boolean" ? [] : [problem(path, "type", `${show(value)} is not a boolean`)];
    case "number":
      return typeof value === "number" && Number.isFinite(value)
        ? []
        : [problem(path, "type", `${show(value)} is not a JSON number`)];
    case "enum":
      return typeof value === "string" && rule.values.includes(value)
        ? []
        : [problem(path, "enum", `${show(value)} is not one of ${rule.values.join(", ")}`)];
    case "money":
      return typeof value === "string" && MONEY.test(value)
        ? []
        : [
            problem(
              path,
              typeof value === "string" ? "format" : "type",
              `${show(value)} is not a decimal string with four decimal places (§2 money)`,
            ),
          ];
    case "timestamp":
      return isTimestamp(value)
        ? []
        : [
            problem(
              path,
              typeof value === "string" ? "format" : "type",
              `${show(value)} is not an ISO 8601 UTC timestamp with milliseconds and Z`,
            ),
          ];
    case "midnight":
      return isTimestamp(value) && MIDNIGHT.test(value)
        ? []
        : [
            problem(
              path,
              typeof value === "string" ? "format" : "type",
              `${show(value)} is not a midnight timestamp (YYYY-MM-DDT00:00:00.000Z)`,
            ),
          ];
    case "object":
      return isRecord(value)
        ? fieldProblems(value, rule.fields, `${path}.`)
        : [problem(path, "type", `${show(value)} is not an object`)];
    case "none":
      return [problem(path, "not absent", `${show(value)}: this record has no such field (§3)`)];
  }
}

/** Every way `item` departs from `fields`; extra fields are not judged (the spec does not forbid them). */
export function fieldProblems(item: unknown, fields: Fields, prefix = ""): FieldProblem[] {
  if (!isRecord(item))
    return [problem(prefix === "" ? "item" : prefix.slice(0, -1), "type", `${show(item)} is not an object`)];
  const out: FieldProblem[] = [];
  for (const [name, field] of Object.entries(fields)) {
    const path = `${prefix}${name}`;
    const value = item[name];
    if (field.rule.kind === "none") {
      if (name in item) out.push(...ruleProblem(value, field.rule, path));
      continue;
    }
    if (value === undefined || value === null) {
      if (field.optional !== true) {
        out.push(
          problem(
            path,
            value === null ? "null" : "missing",
            `${value === null ? "null" : "missing"}, and it is not optional`,
          ),
        );
      }
      continue;
    }
    out.push(...ruleProblem(value, field.rule, path));
  }
  return out;
}

/** REFERENCE (spec-gaps #4, the reference's answer): every optional field is present, null when unset. */
export function absentOptionals(item: JsonObject, fields: Fields, prefix = ""): string[] {
  const out: string[] = [];
  for (const [name, field] of Object.entries(fields)) {
    if (field.optional === true && !(name in item)) out.push(`${prefix}${name}`);
    const value = item[name];
    if (field.rule.kind === "object" && isRecord(value)) {
      out.push(...absentOptionals(value, field.rule.fields, `${prefix}${name}.`));
    }
  }
  return out;
}

/** spec-gaps #3: ids repeated within one list. */
export function duplicateIds(items: readonly JsonObject[]): string[] {
  const seen = new Set<unknown>();
  const dup = new Set<string>();
  for (const item of items) {
    if (seen.has(item.id)) dup.add(String(item.id));
    seen.add(item.id);
  }
  return [...dup];
}

/**
 * spec-gaps #31: `total = base + tps + tvq`, in decimals (never floats). Undefined when it holds or the
 * fields are not money (the field check reports those).
 */
export function sumProblem(item: JsonObject, base: "subtotal" | "amount"): string | undefined {
  const parts = [item[base], item.tps, item.tvq, item.total];
  if (!parts.every((p) => typeof p === "string" && MONEY.test(p))) return undefined;
  const [b, tps, tvq, total] = parts as [string, string, string, string];
  const sum = new Decimal(b).plus(tps).plus(tvq);
  if (sum.equals(total)) return undefined;
  return `${show(item.id)}: ${base} ${b} + tps ${tps} + tvq ${tvq} = ${sum.toFixed(4)}, but total is ${total}`;
}

/** Positions where `field` increases from one item to the next (newest first means it never does). */
export function orderBreaks(items: readonly JsonObject[], field: string): string[] {
  const out: string[] = [];
  for (let i = 1; i < items.length; i += 1) {
    const prev = items[i - 1]?.[field];
    const next = items[i]?.[field];
    if (typeof prev !== "string" || typeof next !== "string") continue;
    if (Date.parse(next) > Date.parse(prev)) {
      out.push(`item ${i - 1} (${field} ${prev}) comes before a newer item ${i} (${field} ${next})`);
    }
  }
  return out;
}

// ---- created records, judged against what was sent ---------------------------------------------------

const CONTACT_ECHOED = ["type", "name", "email", "phone"] as const;

/** The contact's fields a body may leave out (§4's table). */
const CONTACT_OPTIONAL = ["email", "phone", "address", "taxNumberTPS", "taxNumberTVQ"] as const;

/** How a field that was not sent may read back: absent, null or empty, never a value from elsewhere. */
export const isNothing = (value: unknown): boolean => value === undefined || value === null || value === "";

/** The optional fields `sent` leaves out that `item` fills with something (another record's, "None"…). */
function filledUnsent(sent: JsonObject, item: JsonObject, fields: readonly string[]): FieldProblem[] {
  return fields
    .filter((f) => !(f in sent) && !isNothing(item[f]))
    .map((f) => problem(f, "not absent", `none sent, read back as ${show(item[f])}`));
}

/**
 * spec-gaps #5: a contact creation answers id, type, name, createdAt, and email and phone equal to what
 * was sent; other fields may come too, and then must have their type.
 */
export function contactCreationProblems(spec: KitSpec, sent: JsonObject, data: JsonObject): FieldProblem[] {
  const out: FieldProblem[] = [];
  if (typeof data.id !== "string" || data.id === "") {
    out.push(
      problem("id", data.id === undefined ? "missing" : "type", `${show(data.id)} is not a non-empty string`),
    );
  }
  if (!isTimestamp(data.createdAt)) {
    out.push(
      problem(
        "createdAt",
        data.createdAt === undefined ? "missing" : "format",
        `${show(data.createdAt)} is not an ISO 8601 UTC timestamp with milliseconds and Z`,
      ),
    );
  }
  const compared = new Set<string>(["id", "createdAt"]);
  for (const f of CONTACT_ECHOED) {
    if (!(f in sent)) continue;
    compared.add(f);
    if (data[f] !== sent[f])
      out.push(problem(f, "not as sent", `sent ${show(sent[f])}, answered ${show(data[f])}`));
  }
  const extras = Object.fromEntries(
    Object.entries(recordFields(spec).contacts)
      .filter(([name]) => !compared.has(name))
      .map(([name, field]): [string, Field] => [name, { ...field, optional: true }]),
  );
  return [...out, ...fieldProblems(data, extras), ...filledUnsent(sent, data, CONTACT_OPTIONAL)];
}

/**
 * A listed record against what was sent: §2's fields, every field sent read back as sent, and every
 * optional field not sent absent, null or empty.
 */
export function listedContactProblems(spec: KitSpec, sent: JsonObject, item: JsonObject): FieldProblem[] {
  const out = fieldProblems(item, recordFields(spec).contacts);
  for (const [f, sentValue] of Object.entries(sent)) {
    // An added decimal is served as §2's money: 12.5 sent reads 12.5000.
    const v =
      spec.FIELDS.contact[f]?.type === "decimal" && typeof sentValue === "number"
        ? new Decimal(sentValue).toFixed(4)
        : sentValue;
    if (item[f] !== v) out.push(problem(f, "not as sent", `sent ${show(v)}, listed ${show(item[f])}`));
  }
  return [...out, ...filledUnsent(sent, item, CONTACT_OPTIONAL)];
}

/** A product as sent (unitPrice as its JSON text) against what a list shows; defaults from §4. */
export function listedProductProblems(spec: KitSpec, sent: ProductDraft, item: JsonObject): FieldProblem[] {
  const out = fieldProblems(item, recordFields(spec).products);
  const expected: JsonObject = {
    sku: sent.sku,
    name: sent.name,
    type: sent.type ?? spec.SAMPLE.productType,
    taxable: sent.taxable ?? true,
    unitPrice: new Decimal(sent.unitPrice).toFixed(4),
    ...(sent.description === undefined ? {} : { description: sent.description }),
  };
  for (const [f, v] of Object.entries(expected)) {
    if (item[f] !== v) out.push(problem(f, "not as sent", `expected ${show(v)}, listed ${show(item[f])}`));
  }
  // Nothing sent may read back as absent, null or empty: all say "no description".
  return [...out, ...filledUnsent(sent, item, ["description"])];
}
