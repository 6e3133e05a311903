import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { z } from "zod";
import { alive } from "./lock.js";
import {
  FORMAT_VERSION,
  JOURNAL_FILE_RE,
  JournalEntry,
  JournalHeader,
  LOCK_FILE,
  SNAPSHOT_FILE,
  Snapshot,
  Versioned,
  journalFile,
  unframe,
  type Change,
} from "./format.js";

/**
 * Reads a data directory back: the snapshot, then the journal that follows it. Nothing here changes
 * a file; what a load finds wrong is a `DataError` naming the file, the record and the reason, except
 * a torn last record, which a crash mid-write leaves and which was never acknowledged: it is dropped
 * and reported.
 */

export class DataError extends Error {
  override readonly name = "DataError";
}

export interface LoadedChange {
  seq: number;
  change: Change;
  /** Where it was read, for a refusal that names it: `journal-3.log: record 12`. */
  at: string;
}

export interface TornRecord {
  file: string;
  /** 1-based line number of the dropped record. */
  record: number;
  bytes: number;
  reason: string;
}

export interface Loaded {
  snapshot: Snapshot;
  changes: LoadedChange[];
  journal: {
    file: string;
    /** Bytes of whole records: a torn tail beyond it is cut before anything is appended. */
    validBytes: number;
    /** Whether the file exists with its header (a crash can fall between a snapshot and its journal). */
    exists: boolean;
  };
  torn: TornRecord | null;
  /** Files left by an interrupted write or compaction, safe to delete. */
  leftovers: string[];
}

export type DirContents = { kind: "empty" } | { kind: "state"; loaded: Loaded };

/** Names a write of ours can leave: write-file-atomic's temporary snapshot, the lock's own temporaries. */
const OURS_RE = new RegExp(
  `^(${SNAPSHOT_FILE.replace(".", "\\.")}(\\.\\d+)?|${LOCK_FILE}(\\.\\d+\\.(tmp|stale))?|journal-\\d+\\.log)$`,
);

export async function loadDir(dir: string): Promise<DirContents> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return { kind: "empty" };
    throw err;
  }
  const foreign = names.filter((n) => !OURS_RE.test(n));
  const journals = names.flatMap((n) => {
    const m = JOURNAL_FILE_RE.exec(n);
    return m === null ? [] : [Number(m[1])];
  });
  if (!names.includes(SNAPSHOT_FILE)) {
    // A first start holds at most the lock; anything else is not ours to overwrite or to ignore.
    if (foreign.length > 0 || journals.length > 0) {
      const what = foreign.length > 0 ? foreign : journals.map(journalFile);
      throw new DataError(
        `${dir} holds no reference state (${SNAPSHOT_FILE}) but is not empty (${what.slice(0, 3).join(", ")}${what.length > 3 ? ", …" : ""}); give an empty or new folder`,
      );
    }
    return { kind: "empty" };
  }
  if (foreign.length > 0) {
    throw new DataError(
      `${dir} holds files the reference did not write (${foreign.slice(0, 3).join(", ")}); move them away`,
    );
  }

  const snapshotPath = join(dir, SNAPSHOT_FILE);
  const snapshot = parseRecord(snapshotPath, "the snapshot", await readFile(snapshotPath, "utf8"), Snapshot, {
    trailingNewline: true,
  });
  const later = journals.filter((g) => g > snapshot.generation);
  if (later.length > 0) {
    throw new DataError(
      `${join(dir, journalFile(later[0] ?? 0))}: a journal newer than the snapshot (generation ${snapshot.generation}); the directory was changed by hand or by another program`,
    );
  }
  const leftovers = names.filter((n) => {
    // A lock temporary of a server starting right now is its own, not a leftover.
    const lockTemp = /^lock\.(\d+)\.(tmp|stale)$/.exec(n);
    if (lockTemp !== null) return !alive(Number(lockTemp[1]));
    return (
      (n !== SNAPSHOT_FILE && n.startsWith(SNAPSHOT_FILE)) ||
      journals.some((g) => g < snapshot.generation && n === journalFile(g))
    );
  });

  const name = journalFile(snapshot.generation);
  const path = join(dir, name);
  if (!journals.includes(snapshot.generation)) {
    // A crash between the snapshot's rename and its journal's creation: the snapshot has it all.
    return {
      kind: "state",
      loaded: {
        snapshot,
        changes: [],
        journal: { file: path, validBytes: 0, exists: false },
        torn: null,
        leftovers,
      },
    };
  }
  const { changes, validBytes, torn, headerOk } = readJournal(path, await readFile(path), snapshot);
  return {
    kind: "state",
    loaded: { snapshot, changes, journal: { file: path, validBytes, exists: headerOk }, torn, leftovers },
  };
}

