import { spawn, type ChildProcess } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { defaultFixturesDir } from "../store/fixtures/paths.js";

// The entry file run as a user runs it (a child process from the TypeScript sources), for the tests
// that need a real process: its output, its exit, a SIGKILL.

const BIN = new URL("../entry/bin.ts", import.meta.url).pathname;

export interface BinRun {
  child: ChildProcess;
  exited: Promise<number | null>;
  output(): { stdout: string; stderr: string };
  /** The first match of `pattern` in stdout, waiting up to `timeoutMs` (fails sooner if the process exits). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
}

const running: ChildProcess[] = [];

export function startBin(args: string[], env: Record<string, string> = {}): BinRun {
  const child = spawn(process.execPath, ["--import", "tsx", BIN, ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (b: Buffer) => (stdout += b.toString()));
  child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const waitFor = async (pattern: RegExp, timeoutMs = 20_000): Promise<RegExpMatchArray> => {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const match = stdout.match(pattern);
      if (match) return match;
      if (child.exitCode !== null || child.signalCode !== null) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`no ${String(pattern)} in output: ${stdout} ${stderr}`);
  };
  return { child, exited, output: () => ({ stdout, stderr }), waitFor };
}

/** SIGKILL for every child still running: for afterEach. */
export function killAllBins(): void {
  for (const c of running.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
}

/** The clear token of a fixture label, read from the shipped fixtures. */
export async function fixtureToken(label: string): Promise<string> {
  const manifest = JSON.parse(await readFile(join(defaultFixturesDir(), "tokens.json"), "utf8")) as {
    tokens: { label: string; token: string }[];
  };
  const token = manifest.tokens.find((t) => t.label === label)?.token;
  if (token === undefined) throw new Error(`no fixture token ${label}`);
  return token;
}
