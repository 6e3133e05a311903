import { mkdir, open, stat, unlink, type FileHandle } from "node:fs/promises";
import { join, resolve } from "node:path";
import writeFileAtomic from "write-file-atomic";
import { z } from "zod";
import { defaultSpec } from "../../../spec/index.js";
import {
  FORMAT_VERSION,
  JournalEntry,
  JournalHeader,
  SNAPSHOT_FILE,
  Snapshot,
  markOf,
  specMismatch,
  type SpecMark,
  frame,
  journalFile,
  type Change,
  type StateImage,
} from "./format.js";
import { DataError, loadDir, type Loaded, type TornRecord } from "./load.js";
import { fixturesDigest, fsyncDir, writeAll } from "./files.js";
import { acquireLock, type DirLock } from "./lock.js";

/**
 * A data directory (`--data DIR`) while a server runs: an append-only journal, one checksummed line
 * per change, and a snapshot of the whole state that the journal follows.
 *
 * Durability: `record` queues a change in memory (the state has already applied it); `durable`
 * resolves once every change recorded before the call is fsync'd. One write and one fsync carry
 * every change recorded while the previous fsync ran (group commit), so concurrent creations share
 * the cost. Changes reach the file in the order they were recorded, so the journal on disk is always
 * a prefix of what the state did, plus at most one torn record after a crash.
 *
 * Compaction: once the journal is larger than the snapshot (and than 4 MiB), the state
 * is written whole to a new snapshot (write-file-atomic: temporary file, fsync, rename; then the
 * directory is fsync'd) and a new, empty journal follows it; the old one is deleted. Start time stays
 * proportional to the state, not to its history. A reset writes a snapshot at once: the fixtures it
 * reloads are state, not a change to replay.
 */

export interface StateSource {
  /** The whole state now. */
  image(): StateImage;
  /** Changes not journaled as they happened (token usage), since the last call: written with the next write. */
  takeLazy(): Change[];
}

export interface DataDirOptions {
  dir: string;
  tokenPrefix: string;
  /** The fixtures this run seeds from (a first start, a reset). */
  fixturesDir: string;
  /**
   * The spec this run serves, as a snapshot keeps it (`markOf`; the default file's when not given): a
   * folder written under one whose records it cannot serve is refused.
   */
  spec?: SpecMark | undefined;
  /**
   * Compact once the journal holds more bytes than this. Default: more than the snapshot and more
   * than 4 MiB, so that the work of compacting stays in proportion to what it saves.
   */
  compactAfterBytes?: number;
  /** A write or fsync failed: nothing more can be promised durable. */
  onFatal?: (err: Error) => void;
}

/** What a start found, for the banner. */
export interface DataReport {
  dir: string;
  /** `new`: seeded from the fixtures now; `loaded`: read back. */
  status: "new" | "loaded";
  /** The fixtures the state was seeded from (for `loaded`, at its first start or last reset). */
  seededFrom: string;
  /** The fixtures this run would seed from differ (in content) from those: a reset loads them. */
  fixturesChanged: boolean;
  /** When the snapshot read back was written (wall time). */
  snapshotWrittenAt: Date | null;
  /** Changes replayed from the journal after the snapshot. */
  journalChanges: number;
  torn: TornRecord | null;
  /** The PID of a server that held the folder's lock and no longer runs (gone or a zombie), or null. */
  lockTakenOverFrom: number | null;
  loadMs: number;
}

const DEFAULT_COMPACT_AFTER_BYTES = 4 * 1024 * 1024;

interface Waiter {
  seq: number;
  resolve: () => void;
  reject: (err: Error) => void;
}

export interface Opened {
  dataDir: DataDir;
  /** The state to restore, then the changes to apply after it; null for a new directory. */
  loaded: Loaded | null;
}

export class DataDir {
  readonly dir: string;
  readonly #lock: DirLock;
  readonly #options: DataDirOptions;
  readonly #fixturesSha: string;
  #seededFrom: { dir: string; sha256: string };
  #source: StateSource | undefined;
  #journal: FileHandle | undefined;
  #generation = 0;
  /** The last change number given out, and the last one known to be on disk. */
  #seq = 0;
  #durableSeq = 0;
  #lines: string[] = [];
  #waiters: Waiter[] = [];
  #compactRequested = false;
  #reseed = false;
  #running: Promise<void> | undefined;
  #failed: Error | undefined;
  #closed = false;
  #journalBytes = 0;
  #snapshotBytes = 0;
  #report: DataReport | undefined;
  readonly #stats = { changes: 0, writes: 0, snapshots: 0 };

  private constructor(options: DataDirOptions, lock: DirLock, fixturesSha: string) {
    this.dir = options.dir;
    this.#options = options;
    this.#lock = lock;
    this.#fixturesSha = fixturesSha;
    this.#seededFrom = { dir: resolve(options.fixturesDir), sha256: fixturesSha };
  }