function readJournal(path: string, bytes: Buffer, snapshot: Snapshot) {
  const changes: LoadedChange[] = [];
  let offset = 0;
  let line = 0;
  let torn: TornRecord | null = null;
  let headerOk = false;
  let expectedSeq = snapshot.seq + 1;
  while (offset < bytes.length) {
    line += 1;
    const end = bytes.indexOf(0x0a, offset);
    const last = end === -1 || end === bytes.length - 1;
    const text = bytes.toString("utf8", offset, end === -1 ? bytes.length : end);
    const at = `${path}: record ${line}`;
    const checked = end === -1 ? { ok: false as const, reason: "no end of line" } : unframe(text);
    if (!checked.ok) {
      // Only the last record can be torn by a crash: everything before it was followed by more writes.
      if (last) {
        torn = { file: path, record: line, bytes: bytes.length - offset, reason: checked.reason };
        break;
      }
      throw new DataError(`${at}: ${checked.reason}; the journal was damaged after it was written`);
    }
    if (line === 1) {
      const header = parseJson(at, checked.json, JournalHeader);
      if (header.generation !== snapshot.generation) {
        throw new DataError(`${at}: generation ${header.generation}, expected ${snapshot.generation}`);
      }
      headerOk = true;
    } else {
      const entry = parseJson(at, checked.json, JournalEntry);
      if (entry.seq !== expectedSeq) {
        throw new DataError(`${at}: change number ${entry.seq}, expected ${expectedSeq}`);
      }
      expectedSeq += 1;
      changes.push({ seq: entry.seq, change: entry.change, at });
    }
    offset = end + 1;
  }
  return { changes, validBytes: torn === null ? bytes.length : offset, torn, headerOk };
}

function parseRecord<S extends z.ZodType>(
  path: string,
  what: string,
  text: string,
  schema: S,
  { trailingNewline }: { trailingNewline: boolean },
): z.output<S> {
  if (trailingNewline && !text.endsWith("\n")) {
    throw new DataError(`${path}: ${what} is cut short (no end of line); it is written whole or not at all`);
  }
  const checked = unframe(text.slice(0, -1));
  if (!checked.ok) throw new DataError(`${path}: ${what}: ${checked.reason}`);
  return parseJson(path, checked.json, schema);
}

function parseJson<S extends z.ZodType>(at: string, json: string, schema: S): z.output<S> {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (err) {
    throw new DataError(`${at}: not JSON (${(err as Error).message})`);
  }
  // Only headers and snapshots carry a version; a failed safeParse builds an error, too dear per record.
  const versioned =
    typeof value === "object" && value !== null && "version" in value ? Versioned.safeParse(value) : null;
  if (versioned?.success === true && versioned.data.version !== FORMAT_VERSION) {
    throw new DataError(
      `${at}: format version ${String(versioned.data.version)}; this reference reads version ${FORMAT_VERSION}`,
    );
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue === undefined || issue.path.length === 0 ? "" : ` field "${issue.path.join(".")}":`;
    throw new DataError(`${at}:${field} ${issue?.message ?? "invalid"}`);
  }
  return parsed.data;
}
