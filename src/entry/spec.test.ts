import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SpecVariantError } from "../../spec/index.js";
import { fixtureToken, killAllBins, startBin } from "../test-support/bin.js";
import { tempDirs } from "../test-support/temp-dirs.js";
import { createReference } from "./reference.js";

// `--spec FILE` (REFERENCE_SPEC) and `createReference({ spec })`: a variant served, or refused whole.

afterEach(killAllBins);
const temp = tempDirs("spec-");

async function variantFile(variant: unknown): Promise<string> {
  const file = join(await temp.make(), "variant.json");
  await writeFile(file, JSON.stringify(variant));
  return file;
}

describe("accounting-reference --spec", () => {
  it("serves the variant: a page of up to 500, and says which spec it serves", async () => {
    const file = await variantFile({ title: "big pages", limits: { page: { max: 500 } } });
    const run = startBin(["--port", "0", "--spec", file]);
    const [, baseUrl = ""] = await run.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
    await run.waitFor(/^lumiere-full/m);
    expect(run.output().stdout).toContain(`spec: ${file} (big pages), merged over the default file`);
    const auth = { Authorization: `Bearer ${await fixtureToken("lumiere-full")}` };
    expect((await fetch(`${baseUrl}/api/v1/contacts?limit=500`, { headers: auth })).status).toBe(200);
    expect((await fetch(`${baseUrl}/api/v1/contacts?limit=501`, { headers: auth })).status).toBe(400);
    const document = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as {
      paths: Record<string, { get?: { parameters?: { name: string; schema: { maximum?: number } }[] } }>;
    };
    const limit = document.paths["/api/v1/contacts"]?.get?.parameters?.find((p) => p.name === "limit");
    expect(limit?.schema.maximum).toBe(500);
    run.child.kill("SIGTERM");
    expect(await run.exited).toBe(0);
  });

  it("takes REFERENCE_SPEC as its environment twin", async () => {
    const file = await variantFile({ limits: { rate: { requests: 60 } } });
    const run = startBin(["--port", "0"], { REFERENCE_SPEC: file });
    await run.waitFor(/rate limit: 60 requests a minute per token/);
    run.child.kill("SIGTERM");
    expect(await run.exited).toBe(0);
  });

  it("refuses a bad variant with exit 2, naming every bad key path, and does not start", async () => {
    const file = await variantFile({
      limits: { page: { max: 10 }, contact: { nmae: 100 } },
      errors: { duplicateSku: { status: 700 } },
    });
    const run = startBin(["--port", "0", "--spec", file]);
    expect(await run.exited).toBe(2);
    const { stdout, stderr } = run.output();
    expect(stdout).toBe("");
    expect(stderr).toContain(`Cannot start: ${file} is not a valid spec:`);
    expect(stderr).toContain("limits.page.max: must be at least limits.page.default (50)");
    expect(stderr).toContain("limits.contact.nmae: is not a key of the spec file");
    expect(stderr).toContain("errors.duplicateSku.status: must be a 4xx or 5xx status");
  });

  it("refuses a variant that takes away an enumeration value the fixtures use, naming key and records", async () => {
    const file = await variantFile({ enums: { contactTypes: ["CLIENT", "SUPPLIER"] } });
    const run = startBin(["--port", "0", "--spec", file]);
    expect(await run.exited).toBe(2);
    expect(run.output().stderr).toMatch(
      /Cannot start: the spec is not a valid spec:\n {2}enums\.contactTypes: lacks BOTH, which the fixtures use \(contacts\.json: con_\w+/,
    );
  });
});

describe("createReference({ spec })", () => {
  it("takes a variant object, merged over the default file", async () => {
    const ref = await createReference({ spec: { limits: { contact: { name: 100 } } }, controlKey: null });
    expect(ref.spec.limits.contact.name).toBe(100);
    expect(ref.spec.limits.contact.phone).toBe(50);
    expect(ref.state.spec).toBe(ref.spec);
  });

  it("throws SpecVariantError with every problem of a bad variant", async () => {
    const made = createReference({ spec: { limits: { page: { default: 0 } }, enums: { nope: [] } } });
    await expect(made).rejects.toBeInstanceOf(SpecVariantError);
    const err = (await made.catch((e: unknown) => e)) as SpecVariantError;
    expect([...new Set(err.problems.map((p) => p.path))].sort()).toEqual([
      "enums.nope",
      "limits.page.default",
    ]);
  });

  it("refuses a filter the reference cannot serve, by its key", async () => {
    const made = createReference({
      spec: { endpoints: { listProducts: { filter: { param: "type", values: "productTypes" } } } },
    });
    await expect(made).rejects.toThrow(/endpoints\.listProducts\.filter\.values: the reference filters/);
  });
});
