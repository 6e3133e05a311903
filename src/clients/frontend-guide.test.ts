import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, vi } from "vitest";
import { blocks, documents, example, examples, ROOT, runExample } from "../test-support/readme.js";
import { CONTROL_KEY, controlledReference } from "../test-support/control.js";
import { serverTest } from "../test-support/serve.js";

// docs/frontend.md, the frontend team's guide: every example of the README and the guides is run by
// a test as written (the test named for it below), and the versions its install lines name are the
// ones this package's tests run. The control surface's examples run here.

const it = serverTest;
afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

/** Each example, and the test file that runs it as written. */
const RUN_BY: Record<string, string> = {
  // README.md
  "clone-setup": "conformance/pack.test.ts",
  "curl-contacts.sh": "src/entry/server-guide.test.ts",
  "try-a-change.sh": "src/entry/server-guide.test.ts",
  // docs/server.md
  "data-dir.sh": "src/entry/server-guide.test.ts",
  "typed-client.sh": "src/entry/server-guide.test.ts",
  "src/contacts.ts": "src/entry/server-guide.test.ts",
  // docs/implementers.md
  "run-the-kit.sh": "scripts/conformance-action.test.ts",
  "github-action.yml": "scripts/conformance-action.test.ts",
  "ci-command.sh": "scripts/conformance-action.test.ts",
  "baseline.sh": "scripts/conformance-action.test.ts",
  "tokens.json": "scripts/conformance-action.test.ts",
  // docs/frontend.md
  "ci-job.sh": "src/entry/ci-job.guide.test.ts",
  "install-playwright.sh": "src/clients/frontend-guide.test.ts",
  "playwright.config.ts": "src/clients/playwright.test.ts",
  "tests/contacts.spec.ts": "src/clients/playwright.test.ts",
  "tests/failures.spec.ts": "src/clients/playwright.test.ts",
  "tests/fixtures.ts": "src/clients/playwright.test.ts",
  "in-process-sandbox": "src/clients/frontend-guide.test.ts",
  "install-vitest.sh": "src/clients/frontend-guide.test.ts",
  "in-process.ts": "src/clients/msw.guide.test.ts",
  "vitest.config.ts": "src/clients/msw.guide.test.ts",
  "api.ts": "src/clients/msw.guide.test.ts",
  "vitest.setup.ts": "src/clients/msw.guide.test.ts",
  "contacts.test.ts": "src/clients/msw.guide.test.ts",
  "install-jest.sh": "src/clients/frontend-guide.test.ts",
  "jest.config.mjs": "src/clients/msw.guide.test.ts",
  "jest.setup.mjs": "src/clients/msw.guide.test.ts",
  "contacts.test.mjs": "src/clients/msw.guide.test.ts",
  "control-client": "src/clients/frontend-guide.test.ts",
  "sandbox-timing.sh": "src/clients/frontend-guide.test.ts",
};

const GUIDE = "docs/frontend.md";
const guide = () => readFileSync(join(ROOT, GUIDE), "utf8");

describe("the examples of the README and the guides", () => {
  it("are each run by a test, which names them", () => {
    expect([...examples().keys()].sort()).toEqual(Object.keys(RUN_BY).sort());
    for (const [name, file] of Object.entries(RUN_BY)) {
      expect(readFileSync(join(ROOT, file), "utf8"), `${file} runs ${name}`).toContain(JSON.stringify(name));
    }
  });

  it("are every code block of the README and the guides: a block is an example or output (`text`)", () => {
    expect(documents()).toEqual(
      expect.arrayContaining(["README.md", GUIDE, "docs/server.md", "docs/implementers.md"]),
    );
    const all = blocks();
    expect(all.filter((b) => b.example !== undefined)).toHaveLength(Object.keys(RUN_BY).length);
    const unrun = all.filter((b) => b.example === undefined && b.language !== "text");
    expect(unrun.map((b) => `${b.document}:${b.line} (${b.language || "no language"})`)).toEqual([]);
  });
});

