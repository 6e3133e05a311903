/** One API request as the journal keeps it: never a token in clear, never an `Authorization` value. */
export interface JournalEntry {
  /** Increasing with each request, so that a client can tell new entries from seen ones. */
  seq: number;
  /** When it arrived, on the reference's clock. */
  time: Date;
  method: string;
  path: string;
  /** The query string as sent, without `?`, with anything shaped like a token redacted. */
  query: string;
  /** null when the connection was closed without an answer (a `drop` fault, or the client left). */
  status: number | null;
  /** The label of the token presented, when it is a known token (active, expired or revoked). */
  token: string | null;
  organization: string | null;
  /** Real time spent answering, in ms (injected latency included). */
  durationMs: number;
  /** The id of the fault that took the request. */
  fault: string | null;
}

export interface JournalFilter {
  path?: string | undefined;
  status?: number | undefined;
  limit?: number | undefined;
}

export const JOURNAL_CAPACITY = 1000;

/**
 * An entry as the ring keeps it: its instant as a number rather than a Date. Every API request adds
 * one, and each lives for the next `capacity` requests, long enough to leave the young generation
 * of the heap; one object fewer per entry is less for the collector to carry.
 */
type Kept = Omit<JournalEntry, "time"> & { at: number };

const keep = (entry: Omit<JournalEntry, "seq">, seq: number): Kept => ({
  seq,
  at: entry.time.getTime(),
  method: entry.method,
  path: entry.path,
  query: entry.query,
  status: entry.status,
  token: entry.token,
  organization: entry.organization,
  durationMs: entry.durationMs,
  fault: entry.fault,
});

/** Back to the entry as it was recorded, its fields in the order they were given. */
const entryOf = (k: Kept): JournalEntry => ({
  time: new Date(k.at),
  method: k.method,
  path: k.path,
  query: k.query,
  status: k.status,
  token: k.token,
  organization: k.organization,
  durationMs: k.durationMs,
  fault: k.fault,
  seq: k.seq,
});

/** The last `capacity` API requests, newest first: what a test asks when it wants to know what its app sent. */
export class Journal {
  readonly #capacity: number;
  /** A ring: the oldest entry is overwritten once the journal is full. */
  readonly #entries: Kept[] = [];
  #start = 0;
  #seq = 0;

  constructor(capacity = JOURNAL_CAPACITY) {
    this.#capacity = capacity;
  }

  record(entry: Omit<JournalEntry, "seq">): void {
    const kept = keep(entry, ++this.#seq);
    if (this.#entries.length < this.#capacity) {
      this.#entries.push(kept);
    } else {
      this.#entries[this.#start] = kept;
      this.#start = (this.#start + 1) % this.#capacity;
    }
  }

  get size(): number {
    return this.#entries.length;
  }

  list(filter: JournalFilter = {}): JournalEntry[] {
    return this.#newestFirst(filter).map(entryOf);
  }

  /** Forgets every entry, or one organization's. Returns how many were forgotten. */
  clear(organization?: string): number {
    const kept =
      organization === undefined ? [] : this.#newestFirst().filter((e) => e.organization !== organization);
    const removed = this.#entries.length - kept.length;
    this.#entries.splice(0, this.#entries.length, ...kept.reverse());
    this.#start = 0;
    return removed;
  }

  #newestFirst(filter: JournalFilter = {}): Kept[] {
    const out: Kept[] = [];
    const limit = filter.limit ?? this.#capacity;
    for (let i = this.#entries.length - 1; i >= 0 && out.length < limit; i--) {
      const entry = this.#entries[(this.#start + i) % this.#entries.length];
      if (entry === undefined) continue;
      if (filter.path !== undefined && entry.path !== filter.path) continue;
      if (filter.status !== undefined && entry.status !== filter.status) continue;
      out.push(entry);
    }
    return out;
  }
}
