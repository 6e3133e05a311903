import { createHash } from "node:crypto";
import { open, readFile, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { FIXTURE_FILES, OPTIONAL_FIXTURE_FILES } from "../fixtures/load.js";

// What the data directory asks of the file system beyond reading and writing a file.

/** SHA-256 over the fixture files' names and contents: tells whether a state was seeded from these. */
export async function fixturesDigest(dir: string): Promise<string> {
  const hash = createHash("sha256");
  for (const name of Object.values(FIXTURE_FILES).sort()) {
    hash
      .update(`${name}\0`)
      .update(await readFile(join(dir, name)))
      .update("\0");
  }
  // An optional file counts only when it is there, so a folder without it keeps its digest.
  for (const name of Object.values(OPTIONAL_FIXTURE_FILES).sort()) {
    const content = await readFile(join(dir, name)).catch((err: NodeJS.ErrnoException) => {
      if (err.code === "ENOENT") return undefined;
      throw err;
    });
    if (content !== undefined) hash.update(`${name}\0`).update(content).update("\0");
  }
  return hash.digest("hex");
}

export async function fsyncDir(dir: string): Promise<void> {
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export async function writeAll(handle: FileHandle, bytes: Buffer): Promise<void> {
  let done = 0;
  while (done < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, done, bytes.length - done);
    done += bytesWritten;
  }
}
