import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { acquireLock, LockError } from "./lock.js";

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "reference-lock-"));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const lockFile = () => join(dir, "lock");

/** A process that lives until told to die, and its PID. */
function liveProcess() {
  const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60_000)"], { stdio: "ignore" });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return { pid: child.pid ?? 0, kill: async () => (child.kill("SIGKILL"), exited) };
}

/**
 * A zombie and its PID: `sh` starts `sleep 0` in the background and then becomes `sleep 60`, which
 * never waits for it, so the child stays a zombie until its parent is killed.
 */
async function zombieProcess(): Promise<{ pid: number; reap: () => Promise<unknown> }> {
  const parent = spawn("sh", ["-c", "sleep 0 & echo $!; exec sleep 60"], {
    stdio: ["ignore", "pipe", "ignore"],
  });
  const exited = new Promise((resolve) => parent.once("exit", resolve));
  const [line] = (await once(createInterface({ input: parent.stdout }), "line")) as [string];
  const pid = Number(line);
  // The child exits at once; it is a zombie as soon as the kernel says so.
  for (let i = 0; i < 200 && (await procState(pid)) !== "Z"; i++) await sleep(10);
  return { pid, reap: async () => (parent.kill("SIGKILL"), exited) };
}

/** The state letter of /proc/PID/stat, or undefined without one. */
async function procState(pid: number): Promise<string | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => undefined);
  return stat === undefined ? undefined : stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
}

describe("the data folder's lock", () => {
  it("holds this server's PID, refuses a second holder in the same process, and is released on close", async () => {
    const lock = await acquireLock(dir);
    expect(await readFile(lockFile(), "utf8")).toBe(`${process.pid}\n`);
    await expect(acquireLock(dir)).rejects.toThrow(/already in use by this process/);
    await lock.release();
    expect(await readdir(dir)).toEqual([]);
    await (await acquireLock(dir)).release();
  });

  it("refuses a folder locked by a live process, naming its PID", async () => {
    const other = liveProcess();
    try {
      await writeFile(lockFile(), `${other.pid}\n`);
      const refused = await acquireLock(dir).catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(LockError);
      expect((refused as Error).message).toContain(`in use by the server with PID ${other.pid}`);
      expect(await readFile(lockFile(), "utf8")).toBe(`${other.pid}\n`);
      expect(await readdir(dir)).toEqual(["lock"]);
    } finally {
      await other.kill();
    }
  });

  it("takes over a lock left by a process that is gone", async () => {
    const gone = liveProcess();
    await gone.kill();
    await writeFile(lockFile(), `${gone.pid}\n`);
    const lock = await acquireLock(dir);
    expect(lock.tookOverFrom).toBe(gone.pid);
    expect(await readFile(lockFile(), "utf8")).toBe(`${process.pid}\n`);
    await lock.release();
  });

  it("takes over a lock held by a zombie (exited, never reaped: a container without an init), naming it", async () => {
    const zombie = await zombieProcess();
    try {
      expect(await procState(zombie.pid)).toBe("Z");
      await writeFile(lockFile(), `${zombie.pid}\n`);
      const lock = await acquireLock(dir);
      expect(lock.tookOverFrom).toBe(zombie.pid);
      expect(await readFile(lockFile(), "utf8")).toBe(`${process.pid}\n`);
      await lock.release();
    } finally {
      await zombie.reap();
    }
  });

  it("takes over a lock holding its own PID (a restarted container's PID 1) or no PID at all", async () => {
    for (const content of [`${process.pid}\n`, "", "not a pid"]) {
      await writeFile(lockFile(), content);
      const lock = await acquireLock(dir);
      expect(await readFile(lockFile(), "utf8")).toBe(`${process.pid}\n`);
      await lock.release();
    }
  });

  it("leaves a lock alone on release once another server has taken it", async () => {
    const lock = await acquireLock(dir);
    await writeFile(lockFile(), "12345678\n");
    await lock.release();
    expect(await readFile(lockFile(), "utf8")).toBe("12345678\n");
  });
});
