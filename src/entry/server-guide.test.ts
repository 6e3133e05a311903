import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { chmod, copyFile, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterEach, describe, expect } from "vitest";
import { INSTALLED_BIN, installBinFromSources } from "../test-support/installed.js";
import { example, ROOT } from "../test-support/readme.js";
import { freePort, serverTest } from "../test-support/serve.js";
import { createReference } from "./reference.js";

/**
 * The README's request and the server's guide (docs/server.md) run as written, in a project of their
 * own where the package is where an install puts it (this checkout's sources run by tsx; the packed
 * package is `conformance/pack.test.ts`'s). A test changes only the port: 4010 is not free here.
 */

const it = serverTest;
const temps: string[] = [];
afterEach(async () => {
  await Promise.all(temps.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

const env = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith("npm_") && !k.startsWith("VITEST")),
);
const sh = async (script: string, cwd: string, extra: Record<string, string> = {}) =>
  (await promisify(execFile)("bash", ["-c", script], { cwd, env: { ...env, ...extra } })).stdout;

async function project(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "acct-server-guide-"));
  temps.push(dir);
  await writeFile(join(dir, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
  return dir;
}

describe("the README's first request", () => {
  it("curl-contacts.sh: lists five contacts with the fixture token it names", async ({ serve }) => {
    const port = await serve((await createReference({ log: () => {} })).app);
    const script = example("curl-contacts.sh");
    const body = JSON.parse(await sh(script.replaceAll("4010", String(port)), ROOT)) as { data: unknown[] };
    expect(body.data).toHaveLength(5);
  });
});

describe("the server's guide", () => {
  it(
    "data-dir.sh: the first start seeds the folder, the next one loads it, as the banner the guide shows says",
    { timeout: 60_000 },
    async () => {
      const dir = await project();
      await installBinFromSources(dir);
      const bin = join(dir, "node_modules/.bin/accounting-reference");
      await mkdir(join(bin, ".."), { recursive: true });
      await writeFile(bin, `#!/bin/sh\nexec node "${join(dir, INSTALLED_BIN)}" "$@"\n`);
      await chmod(bin, 0o755);

      /** Runs the guide's command until its banner's state line; then stops it as Ctrl-C would. */
      const start = async (): Promise<string> => {
        const child = spawn("bash", ["-c", example("data-dir.sh")], {
          cwd: dir,
          env: { ...env, REFERENCE_PORT: "0" },
          stdio: ["ignore", "pipe", "pipe"],
          detached: true,
        });
        try {
          for await (const line of createInterface({ input: child.stdout })) {
            if (line.trim().startsWith("state:")) return line.trim();
          }
          throw new Error("no state line in the banner");
        } finally {
          process.kill(-(child.pid ?? 0), "SIGINT");
          if (child.exitCode === null) await once(child, "exit");
        }
      };
      const documented = /```text\n([\s\S]*?)```/
        .exec(readFileSync(join(ROOT, "docs/server.md"), "utf8"))?.[1]
        ?.split("\n")
        .map((l) => l.trim()) ?? [""];
      // The guide's lines up to what changes from run to run (the fixtures' path, the snapshot's time).
      const first = await start();
      expect(first.startsWith((documented[0] ?? "").split(" /…")[0] ?? "-")).toBe(true);
      expect(first).toContain("; every change is kept there");
      const second = await start();
      expect(second.startsWith((documented[1] ?? "").split(" (")[0] ?? "-")).toBe(true);
    },
  );

  it(
    "typed-client.sh and src/contacts.ts: the types generated from the shipped openapi.json, the client listing clients",
    { timeout: 120_000 },
    async ({ serve }) => {
      const dir = await project();
      // The install line names the releases this package's tests run (the registry is not asked here).
      const dev = (
        JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
          devDependencies: Record<string, string>;
        }
      ).devDependencies;
      const [install, generate = ""] = example("typed-client.sh").trim().split("\n");
      expect(install).toBe(
        `npm install openapi-fetch@${dev["openapi-fetch"]} && npm install -D openapi-typescript@${dev["openapi-typescript"]}`,
      );
      // What that install and the package's put in node_modules.
      await mkdir(join(dir, "node_modules/.bin"), { recursive: true });
      await mkdir(join(dir, "node_modules/accounting-api-reference"));
      await copyFile(
        join(ROOT, "openapi.json"),
        join(dir, "node_modules/accounting-api-reference/openapi.json"),
      );
      for (const pkg of ["openapi-fetch", "openapi-typescript"]) {
        await symlink(join(ROOT, "node_modules", pkg), join(dir, "node_modules", pkg));
      }
      await symlink(
        join(ROOT, "node_modules/openapi-typescript/bin/cli.js"),
        join(dir, "node_modules/.bin/openapi-typescript"),
      );
      await mkdir(join(dir, "src"));
      await sh(generate, dir);

      const reference = await createReference({ log: () => {} });
      const port = await serve(reference.app);
      await writeFile(
        join(dir, "src/contacts.ts"),
        example("src/contacts.ts").replaceAll("4010", String(port)),
      );
      const token = reference.manifest.tokens.find((t) => t.label === "lumiere-full")?.token ?? "";
      const printed = await sh(`${join(ROOT, "node_modules/.bin/tsx")} src/contacts.ts`, dir, {
        API_TOKEN: token,
      });
      const res = await reference.fetch("http://localhost/api/v1/contacts?type=CLIENT&limit=10", {
        headers: { Authorization: `Bearer ${token}` },
      });
      const names = ((await res.json()) as { data: { name: string }[] }).data.map((c) => c.name);
      expect(names.length).toBeGreaterThan(0);
      for (const name of names) expect(printed).toContain(name);
    },
  );
});

describe("the README's spec author", () => {
  it(
    "try-a-change.sh: spec-diff names the draft's change, the reference serves the draft and the kit passes it under the draft",
    // The kit paces itself to §8's 100 requests a minute: about two minutes against a real server.
    { timeout: 400_000 },
    async () => {
      const dir = await project();
      // `npx accounting-reference` and `npx conformance` as an install puts them, running this checkout.
      await mkdir(join(dir, "node_modules/.bin"), { recursive: true });
      // One node process each, tsx's loader inside it (the tsx command would run a second one, which
      // the script's `kill $!` would not reach).
      const loader = pathToFileURL(join(ROOT, "node_modules/tsx/dist/loader.mjs")).href;
      for (const [name, entry] of [
        ["accounting-reference", "src/entry/bin.ts"],
        ["conformance", "conformance/bin.ts"],
      ] as const) {
        const bin = join(dir, "node_modules/.bin", name);
        await writeFile(bin, `#!/bin/sh\nexec node --import "${loader}" "${join(ROOT, entry)}" "$@"\n`);
        await chmod(bin, 0o755);
      }
      const port = await freePort();
      const script = example("try-a-change.sh").replaceAll("4011", String(port));
      expect(script).not.toBe(example("try-a-change.sh"));
      const out = await sh(script, dir);
      expect(out).toContain("limits.page.max: 200 → 500");
      expect(out).toMatch(/^PASSED: \d+ passed, 0 failed/m);
    },
  );
});
