import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyVariant, defaultSpec } from "../spec/variant.js";
import { main, type CliIo } from "./cli.js";
import { kitSpec } from "./spec/kit-spec.js";
import { fieldProblems, listedContactProblems, recordFields } from "./support/shapes.js";
import { contactBodyArb, fullProductBody, productBodyArb } from "./support/arbitraries.js";
import fc from "fast-check";

/** The spec author's commands: --spec, --print-spec, --list under a variant, spec-diff. */

let dir: string;
const file = (name: string): string => join(dir, name);

/** The six matrix variants, each with checks spec-diff must list and one it must not. */
const MATRIX = {
  "page-max-500.json": {
    variant: { limits: { page: { max: 500 } } },
    lists: ["lists.page-max", "lists.limit-out-of-range", "coverage.limit"],
    not: "ratelimit.burst",
  },
  "rate-60.json": {
    variant: { limits: { rate: { requests: 60 } } },
    lists: ["ratelimit.burst", "ratelimit.not-early", "ratelimit.counts-failures"],
    not: "lists.page-max",
  },
  "contact-name-100.json": {
    variant: { limits: { contact: { name: 100 } } },
    lists: ["contacts.length-boundaries", "contacts.invalid-bodies", "coverage.contact-fields"],
    not: "products.duplicate-sku",
  },
  "duplicate-sku-409.json": {
    variant: { errors: { duplicateSku: { status: 409, code: "conflict" } } },
    lists: ["products.duplicate-sku", "run.error-envelope"],
    not: "lists.page-max",
  },
  "product-currency.json": {
    variant: { fields: { product: { currency: { type: "string", required: false, maxLength: 3 } } } },
    lists: ["resources.products", "products.create", "products.valid-bodies"],
    not: "resources.contacts",
  },
  "contact-type-partner.json": {
    variant: { enums: { contactTypes: ["CLIENT", "SUPPLIER", "BOTH", "PARTNER"] } },
    lists: ["lists.type-filter", "contacts.valid-bodies", "coverage.contact-fields", "resources.contacts"],
    not: "products.duplicate-sku",
  },
} as const;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "cfk-spec-"));
  await writeFile(file("default.json"), "{}");
  for (const [name, { variant }] of Object.entries(MATRIX))
    await writeFile(file(name), JSON.stringify(variant));
  await writeFile(
    file("bad.json"),
    JSON.stringify({
      colour: "red",
      limits: { page: { max: 10, maxi: 3 } },
      errors: { notFound: { status: 200 } },
    }),
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const io: CliIo = {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    setExitCode: () => {},
  };
  const code = await main(["node", "conformance", ...args], io);
  return { code, stdout, stderr };
}

describe("--spec and --print-spec", () => {
  it("print the spec as written, and a variant merged over it, as JSON (exit 0)", async () => {
    const plain = await cli("--print-spec");
    expect(plain.code).toBe(0);
    expect(JSON.parse(plain.stdout)).toEqual(defaultSpec());
    const merged = await cli("--print-spec", "--spec", file("page-max-500.json"));
    expect(merged.code).toBe(0);
    expect(JSON.parse(merged.stdout)).toEqual(applyVariant({ limits: { page: { max: 500 } } }));
  });

  it("refuse a bad file with exit 2, naming every bad key path", async () => {
    const r = await cli("--print-spec", "--spec", file("bad.json"));
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    for (const path of ["colour", "limits.page.maxi", "errors.notFound.status"])
      expect(r.stderr).toContain(`  ${path}: `);
  });

  it("hold the embedded reference to the variant, which it then serves", async () => {
    const r = await cli("--spec", file("page-max-500.json"), "--grep", "^lists\\.");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
  });
});

describe("--list --format markdown --spec", () => {
  it("quotes the spec as written and says each value the variant changes beside it", async () => {
    const r = await cli("--list", "--format", "markdown", "--spec", file("page-max-500.json"));
    expect(r.code).toBe(0);
    const row = r.stdout.split("\n").find((l) => l.startsWith("| §8.2 |")) ?? "";
    expect(row).toContain("“Page size (limit) · default 50, min 1, max 200”");
    expect(row).toContain("**Under this spec:** `limits.page.max` = 500 (as written: 200)");
    // A clause the variant leaves alone says nothing more.
    expect(r.stdout.split("\n").find((l) => l.startsWith("| §8.3 |"))).not.toContain("Under this spec");
  });

  it("lists the fields a variant adds", async () => {
    const r = await cli("--list", "--format", "markdown", "--spec", file("product-currency.json"));
    expect(r.stdout).toContain("## Fields this spec adds");
    expect(r.stdout).toContain(
      '- `fields.product.currency`: {"type":"string","required":false,"maxLength":3}',
    );
  });

  it("is the committed document under the spec as written (no variant note)", async () => {
    const r = await cli("--list", "--format", "markdown");
    expect(r.stdout).not.toContain("Under this spec");
    expect(r.stdout).not.toContain("Fields this spec adds");
  });
});

