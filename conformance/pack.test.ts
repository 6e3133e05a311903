import { execFile, spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createServer as createNetServer, type AddressInfo } from "node:net";
import { createInterface } from "node:readline";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { blocks, example } from "../src/test-support/readme.js";
import { nth } from "./test-support/local.js";

/**
 * The kit as another project gets it: built, packed, installed from the tarball, run through npx.
 * Slow (a build and an install); the install uses the npm cache first.
 */
const root = fileURLToPath(new URL("..", import.meta.url));
const temps: string[] = [];
const PACKAGE = "accounting-api-reference";

afterAll(async () => {
  await Promise.all(temps.map((d) => rm(d, { recursive: true, force: true })));
});

// Variables npm sets for a script (`npm test`) would leak into the nested npm commands.
const env = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith("npm_")),
);

interface Manifest {
  devDependencies: Record<string, string>;
}

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

function sh(command: string, args: string[], cwd: string): Promise<Ran> {
  return promisify(execFile)(command, args, { cwd, env, maxBuffer: 32 * 1024 * 1024 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (e: { code?: number; stdout?: string; stderr?: string }) => ({
      code: typeof e.code === "number" ? e.code : -1,
      stdout: e.stdout ?? "",
      stderr: e.stderr ?? "",
    }),
  );
}

/**
 * The packages under `modules` that declare a script npm runs when it installs them: `prepare` only
 * for a package installed from a tarball or a folder (this one), not from the registry.
 */
async function installScripts(modules: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(modules, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
    const dir = join(modules, entry.name);
    if (entry.name.startsWith("@")) {
      found.push(...(await installScripts(dir)));
      continue;
    }
    const manifest = JSON.parse(await readFile(join(dir, "package.json"), "utf8")) as {
      scripts?: Record<string, string>;
    };
    const run = ["preinstall", "install", "postinstall", ...(entry.name === PACKAGE ? ["prepare"] : [])];
    for (const name of run) {
      if (manifest.scripts?.[name] !== undefined) found.push(`${entry.name} (${name})`);
    }
    if (existsSync(join(dir, "binding.gyp"))) found.push(`${entry.name} (binding.gyp)`);
    const nested = join(dir, "node_modules");
    if (existsSync(nested)) found.push(...(await installScripts(nested)));
  }
  return found;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as dashes. */
const anchorOf = (heading: string): string =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");

/**
 * The relative links (files and headings) of the README, and of every Markdown file it links to in
 * turn (the guides under docs/), that point at nothing in the installed package.
 */
async function brokenReadmeLinks(packageDir: string): Promise<string[]> {
  // A heading's anchor, or an explicit one (`<a id="gap-19"></a>`, the stance document's).
  const anchorsOf = (text: string): Set<string> =>
    new Set([
      ...[...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchorOf(m[1] ?? "")),
      ...[...text.matchAll(/<a id="([^"]+)"><\/a>/g)].map((m) => m[1] ?? ""),
    ]);
  const broken: string[] = [];
  const seen = new Set<string>();
  const queue = ["README.md"];
  for (let document = queue.shift(); document !== undefined; document = queue.shift()) {
    if (seen.has(document)) continue;
    seen.add(document);
    const text = await readFile(join(packageDir, document), "utf8");
    for (const [, target = ""] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target)) continue; // a web address
      // `file#heading`: the file is in the package, and a Markdown file has the heading.
      const [file = "", anchor] = target.split("#");
      const path = file === "" ? document : normalize(join(dirname(document), file));
      if (!existsSync(join(packageDir, path))) {
        broken.push(`${document}: ${target}`);
        continue;
      }
      if (path.endsWith(".md")) queue.push(path);
      if (anchor !== undefined && !anchorsOf(await readFile(join(packageDir, path), "utf8")).has(anchor)) {
        broken.push(`${document}: ${target}`);
      }
    }
  }
  // The guides were reached: the README links them, and they ship.
  for (const guide of [
    "docs/frontend.md",
    "docs/server.md",
    "docs/implementers.md",
    "docs/spec-authors.md",
  ]) {
    if (!seen.has(guide)) broken.push(`README.md links no path to ${guide}`);
  }
  return broken;
}

