import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";

export interface TempDirs {
  /** An empty folder, removed after the test. */
  make(): Promise<string>;
  /** A copy of `source` (the shipped fixtures, say), removed after the test. */
  copyOf(source: string): Promise<string>;
}

/** Folders under the system's temporary folder, each removed after the test that made it. */
export function tempDirs(prefix: string): TempDirs {
  const made: string[] = [];
  afterEach(async () => {
    await Promise.all(made.splice(0).map((d) => rm(d, { recursive: true, force: true })));
  });
  const make = async (): Promise<string> => {
    const dir = await mkdtemp(join(tmpdir(), prefix));
    made.push(dir);
    return dir;
  };
  return {
    make,
    copyOf: async (source) => {
      const dir = await make();
      await cp(source, dir, { recursive: true });
      return dir;
    },
  };
}