describe("spec-diff", () => {
  it.each(Object.entries(MATRIX))("lists the clauses and checks %s changes (exit 0)", async (name, want) => {
    const r = await cli("spec-diff", file("default.json"), file(name));
    expect(r.code).toBe(0);
    const checks = r.stdout.slice(r.stdout.indexOf("Checks whose expectations differ"));
    const ids = checks
      .split("\n")
      .slice(1)
      .map((l) => l.trim().split(/\s+/)[0]);
    for (const id of want.lists) expect(ids).toContain(id);
    expect(ids).not.toContain(want.not);
    expect(r.stdout).toMatch(/^Clauses whose expectations differ \([1-9]\d*\):$/m);
  });

  it("prints the differing values, and nothing differs between a file and itself", async () => {
    const r = await cli("spec-diff", file("default.json"), file("duplicate-sku-409.json"));
    expect(r.stdout).toContain("errors.duplicateSku.status: 400 → 409");
    expect(r.stdout).toContain("errors.duplicateSku.code: invalid_request → conflict");
    expect(r.stdout).toMatch(
      /^ {2}§4 Products body\.7 +errors\.duplicateSku\.status, errors\.duplicateSku\.code$/m,
    );
    const same = await cli("spec-diff", file("rate-60.json"), file("rate-60.json"));
    expect(same.stdout).toMatch(/hold the same values/);
  });

  it("with one file, compares the spec as written with it", async () => {
    const one = await cli("spec-diff", file("duplicate-sku-409.json"));
    const two = await cli("spec-diff", file("default.json"), file("duplicate-sku-409.json"));
    expect(one.code).toBe(0);
    expect(one.stdout).toContain("between the spec as written and ");
    expect(one.stdout.split("\n").slice(1)).toEqual(two.stdout.split("\n").slice(1));
  });

  it("exits 2 on a bad file, naming its bad keys", async () => {
    const r = await cli("spec-diff", file("default.json"), file("bad.json"));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("limits.page.maxi");
  });
});

describe("an added field, in the record shapes", () => {
  it("is typed as the spec file says, and null or absent on records that have none", () => {
    const spec = kitSpec(applyVariant(MATRIX["product-currency.json"].variant));
    const product = {
      id: "p",
      sku: "s",
      name: "n",
      type: "PRODUCT",
      unitPrice: "1.0000",
      taxable: true,
      createdAt: "2026-01-01T00:00:00.000Z",
      updatedAt: "2026-01-01T00:00:00.000Z",
    };
    const fields = recordFields(spec).products;
    expect(fieldProblems({ ...product, currency: "CAD" }, fields)).toEqual([]);
    expect(fieldProblems({ ...product, currency: null }, fields)).toEqual([]);
    expect(fieldProblems(product, fields)).toEqual([]);
    expect(fieldProblems({ ...product, currency: 3 }, fields).map((p) => p.field)).toEqual(["currency"]);
    // Under the spec as written the field is no rule at all.
    expect(fieldProblems({ ...product, currency: 3 }, recordFields(kitSpec()).products)).toEqual([]);
  });

  it("is sent by the kit's valid bodies: a required one always, every one in the full bodies", () => {
    const spec = kitSpec(
      applyVariant({
        fields: {
          contact: { region: { type: "string", required: true, enum: ["QC", "ON"] } },
          product: {
            currency: { type: "string", required: false, maxLength: 3 },
            weight: { type: "decimal", required: true },
          },
        },
      }),
    );
    for (const body of fc.sample(contactBodyArb(spec, "cfk-t"), { numRuns: 20, seed: 7 }))
      expect(body).toMatchObject({ region: "QC" });
    for (const draft of fc.sample(productBodyArb(spec, "cfk-t"), { numRuns: 20, seed: 7 })) {
      expect(draft).toMatchObject({ weight: 12.5 });
      expect(draft).not.toHaveProperty("currency");
    }
    expect(fullProductBody(spec, "cfk-t", "sku-1")).toMatchObject({ currency: "x", weight: 12.5 });
    // A decimal read back as §2's money is what was sent.
    const contact = {
      type: "CLIENT",
      name: "n",
      region: "QC",
      id: "c",
      createdAt: "2026-01-01T00:00:00.000Z",
      updatedAt: "2026-01-01T00:00:00.000Z",
    };
    expect(listedContactProblems(spec, { type: "CLIENT", name: "n", region: "QC" }, contact)).toEqual([]);
  });
});
