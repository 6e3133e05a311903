import { readFileSync } from "node:fs";
import { link, readFile, rename, unlink, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { LOCK_FILE } from "./format.js";

/**
 * One writer per data directory: a lock file holding the PID of the server that writes there.
 *
 * A PID file rather than `proper-lockfile`: that library detects a stale lock by its age (seconds of
 * mtime refreshes), so a server restarted right after a crash would be refused for that long, and it
 * cannot say which process holds the lock. Here a lock whose process is gone is taken over at once,
 * and the refusal names the PID. The lock is created with `link`, so that it never exists half-written,
 * and a stale one is moved aside with `rename`, which only one of two racing servers can do to it.
 */

export class LockError extends Error {
  override readonly name = "LockError";
}

/** Directories this process holds: a second open in the same process is refused like another process. */
const held = new Set<string>();

export interface DirLock {
  readonly file: string;
  /** The PID of the server whose stale lock was taken over (it no longer runs), or null. */
  readonly tookOverFrom: number | null;
  release(): Promise<void>;
}

/**
 * Whether a process with this PID still runs (EPERM: it does, owned by another user). A zombie has
 * exited and only waits for its parent to read its status (a container without an init never does):
 * it holds nothing any more, so it does not count.
 */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
  return !isZombie(pid);
}

/** Linux's /proc/PID/stat: the state letter follows the command's closing parenthesis. */
function isZombie(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return false; // not Linux, or gone meanwhile: kill's answer stands
  }
  const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  return state === "Z" || state === "X";
}

const readPid = async (file: string): Promise<number | undefined> => {
  try {
    const text = (await readFile(file, "utf8")).trim();
    return /^[1-9][0-9]*$/.test(text) ? Number(text) : undefined;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
};

const code = (err: unknown) => (err as NodeJS.ErrnoException).code;

export async function acquireLock(dir: string): Promise<DirLock> {
  const key = resolve(dir);
  const file = join(dir, LOCK_FILE);
  if (held.has(key)) throw new LockError(`${dir} is already in use by this process (${file})`);
  const mine = join(dir, `${LOCK_FILE}.${process.pid}.tmp`);
  await writeFile(mine, `${process.pid}\n`, { flush: true });
  try {
    // A few rounds at most: each lost race either ends with a live holder (refused) or a fresh try.
    let tookOverFrom: number | null = null;
    for (let round = 0; round < 5; round += 1) {
      try {
        await link(mine, file);
        held.add(key);
        return {
          file,
          tookOverFrom,
          release: async () => {
            held.delete(key);
            // Only our own lock: after a takeover by another server, its lock is not ours to remove.
            if ((await readPid(file)) === process.pid) await unlink(file);
          },
        };
      } catch (err) {
        if (code(err) !== "EEXIST") throw err;
      }
      const pid = await readPid(file);
      // The same PID as ours is a lock left by an earlier life of this PID (a container's PID 1
      // restarted), since this process has not taken it.
      if (pid !== undefined && pid !== process.pid && alive(pid)) {
        throw new LockError(
          `${dir} is in use by the server with PID ${pid} (${file}); stop it, or give another --data folder`,
        );
      }
      await takeOver(dir, file, pid);
      // Our own PID in the lock is an earlier life of this PID: nothing to tell.
      if (pid !== undefined && pid !== process.pid) tookOverFrom = pid;
    }
    throw new LockError(`${dir}: could not take the lock ${file} (other servers keep starting on it)`);
  } finally {
    await unlink(mine).catch(() => {});
  }
}

/** Moves a stale lock aside; puts it back if, between reading and moving, a live server had taken it. */
async function takeOver(dir: string, file: string, stalePid: number | undefined): Promise<void> {
  const aside = join(dir, `${LOCK_FILE}.${process.pid}.stale`);
  try {
    await rename(file, aside);
  } catch (err) {
    if (code(err) === "ENOENT") return; // another server moved it first; try again
    throw err;
  }
  const moved = await readPid(aside);
  if (moved !== stalePid && moved !== undefined && alive(moved)) {
    await link(aside, file).catch(() => {});
  }
  await unlink(aside).catch(() => {});
}
