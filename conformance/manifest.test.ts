import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManifestError, defaultManifestPath, formatPath, loadManifest } from "./manifest.js";
import { testManifest } from "./test-support/local.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "cfk-manifest-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function write(name: string, content: string): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, content);
  return file;
}

async function errorOf(file: string): Promise<ManifestError> {
  const error = await loadManifest(file).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ManifestError);
  return error as ManifestError;
}

describe("loadManifest", () => {
  it("loads a valid manifest", async () => {
    const file = await write("ok.json", JSON.stringify(testManifest()));
    expect((await loadManifest(file)).tokens).toHaveLength(7);
  });

  it("loads the reference fixtures' manifest by default", async () => {
    const manifest = await loadManifest(defaultManifestPath());
    expect(manifest.tokens.length).toBeGreaterThan(0);
  });

  it("names the file and every offending path in one paragraph", async () => {
    const bad = testManifest();
    const tokens: unknown[] = bad.tokens.map((t, i) => (i === 3 ? { ...t, scopes: ["contacts:red"] } : t));
    tokens.push({
      label: "x",
      token: "tst_x",
      organization: "org_a",
      scopes: [],
      state: "gone",
      expiresAt: null,
    });
    const file = await write("bad.json", JSON.stringify({ ...bad, tokens }));
    const error = await errorOf(file);
    expect(error.message).toContain(file);
    expect(error.message).toContain('tokens[3].scopes[0]: invalid option: expected one of "contacts:read"');
    expect(error.message).toContain("tokens[7].state: invalid option");
    expect(error.message).not.toContain("\n");
    expect(error.file).toBe(file);
  });

  it("reports the manifest's own rules (unknown organization, wrong prefix)", async () => {
    const bad = testManifest();
    const tokens = bad.tokens.map((t, i) => (i === 1 ? { ...t, organization: "org_x", token: "zz_1" } : t));
    const error = await errorOf(await write("rules.json", JSON.stringify({ ...bad, tokens })));
    expect(error.message).toContain('tokens[1].organization: unknown organization "org_x"');
    expect(error.message).toContain('tokens[1].token: does not start with the manifest\'s prefix "tst_"');
  });

  it("says when the file is missing or not JSON", async () => {
    expect((await errorOf(join(dir, "absent.json"))).message).toMatch(
      /Cannot read the token manifest .*absent\.json: no such file/,
    );
    expect((await errorOf(await write("broken.json", "{ nope"))).message).toMatch(
      /broken\.json is not JSON: /,
    );
  });

  it("formats issue paths the way a reader writes them", () => {
    expect(formatPath(["tokens", 3, "scopes", 0])).toBe("tokens[3].scopes[0]");
    expect(formatPath(["version"])).toBe("version");
    expect(formatPath([])).toBe("");
  });
});