/** The versions this package's tests run: its devDependencies, and the Jest example's install. */
function testedVersions(): Map<string, string> {
  const read = (file: string, field: "devDependencies" | "dependencies") =>
    Object.entries(
      (JSON.parse(readFileSync(join(ROOT, file), "utf8")) as Record<string, Record<string, string>>)[field] ??
        {},
    );
  return new Map([
    ...read("package.json", "devDependencies"),
    ...read("scripts/jest-example/package.json", "dependencies"),
  ]);
}

describe("the guide's install lines", () => {
  const installs = () =>
    [...examples()]
      .filter(([name]) => name.startsWith("install-"))
      .map(([name, { code }]) => ({ name, packages: code.replace(/^npm install --save-dev /, "").trim() }));

  it("name, for each runner and library of an example, the release the package's own tests run", () => {
    const tested = testedVersions();
    const named = new Map<string, string>();
    for (const { name, packages } of installs()) {
      for (const spec of packages.split(/\s+/)) {
        const at = spec.lastIndexOf("@");
        if (spec === "accounting-api-reference") continue;
        expect(at, `${name}: ${spec} has no version`).toBeGreaterThan(0);
        const [pkg, version] = [spec.slice(0, at), spec.slice(at + 1)];
        expect(version, `${name}: ${pkg}`).toBe(tested.get(pkg));
        named.set(pkg, version);
      }
    }
    for (const pkg of ["@playwright/test", "vitest", "jsdom", "msw", "jest", "jest-fixed-jsdom"]) {
      expect(named.has(pkg), `${pkg} is named with its version`).toBe(true);
    }
  });

  it("are the versions installed here, which run on this Node", () => {
    for (const pkg of ["@playwright/test", "vitest", "jsdom", "msw"]) {
      const installed = JSON.parse(readFileSync(join(ROOT, "node_modules", pkg, "package.json"), "utf8")) as {
        version: string;
      };
      expect(installed.version, pkg).toBe(testedVersions().get(pkg));
    }
    // Each install line is one command: the package and the releases named, nothing else.
    for (const { packages } of installs()) {
      expect(packages.split(/\s+/)[0]).toBe("accounting-api-reference");
    }
  });

  it("say which @playwright/test releases the fixture accepts, as its peer range does", () => {
    const peer = (
      JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
        peerDependencies: Record<string, string>;
      }
    ).peerDependencies["@playwright/test"];
    const [, major, minor] = /^\^(\d+)\.(\d+)\.0$/.exec(peer ?? "") ?? [];
    expect(guide()).toContain(`the fixture accepts ${major}.${minor} or later`);
  });
});

describe("the guide's control examples", () => {
  it("control-client: resets, arms and clears a fault, and expires lumiere-expires-tomorrow", async ({
    serve,
  }) => {
    const ref = await controlledReference();
    vi.stubEnv("REFERENCE_URL", `http://127.0.0.1:${await serve(ref.app)}`);
    vi.stubEnv("REFERENCE_CONTROL_KEY", CONTROL_KEY);
    ref.control.setClock({ advance: "P9D" }); // what the reset puts back
    await runExample("control-client");
    expect(ref.control.clock().now).toBe("2026-11-22T12:00:00.000Z");
    const expiring = ref.tokens.get(ref.tokenId("lumiere-expires-tomorrow"));
    expect(expiring?.status).toBe("Expired");
    expect(ref.control.faults()).toEqual([]);
  });

  it("in-process-sandbox: a fault in a sandbox, which the default state never sees", async () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    await runExample("in-process-sandbox");
    expect(log).toHaveBeenCalledWith(500, 0);
  });

  it("sandbox-timing.sh: makes 20 sandboxes with curl and prints curl's time for each", async ({ serve }) => {
    const ref = await controlledReference();
    const port = await serve(ref.app);
    const script = example("sandbox-timing.sh").replaceAll("4010", String(port));
    expect(script).not.toBe(example("sandbox-timing.sh"));
    const { stdout } = await promisify(execFile)("bash", ["-c", script], {
      env: { ...process.env, REFERENCE_CONTROL_KEY: CONTROL_KEY },
    });
    const times = stdout.trim().split("\n");
    expect(times).toHaveLength(20);
    for (const t of times) expect(t).toMatch(/^\d+\.\d+$/);
    expect(ref.control.sandboxes()).toHaveLength(20);
  });
});