describe("the packed kit", () => {
  it(
    "installs from its tarball into another project and runs there with npx",
    { timeout: 240_000 },
    async () => {
      const build = await sh("npm", ["run", "build"], root);
      expect(build.code, build.stdout + build.stderr).toBe(0);

      const packDir = await mkdtemp(join(tmpdir(), "cfk-pack-"));
      temps.push(packDir);
      // Built just above: the prepack script need not build again.
      const pack = await sh(
        "npm",
        ["pack", "--ignore-scripts", "--json", "--pack-destination", packDir],
        root,
      );
      expect(pack.code, pack.stderr).toBe(0);
      const packed = nth(
        JSON.parse(pack.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>,
        0,
      );
      const files = packed.files.map((f) => f.path);
      expect(files).toContain("dist/conformance/bin.js");
      expect(files).toContain("dist/bundle/bin.js");
      expect(files).toContain("fixtures/tokens.json");
      expect(files.some((f) => f.endsWith(".test.js"))).toBe(false);

      const project = await mkdtemp(join(tmpdir(), "cfk-consumer-"));
      temps.push(project);
      await writeFile(join(project, "package.json"), JSON.stringify({ name: "cfk-consumer", private: true }));
      const install = await sh(
        "npm",
        ["install", "--prefer-offline", "--no-audit", "--no-fund", join(packDir, packed.filename)],
        project,
      );
      expect(install.code, install.stderr).toBe(0);
      // npm 11 warns of every install script a project has not allowed: the package brings none,
      // neither its own nor a dependency's (npm 10 says nothing, so the tree is read as well).
      expect(install.stderr).not.toMatch(/install-scripts|install script/i);
      expect(await installScripts(join(project, "node_modules"))).toEqual([]);
      // Every link of the README a user reads in node_modules (or on the registry) resolves there.
      expect(await brokenReadmeLinks(join(project, "node_modules", PACKAGE))).toEqual([]);

      const list = await sh("npx", ["conformance", "--list"], project);
      expect(list.code, list.stderr).toBe(0);
      expect(list.stdout).toMatch(/^§\d /m);
      expect(list.stdout).toMatch(/\d+ checks: \d+ MUST/);

      const help = await sh("npx", ["conformance", "--help"], project);
      expect(help.code, help.stderr).toBe(0);
      expect(help.stdout).toContain("Usage: conformance [options]");

      // The control surface's typed client is its own entry point, for test runners.
      const client = await sh(
        process.execPath,
        [
          "--input-type=module",
          "-e",
          'import { ControlClient } from "accounting-api-reference/control"; console.log(typeof ControlClient);',
        ],
        project,
      );
      expect(client.code, client.stderr).toBe(0);
      expect(client.stdout.trim()).toBe("function");

      // The client's types compile in a browser project (no Node types), strictly, library files
      // included: what it takes of the server's types reaches nothing of Node or of Express.
      await writeFile(
        join(project, "tsconfig.json"),
        JSON.stringify({
          compilerOptions: {
            target: "ES2022",
            module: "NodeNext",
            moduleResolution: "NodeNext",
            strict: true,
            noEmit: true,
            skipLibCheck: false,
            lib: ["ES2023", "DOM"],
            types: [],
          },
          include: ["client-types.ts"],
        }),
      );
      await writeFile(
        join(project, "client-types.ts"),
        [
          'import { ControlClient, type SandboxClient } from "accounting-api-reference/control";',
          'const control = new ControlClient({ baseUrl: "http://127.0.0.1:4010", key: "k" });',
          "export async function run(): Promise<string> {",
          '  await control.addFault({ path: "/api/v1/contacts", status: 500, untilCleared: true });',
          "  const sandbox: SandboxClient = await control.createSandbox();",
          '  const clock = await sandbox.advanceClock("P2D");',
          "  return clock.now;",
          "}",
        ].join("\n"),
      );
      const types = await sh(join(root, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.json"], project);
      expect(types.code, types.stdout + types.stderr).toBe(0);

      // The root exports what the README documents, nothing else.
      const rootExports = await sh(
        process.execPath,
        [
          "--input-type=module",
          "-e",
          'import * as root from "accounting-api-reference"; console.log(Object.keys(root).sort().join(" "));',
        ],
        project,
      );
      expect(rootExports.code, rootExports.stderr).toBe(0);
      expect(rootExports.stdout.trim()).toBe("ApiError createReference createServer docsRouter");

      // A reference that is not running is said so, and the source maps resolve: they carry their
      // sources, which the package does not ship as files.
      const closed = await closedPort();
      const unreachable = await sh(
        process.execPath,
        [
          "--enable-source-maps",
          "--input-type=module",
          "-e",
          `import { ControlClient } from "accounting-api-reference/control"; await new ControlClient({ baseUrl: "http://127.0.0.1:${closed}", key: "k" }).reset();`,
        ],
        project,
      );
      expect(unreachable.code).not.toBe(0);
      expect(unreachable.stderr).toContain(
        `ReferenceUnreachableError: could not reach the reference at http://127.0.0.1:${closed}: is it running? (connect ECONNREFUSED 127.0.0.1:${closed})`,
      );
      expect(unreachable.stderr).toMatch(/src\/clients\/control\.ts:\d+:\d+/);
      const maps = files.filter((f) => f.endsWith(".js.map"));
      expect(maps.length).toBeGreaterThan(100);
      const unresolved: string[] = [];
      for (const map of maps) {
        const { sources, sourcesContent } = JSON.parse(
          await readFile(join(project, "node_modules", PACKAGE, map), "utf8"),
        ) as { sources: string[]; sourcesContent?: (string | null)[] };
        const shipped = (i: number) => typeof sourcesContent?.[i] === "string";
        if (!sources.every((_, i) => shipped(i))) unresolved.push(map);
      }
      expect(unresolved).toEqual([]);

      // In-process use through msw (an optional peer, installed by the user): the reference answers
      // msw's setupServer from the installed package; a browser build gets a module saying Node only.
      const mswVersion = (JSON.parse(await readFile(join(root, "package.json"), "utf8")) as Manifest)
        .devDependencies.msw;
      const withMsw = await sh(
        "npm",
        ["install", "--prefer-offline", "--no-audit", "--no-fund", `msw@${mswVersion}`],
        project,
      );
      expect(withMsw.code, withMsw.stderr).toBe(0);
      const inProcess = await sh(
        process.execPath,
        [
          "--input-type=module",
          "-e",
          [
            'import { setupServer } from "msw/node";',
            'import { referenceHandlers } from "accounting-api-reference/msw";',
            'const server = setupServer(...referenceHandlers({}, "http://localhost:4010"));',
            'server.listen({ onUnhandledRequest: "error" });',
            'const res = await fetch("http://localhost:4010/api/v1/contacts");',
            "console.log(res.status, (await res.json()).error.code);",
            "server.close();",
          ].join("\n"),
        ],
        project,
      );
      expect(inProcess.code, inProcess.stderr).toBe(0);
      expect(inProcess.stdout.trim()).toBe("401 unauthorized");
      const inBrowser = await sh(
        process.execPath,
        ["--conditions=browser", "--input-type=module", "-e", 'import "accounting-api-reference/msw";'],
        project,
      );
      expect(inBrowser.code).not.toBe(0);
      expect(inBrowser.stderr).toContain("runs in Node only");

      // The reference's bin is the bundle (scripts/bundle.mjs): it starts from the installed package,
      // and what loads on first use (pages, OpenAPI document, --data) is found there too.
      const served = await serveInstalled(project, ["--data", join(project, "state")]);
      try {
        const auth = { Authorization: `Bearer ${served.token}` };
        const contacts = await fetch(`${served.url}/api/v1/contacts?limit=1`, { headers: auth });
        expect(contacts.status).toBe(200);
        const created = await fetch(`${served.url}/api/v1/contacts`, {
          method: "POST",
          headers: { ...auth, "Content-Type": "application/json" },
          body: JSON.stringify({ type: "CLIENT", name: "From the package" }),
        });
        expect(created.status).toBe(201);
        for (const [path, type] of [
          ["/settings/api-tokens", "text/html"],
          ["/assets/pages.css", "text/css"],
          ["/openapi.json", "application/json"],
          ["/docs/assets/swagger-ui.css", "text/css"],
        ] as const) {
          const page = await fetch(`${served.url}${path}`);
          expect(page.status, path).toBe(200);
          expect(page.headers.get("content-type"), path).toContain(type);
        }
      } finally {
        served.child.kill("SIGTERM");
        await once(served.child, "exit");
      }

      // As a CI script runs it: `npx accounting-reference`, stopped with SIGTERM to npx. npm does not
      // pass the signal on through its shell; the server must still stop, releasing --data's lock.
      const state = join(project, "npx-state");
      const npx = spawn("npx", ["accounting-reference", "--port", "0", "-q", "--data", state], {
        cwd: project,
        env,
        stdio: ["ignore", "pipe", "pipe"],
      });
      const [line] = (await once(createInterface({ input: npx.stdout }), "line")) as [string];
      expect((await fetch(`${line.trim()}/api/v1/contacts`)).status).toBe(401);
      expect(existsSync(join(state, "lock"))).toBe(true);
      npx.kill("SIGTERM");
      await once(npx, "exit");
      for (let i = 0; i < 100 && existsSync(join(state, "lock")); i++) await sleep(100);
      expect(existsSync(join(state, "lock"))).toBe(false);
      await expect(fetch(`${line.trim()}/api/v1/contacts`)).rejects.toThrow();
    },
  );

  it(
    "the README's opening commands are this checkout's: npm start serves the API and stops on SIGTERM",
    { timeout: 120_000 },
    async () => {
      // The README's first block, as written.
      expect(blocks()[0]).toMatchObject({ document: "README.md", example: "clone-setup" });
      const commands = example("clone-setup")
        .split("\n")
        .map((l) => l.replace(/#.*/, "").trim());
      expect(commands.filter((c) => c !== "")).toEqual(["npm ci && npm start", "npm test"]);
      // `npm ci` is what CI has just run; the port is the only change: a free one, not 4010.
      const start = spawn("npm", ["start"], {
        cwd: root,
        env: { ...env, REFERENCE_PORT: "0" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      try {
        let url: string | undefined;
        for await (const line of createInterface({ input: start.stdout })) {
          url = /listening on (http:\/\/\S+)/.exec(line)?.[1];
          if (url !== undefined) break;
        }
        expect(url).toBeDefined();
        expect((await fetch(`${url}/api/v1/contacts`)).status).toBe(401);
        expect((await fetch(`${url}/openapi.json`)).status).toBe(200);
        start.kill("SIGTERM");
        const [code] = (await once(start, "exit")) as [number | null];
        expect(code).toBe(0);
        await expect(fetch(`${url}/api/v1/contacts`)).rejects.toThrow();
      } finally {
        if (start.exitCode === null) start.kill("SIGKILL");
      }
    },
  );
});

/** A loopback port nothing listens on: one just closed. */
async function closedPort(): Promise<number> {
  const server = createNetServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, "close");
  return port;
}

/** Starts the installed `accounting-reference` on a free port; resolves with its URL and a fixture token. */
async function serveInstalled(
  project: string,
  args: string[],
): Promise<{ child: ChildProcess; url: string; token: string }> {
  const bin = join(project, "node_modules", ".bin", "accounting-reference");
  const child = spawn(bin, ["--port", "0", ...args], {
    cwd: project,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  let url: string | undefined;
  for await (const line of lines) {
    url ??= /listening on (http:\/\/\S+)/.exec(line)?.[1];
    const token = /^lumiere-full\s.*\s(acct_\w+)$/.exec(line.trim())?.[1];
    if (url !== undefined && token !== undefined) return { child, url, token };
  }
  throw new Error(`accounting-reference printed no URL and token: ${stderr}`);
}