  /** Takes the directory's lock and reads what it holds; nothing is written yet. */
  static async open(options: DataDirOptions): Promise<Opened> {
    await mkdir(options.dir, { recursive: true });
    const fixturesSha = await fixturesDigest(options.fixturesDir);
    const lock = await acquireLock(options.dir);
    try {
      const contents = await loadDir(options.dir);
      const dataDir = new DataDir(options, lock, fixturesSha);
      if (contents.kind === "empty") return { dataDir, loaded: null };
      const { snapshot } = contents.loaded;
      if (snapshot.tokenPrefix !== options.tokenPrefix) {
        throw new DataError(
          `${join(options.dir, SNAPSHOT_FILE)}: its tokens were made with the prefix "${snapshot.tokenPrefix}", not "${options.tokenPrefix}"; start with --token-prefix ${snapshot.tokenPrefix} or give another --data folder`,
        );
      }
      // A folder that names no spec was written under the default file (before issue 26).
      const kept = snapshot.spec ?? markOf(defaultSpec());
      const mismatch = specMismatch(kept, options.spec ?? markOf(defaultSpec()));
      if (mismatch !== undefined) {
        throw new DataError(
          `${join(options.dir, SNAPSHOT_FILE)}: written under the spec "${kept.title}", whose records this spec cannot serve as they are (${mismatch}); start with the --spec it was written under, or give another --data folder`,
        );
      }
      dataDir.#seededFrom = snapshot.fixtures;
      return { dataDir, loaded: contents.loaded };
    } catch (err) {
      await lock.release();
      throw err;
    }
  }

  /** Changes journaled, journal writes (one fsync each) and snapshots written since start. */
  get stats(): { changes: number; writes: number; snapshots: number; journalBytes: number } {
    return { ...this.#stats, journalBytes: this.#journalBytes };
  }

  get report(): DataReport {
    if (this.#report === undefined) throw new Error("DataDir.report before start");
    return this.#report;
  }

  /**
   * Once the state holds what `open` read (or the fixtures, for a new directory): writes the first
   * snapshot, or cuts a torn record and clears what an interrupted compaction left; then journals.
   */
  async start(source: StateSource, loaded: Loaded | null, loadMs: number): Promise<void> {
    this.#source = source;
    if (loaded === null) {
      this.#generation = 0;
      await this.#compact();
      this.#report = {
        dir: this.dir,
        status: "new",
        seededFrom: this.#seededFrom.dir,
        fixturesChanged: false,
        snapshotWrittenAt: null,
        journalChanges: 0,
        torn: null,
        lockTakenOverFrom: this.#lock.tookOverFrom,
        loadMs,
      };
      return;
    }
    const { snapshot, changes, journal, torn, leftovers } = loaded;
    this.#generation = snapshot.generation;
    this.#seq = snapshot.seq + changes.length;
    this.#durableSeq = this.#seq;
    this.#snapshotBytes = (await stat(join(this.dir, SNAPSHOT_FILE))).size;
    for (const name of leftovers) await unlink(join(this.dir, name)).catch(() => {});
    if (journal.exists) {
      const handle = await open(journal.file, "r+");
      if (torn !== null) {
        await handle.truncate(journal.validBytes);
        await handle.datasync();
      }
      await handle.close();
      this.#journal = await open(journal.file, "a");
      this.#journalBytes = journal.validBytes;
    } else {
      await this.#newJournal(snapshot.generation);
    }
    this.#report = {
      dir: this.dir,
      status: "loaded",
      seededFrom: snapshot.fixtures.dir,
      fixturesChanged: snapshot.fixtures.sha256 !== this.#fixturesSha,
      snapshotWrittenAt: snapshot.writtenAt,
      journalChanges: changes.length,
      torn,
      lockTakenOverFrom: this.#lock.tookOverFrom,
      loadMs,
    };
    if (this.#tooLong()) this.snapshot();
  }

  /** Queues one change the state has just applied. */
  record(change: Change): void {
    if (this.#closed) throw new Error(`${this.dir}: a change after the data directory was closed`);
    this.#seq += 1;
    this.#lines.push(this.#line(change, this.#seq));
    this.#kick();
  }

  /**
   * Asks for a snapshot of the state as it will be when it is taken (after the write under way):
   * a reset. `reseeded`: the whole state came from this run's fixtures.
   */
  snapshot(reseeded = false): void {
    this.#seq += 1; // a change number of its own, so that `durable` waits for the snapshot
    this.#compactRequested = true;
    if (reseeded) this.#reseed = true;
    this.#kick();
  }

  /** Resolves once everything recorded so far is on disk; rejects if a write failed. */
  durable(): Promise<void> {
    if (this.#failed !== undefined) return Promise.reject(this.#failed);
    if (this.#durableSeq >= this.#seq) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.#waiters.push({ seq: this.#seq, resolve, reject });
    });
  }

  /** Writes what is queued and the lazy changes (usage), then releases the lock. */
  async close(): Promise<void> {
    if (this.#closed) return;
    try {
      if (this.#failed === undefined && this.#source !== undefined) {
        for (const change of this.#source.takeLazy()) this.record(change);
        await this.durable();
      }
    } finally {
      this.#closed = true;
      await this.#running?.catch(() => {});
      await this.#journal?.close().catch(() => {});
      this.#journal = undefined;
      await this.#lock.release();
    }
  }

  #line(change: Change, seq: number): string {
    return frame(JSON.stringify(z.encode(JournalEntry, { seq, change })));
  }

  #tooLong(): boolean {
    const limit =
      this.#options.compactAfterBytes ?? Math.max(DEFAULT_COMPACT_AFTER_BYTES, this.#snapshotBytes);
    return this.#journalBytes > limit;
  }

  #kick(): void {
    if (this.#running !== undefined || this.#failed !== undefined || this.#source === undefined) return;
    this.#running = this.#loop().finally(() => {
      this.#running = undefined;
    });
  }

