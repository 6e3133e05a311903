import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { installBinFromSources } from "../test-support/installed.js";
import { example } from "../test-support/readme.js";

/**
 * The frontend guide's CI job (`ci-job.sh`) run by bash as written, in a project where the package's
 * bin is where an install puts it (running this checkout's sources; the packed bin is
 * `conformance/pack.test.ts`'s), but for two things a test must change: the port (a free one, not
 * 4010) and `npm run test:e2e` (a suite of two requests: the API without a token, the control surface
 * with its key).
 */

let dir: string;
let group: number | undefined;
afterEach(async () => {
  // Whatever the job left running, should it not have stopped it itself.
  if (group !== undefined) process.kill(-group, "SIGKILL");
  group = undefined;
  await rm(dir, { recursive: true, force: true });
});

async function freePort(): Promise<number> {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  server.close();
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

describe("the frontend guide's CI job", () => {
  it("starts the server, waits for it, runs the suite against it, stops it and exits with the suite's status", async () => {
    dir = await mkdtemp(join(tmpdir(), "acct-ci-job-"));
    const port = await freePort();
    await installBinFromSources(dir);
    await writeFile(
      join(dir, "suite.mjs"),
      `const url = process.env.REFERENCE_URL;
const api = await fetch(url + "/api/v1/contacts");
const control = await fetch(url + "/__control/", { headers: { Authorization: "Bearer " + process.env.REFERENCE_CONTROL_KEY } });
console.log("suite", api.status, control.status);
process.exit(api.status === 401 && control.status === 200 ? 0 : 1);
`,
    );
    const script = example("ci-job.sh")
      .replaceAll("4010", String(port))
      .replace("npm run test:e2e", `${JSON.stringify(process.execPath)} suite.mjs`);
    expect(script).not.toBe(example("ci-job.sh"));
    const job = spawn("bash", ["-c", script], {
      cwd: dir,
      env: {
        ...process.env,
        REFERENCE_CONTROL_KEY: "ci-job-control-key-0123456789",
      },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    group = job.pid;
    let output = "";
    job.stdout.on("data", (b: Buffer) => (output += b.toString()));
    job.stderr.on("data", (b: Buffer) => (output += b.toString()));
    const [code] = (await once(job, "exit")) as [number];
    group = undefined;
    expect(output).toContain("suite 401 200");
    expect(output).toContain("SIGTERM: closing");
    expect(code, output).toBe(0);
    // Stopped: nothing listens on the port any more.
    await expect(fetch(`http://127.0.0.1:${port}/openapi.json`)).rejects.toThrow();
  }, 60_000);
});
