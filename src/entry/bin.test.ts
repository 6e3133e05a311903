import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { defaultFixturesDir } from "../store/fixtures/paths.js";
import { killAllBins, startBin } from "../test-support/bin.js";
import { exchange, expectEnvelope, only } from "../test-support/raw-http.js";
import { tempDirs } from "../test-support/temp-dirs.js";

// The entry file, run as a user runs it: a child process, its stdout, its exit.

afterEach(killAllBins);
const temp = tempDirs("fixtures-");

describe("accounting-reference (bin)", () => {
  it("prints its base URL and the fixture tokens, serves them, and closes cleanly on SIGTERM", async () => {
    const run = startBin(["--port", "0"]);
    const [, baseUrl = ""] = await run.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
    const [, token = ""] = await run.waitFor(/^lumiere-full\s+org_lumiere\s+all\s+active\s+(acct_\w+)$/m);
    expect(run.output().stdout).toMatch(/^petitpas-full\s+org_petitpas\s+all\s+active, plan without API/m);
    expect(run.output().stdout).toContain(`docs: ${baseUrl}/docs`);
    const res = await fetch(`${baseUrl}/api/v1/contacts?limit=1`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(200);
    run.child.kill("SIGTERM");
    expect(await run.exited).toBe(0);
    // Nothing but its own closing line on stderr: no library's warning, no stack.
    expect(run.output().stderr).toBe("SIGTERM: closing\n");
  });

  it("takes its flags from environment variables too", async () => {
    const run = startBin(["--quiet"], { REFERENCE_PORT: "0", REFERENCE_TOKEN_PREFIX: "dev" });
    const [, baseUrl = ""] = await run.waitFor(/^(http:\/\/127\.0\.0\.1:\d+)$/m);
    const manifest = JSON.parse(await readFile(join(defaultFixturesDir(), "tokens.json"), "utf8")) as {
      tokens: { label: string; token: string }[];
    };
    const secret = manifest.tokens.find((t) => t.label === "lumiere-full")?.token.slice("acct_".length) ?? "";
    const ok = await fetch(`${baseUrl}/api/v1/contacts`, {
      headers: { Authorization: `Bearer dev_${secret}` },
    });
    const old = await fetch(`${baseUrl}/api/v1/contacts`, {
      headers: { Authorization: `Bearer acct_${secret}` },
    });
    expect([ok.status, old.status]).toEqual([200, 401]);
    run.child.kill("SIGINT");
    expect(await run.exited).toBe(0);
  });

  it("refuses to start on a bad fixture, naming the file, the record and the field", async () => {
    const dir = await temp.copyOf(defaultFixturesDir());
    const file = join(dir, "products.json");
    const products = JSON.parse(await readFile(file, "utf8")) as { id: string; unitPrice: string }[];
    const broken = products[3];
    if (broken === undefined) throw new Error("fixture too small");
    broken.unitPrice = "12.5";
    await writeFile(file, JSON.stringify(products));
    const run = startBin(["--port", "0", "--fixtures", dir]);
    expect(await run.exited).toBe(1);
    const { stderr } = run.output();
    expect(stderr).toContain("products.json");
    expect(stderr).toContain(broken.id);
    expect(stderr).toContain("unitPrice");
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it("refuses a bad flag with a message and shows every flag with its environment twin in --help", async () => {
    const bad = startBin(["--rate-limit", "ten"]);
    expect(await bad.exited).not.toBe(0);
    expect(bad.output().stderr).toContain("--rate-limit must be a positive integer");
    const help = startBin(["--help"]);
    expect(await help.exited).toBe(0);
    for (const env of [
      "REFERENCE_PORT",
      "REFERENCE_HOST",
      "REFERENCE_FIXTURES",
      "REFERENCE_RATE_LIMIT",
      "REFERENCE_TOKEN_PREFIX",
      "REFERENCE_NOW",
      "REFERENCE_CONTROL_KEY",
      "REFERENCE_LATENCY",
      "REFERENCE_MAX_SANDBOXES",
      "REFERENCE_SANDBOX_IDLE",
    ]) {
      expect(help.output().stdout).toContain(env);
    }
  });

  it("prints the control surface's key and serves the surface with it, on the clock --now gives", async () => {
    const run = startBin(["--port", "0", "--now", "2027-03-01T09:00:00Z", "--latency", "0-5"]);
    const [, baseUrl = "", key = ""] = await run.waitFor(
      /control surface: (http:\/\/127\.0\.0\.1:\d+)\/__control\/\s+key: (ctl_\w+)/,
    );
    expect(run.output().stdout).toContain("clock: started at 2027-03-01T09:00:00.000Z");
    expect(run.output().stdout).toContain("latency: 0-5 ms");
    const clock = await fetch(`${baseUrl}/__control/clock`, { headers: { Authorization: `Bearer ${key}` } });
    const now = ((await clock.json()) as { now: string }).now;
    expect(now.startsWith("2027-03-01T09:0")).toBe(true);
    run.child.kill("SIGTERM");
    expect(await run.exited).toBe(0);
  });

  it("bounds the sandboxes by REFERENCE_MAX_SANDBOXES, and says so in the banner", async () => {
    const run = startBin(["--port", "0"], {
      REFERENCE_CONTROL_KEY: "my-own-control-key-123",
      REFERENCE_MAX_SANDBOXES: "1",
      REFERENCE_SANDBOX_IDLE: "PT5M",
    });
    const [, baseUrl = ""] = await run.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
    await run.waitFor(
      /sandboxes: POST .*\/__control\/sandboxes \(at most 1, ended after 5 min idle; never kept by --data\)/,
    );
    const make = () =>
      fetch(`${baseUrl}/__control/sandboxes`, {
        method: "POST",
        headers: { Authorization: "Bearer my-own-control-key-123" },
      });
    expect((await make()).status).toBe(201);
    const refused = await make();
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain(
      "At most 1 sandbox at once",
    );
    run.child.kill("SIGTERM");
    expect(await run.exited).toBe(0);
  });

  it("takes a fixed control key, or none with --no-control", async () => {
    const fixed = startBin(["--port", "0"], { REFERENCE_CONTROL_KEY: "my-own-control-key-123" });
    await fixed.waitFor(/key: my-own-control-key-123$/m);
    const off = startBin(["--port", "0", "--no-control"]);
    const [, baseUrl = ""] = await off.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
    await off.waitFor(/control surface: off/);
    const res = await fetch(`${baseUrl}/__control/`, {
      headers: { Authorization: "Bearer my-own-control-key-123" },
    });
    expect(res.status).toBe(401); // the API answers: the key is no API token
  });

  it.each([
    ["--now", "tomorrow", "ISO 8601"],
    ["--control-key", "short", "at least 16"],
    ["--latency", "800-200", "milliseconds"],
    ["--max-sandboxes", "0", "positive integer"],
    ["--sandbox-idle", "30", "ISO 8601 duration"],
  ])("refuses %s %s with a message", async (flag, value, message) => {
    const bad = startBin([flag, value]);
    expect(await bad.exited).not.toBe(0);
    expect(bad.output().stderr).toContain(message);
  });

  it("answers a request Node refuses itself in the §7 envelope, with CORS", async () => {
    const run = startBin(["--quiet", "--port", "0"]);
    const [, port = ""] = await run.waitFor(/^http:\/\/127\.0\.0\.1:(\d+)$/m);
    const res = only(await exchange(Number(port), "get /api/v1/contacts HTTP/1.1\r\nHost: x\r\n\r\n"));
    expectEnvelope(res, 400, "invalid_request");
    run.child.kill("SIGTERM");
    expect(await run.exited).toBe(0);
  });
});
