import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fixtureToken, killAllBins, startBin } from "../../test-support/bin.js";

// `--data DIR` through the real binary: what a developer restarting a fake backend sees.

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "reference-bin-data-"));
});

afterEach(async () => {
  killAllBins();
  await rm(dir, { recursive: true, force: true });
});

const BASE_URL = /listening on (http:\/\/127\.0\.0\.1:\d+)/;

async function serve(args: string[] = [], env: Record<string, string> = {}) {
  const run = startBin(["--port", "0", ...args], env);
  const [, baseUrl = ""] = await run.waitFor(BASE_URL);
  return { ...run, baseUrl };
}

describe("accounting-reference --data (bin)", () => {
  it("keeps what was created across a restart, says which state it loaded, and closes cleanly", async () => {
    const token = await fixtureToken("lumiere-full");
    const headers = { Authorization: `Bearer ${token}`, "Content-Type": "application/json" };
    const first = await serve([], { REFERENCE_DATA: dir });
    expect(first.output().stdout).toContain(`state: new in ${dir}, seeded from the fixtures in`);
    const created = await fetch(`${first.baseUrl}/api/v1/products`, {
      method: "POST",
      headers,
      body: '{"sku":"BIN-1","name":"Kept","unitPrice":1234.5678}',
    });
    expect(created.status).toBe(201);
    const { data } = (await created.json()) as { data: { id: string } };
    first.child.kill("SIGTERM");
    expect(await first.exited).toBe(0);
    expect(await readdir(dir)).not.toContain("lock");

    const second = await serve(["--data", dir]);
    expect(second.output().stdout).toMatch(
      new RegExp(`state: loaded from ${dir} \\(snapshot of \\S+ \\+ \\d+ journaled changes, \\d+ ms\\)`),
    );
    const res = await fetch(`${second.baseUrl}/api/v1/products?limit=1`, { headers });
    expect(((await res.json()) as { data: unknown[] }).data).toEqual([
      expect.objectContaining({ id: data.id, sku: "BIN-1", unitPrice: "1234.5678" }),
    ]);
    second.child.kill("SIGINT");
    expect(await second.exited).toBe(0);
  });

  it("refuses a second server on the same folder, naming the first one's PID", async () => {
    const first = await serve(["--data", dir]);
    const second = startBin(["--port", "0", "--data", dir]);
    expect(await second.exited).toBe(1);
    expect(second.output().stderr).toContain(
      `Cannot start: ${dir} is in use by the server with PID ${first.child.pid ?? "?"}`,
    );
    expect(await readFile(join(dir, "lock"), "utf8")).toBe(`${first.child.pid ?? "?"}\n`);
  });

  it("takes over the lock of a server that no longer runs, and says so in the banner", async () => {
    const first = await serve(["--data", dir]);
    first.child.kill("SIGKILL");
    await first.exited;
    const pid = first.child.pid ?? 0;
    expect(await readFile(join(dir, "lock"), "utf8")).toBe(`${pid}\n`);
    const second = await serve(["--data", dir]);
    expect(second.output().stdout).toContain(
      `state: took over the lock of ${dir} from the server with PID ${pid}, which no longer runs`,
    );
  });

  it("refuses a damaged journal with the file, the record and the reason, and no stack trace", async () => {
    const first = await serve(["--data", dir]);
    first.child.kill("SIGTERM");
    await first.exited;
    await writeFile(join(dir, "journal-1.log"), "00000000 {}\nand more\n");
    const run = startBin(["--port", "0", "--data", dir]);
    expect(await run.exited).toBe(1);
    const { stderr } = run.output();
    expect(stderr).toContain(`Cannot start: ${join(dir, "journal-1.log")}: record 1: checksum 00000000`);
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it("says in memory without --data, and lists --data with its environment twin in --help", async () => {
    const run = await serve();
    expect(run.output().stdout).toMatch(/state: in memory, from the fixtures in \S+ \(--data DIR keeps it/);
    const help = startBin(["--help"]);
    expect(await help.exited).toBe(0);
    expect(help.output().stdout).toMatch(/--data <dir>[\s\S]*REFERENCE_DATA/);
  });
});
