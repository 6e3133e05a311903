import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { defaultSpec } from "./variant.js";
import { renderSpecJsonSchema } from "./json-schema.js";

/**
 * The default spec file is the spec as written: the numbers, codes, enumerations and endpoints read
 * here from accounting-api.md's own tables must be the file's. The spec lives beside the project
 * (`shared/spec/` next to the repository or one of its parents), never in it; SPEC_FILE names it
 * elsewhere.
 */
const spec = defaultSpec();

function specText(): string {
  let file = process.env.SPEC_FILE;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (file === undefined) {
    const candidate = join(dir, "shared", "spec", spec.source.file);
    if (existsSync(candidate)) file = candidate;
    else if (dirname(dir) === dir)
      throw new Error(`no shared/spec/${spec.source.file} above the project; set SPEC_FILE`);
    else dir = dirname(dir);
  }
  return readFileSync(file, "utf8");
}

const text = specText();
const rows = (pattern: RegExp): RegExpExecArray[] => [...text.matchAll(new RegExp(pattern, "gm"))];
const one = (pattern: RegExp): RegExpExecArray => {
  const found = rows(pattern);
  expect(found, `${pattern} in the spec`).toHaveLength(1);
  return found[0] as RegExpExecArray;
};
const words = (list: string): string[] => list.split(/, | or | and /);

describe("the default spec file", () => {
  it("was read from the spec beside the project, byte for byte (read it again when the text changes)", () => {
    expect(createHash("sha256").update(text).digest("hex")).toBe(spec.source.sha256);
  });

  it("holds §2's enumerations and §5's scopes", () => {
    // The Contact and Product tables of §2 (§4's body tables say the same beside a "Required" column).
    const contactTypes = one(/^\| type \| string \| ([A-Z]+, [A-Z]+ or [A-Z]+) \|$/)[1];
    expect(words(contactTypes ?? "")).toEqual(spec.enums.contactTypes);
    const productTypes = one(/^\| type \| string \| ([A-Z]+ or [A-Z]+) \|$/)[1];
    expect(words(productTypes ?? "")).toEqual(spec.enums.productTypes);
    expect(words(one(/^States: (DRAFT, SENT.+)\. Transitions/)[1] ?? "")).toEqual(spec.enums.invoiceStatuses);
    expect(words(one(/^States: (DRAFT, APPROVED.+)\. Transitions/)[1] ?? "")).toEqual(
      spec.enums.expenseStatuses,
    );
    expect(rows(/^\| ([a-z]+:(?:read|write)) \|/).map((m) => m[1])).toEqual(spec.enums.scopes);
  });

  it("holds §4's endpoint table and what is announced", () => {
    const table = rows(/^\| (GET|POST) \| (\/api\/v1\/[a-z]+) \| ([a-z]+:[a-z]+) \|/).map(
      ([, method, path, scope]) => ({
        method,
        path,
        scope,
      }),
    );
    expect(table).toEqual(
      Object.values(spec.endpoints).map(({ method, path, scope }) => ({ method, path, scope })),
    );
    expect(one(/^- (POST \/api\/v1\/invoices): announced/)[1]).toBe(
      `${spec.announced.createInvoice.method} ${spec.announced.createInvoice.path}`,
    );
    const filters = rows(/^\| GET \| \/api\/v1\/([a-z]+) \| [a-z:]+ \| (type|status) \(/).map(
      ([, list, param]) => [list, param],
    );
    expect(filters).toEqual(
      Object.values(spec.endpoints).flatMap((e) =>
        "filter" in e && e.filter !== undefined ? [[e.path.split("/").pop(), e.filter.param]] : [],
      ),
    );
  });

  it("holds §4's CORS sentence", () => {
    const [, methods, headers] = one(/allowed methods ([A-Z, ]+); allowed headers (.+)\. Pre-flight/);
    expect(words(methods ?? "")).toEqual(spec.cors.methods);
    expect(words(headers ?? "")).toEqual(spec.cors.headers);
  });

  it("holds §8's limits", () => {
    const [, requests] = one(/^\| Request rate \| (\d+) requests per minute;/);
    expect(spec.limits.rate).toEqual({ requests: Number(requests), windowSeconds: 60 });
    const [, def, min, max] = one(/^\| Page size \(limit\) \| default (\d+), min (\d+), max (\d+) \|$/);
    expect(spec.limits.page).toEqual({ default: Number(def), min: Number(min), max: Number(max) });
    const most = (label: string) => Number(one(new RegExp(`^\\| ${label} \\| max (\\d+) characters`))[1]);
    const contactFifty = most("Contact phone, taxNumberTPS, taxNumberTVQ");
    expect(spec.limits.contact).toEqual({
      name: most("Contact name"),
      phone: contactFifty,
      address: most("Contact address"),
      taxNumberTPS: contactFifty,
      taxNumberTVQ: contactFifty,
    });
    expect(spec.limits.product).toEqual({
      sku: most("Product sku"),
      name: most("Product name"),
      description: most("Product description"),
    });
  });

  it("holds §7's table, by situation, and §4's duplicate-sku rule", () => {
    const table = rows(/^\| (\d{3}) \| ([a-z_]+) \|/).map(([, status, code]) => ({
      status: Number(status),
      code,
    }));
    const { duplicateSku, ...bySituation } = spec.errors;
    expect(Object.values(bySituation)).toEqual(table);
    const [, status, code] = one(/a duplicate sku yields (\d{3}) with code ([a-z_]+)/);
    expect(duplicateSku).toEqual({ status: Number(status), code });
  });

  it("adds no field to the spec's resources", () => {
    expect(spec.fields).toEqual({ contact: {}, product: {} });
  });

  it("ships the JSON Schema that `npm run spec:schema` generates", () => {
    const shipped = readFileSync(new URL("./accounting-api.schema.json", import.meta.url), "utf8");
    expect(shipped).toBe(renderSpecJsonSchema());
  });
});