  /** One write at a time: each turn writes everything queued since the last. */
  async #loop(): Promise<void> {
    try {
      for (;;) {
        if (this.#compactRequested) await this.#compact();
        else if (this.#lines.length > 0) await this.#flush();
        else return;
      }
    } catch (err) {
      this.#fail(err instanceof Error ? err : new Error(String(err)));
    }
  }

  async #flush(): Promise<void> {
    const journal = this.#journal;
    if (journal === undefined) throw new Error("no journal open");
    for (const change of this.#source?.takeLazy() ?? []) {
      this.#seq += 1;
      this.#lines.push(this.#line(change, this.#seq));
    }
    const target = this.#seq;
    const bytes = Buffer.from(this.#lines.join(""), "utf8");
    this.#stats.changes += this.#lines.length;
    this.#stats.writes += 1;
    this.#lines = [];
    await writeAll(journal, bytes);
    await journal.datasync();
    this.#journalBytes += bytes.length;
    this.#settle(target);
    if (this.#tooLong()) this.#compactRequested = true;
  }

  /** Snapshot of the state as it is now, then a new journal: what is queued is in the snapshot. */
  async #compact(): Promise<void> {
    const source = this.#source;
    if (source === undefined) throw new Error("no state to snapshot");
    this.#compactRequested = false;
    if (this.#reseed)
      this.#seededFrom = { dir: resolve(this.#options.fixturesDir), sha256: this.#fixturesSha };
    this.#reseed = false;
    source.takeLazy(); // the image has the usage
    this.#lines = [];
    const target = this.#seq;
    const generation = this.#generation + 1;
    const snapshot: Snapshot = {
      format: "accounting-reference-state",
      version: FORMAT_VERSION,
      generation,
      seq: target,
      writtenAt: new Date(),
      tokenPrefix: this.#options.tokenPrefix,
      fixtures: this.#seededFrom,
      spec: this.#options.spec ?? markOf(defaultSpec()),
      state: source.image(),
    };
    const text = frame(JSON.stringify(z.encode(Snapshot, snapshot)));
    await writeFileAtomic(join(this.dir, SNAPSHOT_FILE), text, { fsync: true });
    await fsyncDir(this.dir);
    const previous = this.#generation;
    const old = this.#journal;
    await this.#newJournal(generation);
    await old?.close();
    if (old !== undefined || previous > 0) {
      await unlink(join(this.dir, journalFile(previous))).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== "ENOENT") throw err;
      });
    }
    this.#snapshotBytes = Buffer.byteLength(text);
    this.#stats.snapshots += 1;
    this.#settle(target);
  }

  async #newJournal(generation: number): Promise<void> {
    const file = join(this.dir, journalFile(generation));
    const handle = await open(file, "w");
    const header = Buffer.from(
      frame(
        JSON.stringify(
          z.encode(JournalHeader, {
            format: "accounting-reference-journal",
            version: FORMAT_VERSION,
            generation,
          }),
        ),
      ),
    );
    await writeAll(handle, header);
    await handle.datasync();
    await fsyncDir(this.dir);
    await handle.close();
    // Reopened for appending: every later write lands at the end, whatever the handle's position.
    this.#journal = await open(file, "a");
    this.#generation = generation;
    this.#journalBytes = header.length;
  }

  #settle(seq: number): void {
    this.#durableSeq = Math.max(this.#durableSeq, seq);
    const still: Waiter[] = [];
    for (const w of this.#waiters) {
      if (w.seq <= this.#durableSeq) w.resolve();
      else still.push(w);
    }
    this.#waiters = still;
  }

  #fail(err: Error): void {
    const failure = new Error(
      `${this.dir}: writing the state failed (${err.message}); nothing more is saved`,
      {
        cause: err,
      },
    );
    this.#failed = failure;
    for (const w of this.#waiters) w.reject(failure);
    this.#waiters = [];
    this.#options.onFatal?.(failure);
  }
}
