import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

/**
 * The kit against an implementation it was not written beside: a Python (standard library) server
 * written from the spec alone, with its own answers to the open points (200 for a product's
 * creation, `limit` clamped, sequential test tokens…) and realistic bugs to switch on one at a time
 * (`test-support/foreign/BUGS.md`). Here the correct server must pass on every seed, run as a user
 * runs the kit: its CLI, real HTTP. Scoring the kit on each bug takes about 25 minutes, too long for
 * CI: `score.py` beside the server does it, and DECISIONS.md keeps the figures.
 */

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SERVER = join(ROOT, "conformance", "test-support", "foreign", "server.py");
const KIT = join(ROOT, "conformance", "bin.ts");
const RATE_LIMIT = 1000;
const temps: string[] = [];
const children: ChildProcess[] = [];

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  await Promise.all(temps.map((dir) => rm(dir, { recursive: true, force: true })));
});

interface Target {
  baseUrl: string;
  manifest: string;
  stop(): Promise<void>;
}

async function startForeign(options: {
  bugs?: readonly string[];
  tokens?: "sequential" | "random";
}): Promise<Target> {
  const dir = await mkdtemp(join(tmpdir(), "cfk-foreign-"));
  temps.push(dir);
  const manifest = join(dir, "manifest.json");
  const args = [SERVER, "--port", "0", "--manifest-out", manifest, "--rate-limit", String(RATE_LIMIT)];
  args.push("--token-style", options.tokens ?? "sequential");
  for (const bug of options.bugs ?? []) args.push("--bug", bug);
  const child = spawn("python3", args, { stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  const [line] = (await once(createInterface({ input: child.stdout }), "line")) as [string];
  return {
    baseUrl: line.trim(),
    manifest,
    stop: async () => {
      child.kill("SIGTERM");
      if (child.exitCode === null) await once(child, "exit");
    },
  };
}

interface Result {
  id: string;
  level: string;
  outcome: string;
  failsRun: boolean;
}

/** The kit's CLI against the target; the exit code and every check's result. */
async function kit(target: Target, args: readonly string[]): Promise<{ code: number; results: Result[] }> {
  const report = join(target.manifest, "..", `report-${args.join("_")}.json`);
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      KIT,
      "--base-url",
      target.baseUrl,
      "--tokens",
      target.manifest,
      "--reporter",
      "json",
      "--output",
      report,
      ...args,
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, "exit")) as [number];
  const text = await readFile(report, "utf8").catch(() => {
    throw new Error(`no report (exit ${code}): ${stderr}`);
  });
  return { code, results: (JSON.parse(text) as { results: Result[] }).results };
}

const failing = (results: readonly Result[]) =>
  results.filter((r) => r.outcome === "fail").map((r) => `${r.id} (${r.level})`);

describe("a correct implementation the kit has never seen", () => {
  it.each([
    { tokens: "sequential" as const, seed: 1 },
    { tokens: "sequential" as const, seed: 2 },
    { tokens: "random" as const, seed: 3 },
  ])(
    "passes with $tokens tokens at seed $seed",
    async ({ tokens, seed }) => {
      const target = await startForeign({ tokens });
      try {
        const run = await kit(target, ["--seed", String(seed)]);
        expect(failing(run.results).filter((f) => !f.endsWith("(SHOULD)"))).toEqual([]);
        expect(run.code).toBe(0);
        // Its one legal difference that a SHOULD notes: 200, not 201, for a product's creation (gap #6).
        expect(failing(run.results)).toEqual(
          failing(run.results).filter((f) => f === "products.create-201 (SHOULD)"),
        );
      } finally {
        await target.stop();
      }
    },
    240_000,
  );
});
