/** A request's or a response's body as the journal keeps it: the start of its text, and its whole size. */
export interface JournalBody {
  /**
   * The body as UTF-8 text (bytes that are not UTF-8 as U+FFFD), at most `JOURNAL_BODY_CAP` bytes of
   * it, cut at a character's end, with anything shaped like a token redacted.
   */
  text: string;
  /** The size of the whole body, in bytes. */
  bytes: number;
  /** Whether `text` is less than the whole body (cut at the cap, or dropped to keep the journal's budget). */
  truncated: boolean;
}

/** One API request of the journal: never a token in clear, never an `Authorization` value. */
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
  /** The body the API read (null: none was read, the request refused before it or a GET). */
  requestBody: JournalBody | null;
  /** The body of the answer as sent (null: none, a pre-flight or a dropped connection). */
  responseBody: JournalBody | null;
}

/** What a request brings to the journal: its fields, its bodies' bytes as they were. */
export type JournalRecord = Omit<JournalEntry, "seq" | "requestBody" | "responseBody"> & {
  requestBody: Uint8Array | null;
  responseBody: Uint8Array | null;
};

export interface JournalFilter {
  method?: string | undefined;
  path?: string | undefined;
  status?: number | undefined;
  /** Only entries with a greater `seq`: the requests since an entry already seen. */
  after?: number | undefined;
  limit?: number | undefined;
}

export const JOURNAL_CAPACITY = 1000;
/** The most of each body an entry keeps. */
export const JOURNAL_BODY_CAP = 4096;
/**
 * The most body bytes one journal keeps in all (each sandbox has its own journal): beyond it, the
 * oldest entries lose their bodies' text and keep the rest.
 */
export const JOURNAL_BODY_BUDGET = 1024 * 1024;

/**
 * An entry as the ring keeps it: its instant as a number rather than a Date, and its bodies as the
 * bytes kept. Every API request adds one, and each lives for the next `capacity` requests, long enough
 * to leave the young generation of the heap; one object fewer per entry is less for the collector.
 */
type Kept = Omit<JournalEntry, "time" | "requestBody" | "responseBody"> & {
  at: number;
  /**
   * The bodies as they came and went, not copied (a copy cost every request more than the rest of the
   * journal); the budget counts them whole, and an entry past it drops them.
   */
  requestBody: Uint8Array | null;
  requestBytes: number;
  responseBody: Uint8Array | null;
  responseBytes: number;
};

/** The first `JOURNAL_BODY_CAP` bytes of a body, cut at a character's end. */
function capped(bytes: Uint8Array): Uint8Array {
  let end = Math.min(bytes.length, JOURNAL_BODY_CAP);
  // Back off continuation bytes (10xxxxxx) and the lead byte they follow, so no character is cut.
  if (end < bytes.length) {
    while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  }
  return bytes.subarray(0, end);
}

/** What an entry's bodies hold in memory: the bodies as they were sent, whole. */
const keptBytes = (k: Kept): number => (k.requestBody?.length ?? 0) + (k.responseBody?.length ?? 0);

const EMPTY = new Uint8Array(0);

interface Waiter {
  filter: JournalFilter;
  resolve: (entry: JournalEntry | undefined) => void;
  timer: NodeJS.Timeout;
}

/** The last `capacity` API requests, newest first: what a test asks when it wants to know what its app sent. */
export class Journal {
  readonly #capacity: number;
  /** A ring: the oldest entry is overwritten once the journal is full. */
  readonly #entries: Kept[] = [];
  #start = 0;
  #seq = 0;
  /** Body bytes held by the entries. */
  #bodyBytes = 0;
  /** Entries older than this seq hold no body text any more (they gave it up for the budget). */
  #bodiesFrom = 1;
  readonly #waiters = new Set<Waiter>();
  /** Blanks what looks like a token: the journal never gives a secret back. */
  readonly #redact: (text: string) => string;

  constructor(options: { capacity?: number; tokenPrefix?: string } = {}) {
    this.#capacity = options.capacity ?? JOURNAL_CAPACITY;
    const prefix = options.tokenPrefix;
    const pattern = prefix === undefined ? undefined : new RegExp(`${prefix}_[0-9A-Za-z]{8,}`, "g");
    this.#redact = pattern === undefined ? (t) => t : (t) => t.replace(pattern, `${prefix}_[redacted]`);
  }

  /** Keeps one request; anything shaped like a token in its query string is redacted here, before it is kept. */
  record(entry: JournalRecord): void {
    const { requestBody, responseBody } = entry;
    const kept: Kept = {
      seq: ++this.#seq,
      at: entry.time.getTime(),
      method: entry.method,
      path: entry.path,
      query: entry.query === "" ? "" : this.#redact(entry.query),
      status: entry.status,
      token: entry.token,
      organization: entry.organization,
      durationMs: entry.durationMs,
      fault: entry.fault,
      requestBody,
      requestBytes: entry.requestBody?.length ?? 0,
      responseBody,
      responseBytes: entry.responseBody?.length ?? 0,
    };
    if (this.#entries.length < this.#capacity) {
      this.#entries.push(kept);
    } else {
      const old = this.#entries[this.#start];
      if (old !== undefined) this.#bodyBytes -= keptBytes(old);
      this.#entries[this.#start] = kept;
      this.#start = (this.#start + 1) % this.#capacity;
    }
    this.#bodyBytes += keptBytes(kept);
    if (this.#bodyBytes > JOURNAL_BODY_BUDGET) this.#keepBudget();
    if (this.#waiters.size > 0) this.#wake(kept);
  }

  get size(): number {
    return this.#entries.length;
  }

  /** The newest entries first, as filtered. */
  list(filter: JournalFilter = {}): JournalEntry[] {
    const out: JournalEntry[] = [];
    const limit = filter.limit ?? this.#capacity;
    for (let i = this.#entries.length - 1; i >= 0 && out.length < limit; i--) {
      const entry = this.#at(i);
      if (entry !== undefined && matches(entry, filter)) out.push(this.#entryOf(entry));
    }
    return out;
  }

  /**
   * The oldest entry that matches `filter` (`after` included), at once if the journal has one, else
   * the first such request to be answered within `timeoutMs` of real time; undefined if none came.
   */
  waitFor(filter: JournalFilter, timeoutMs: number): Promise<JournalEntry | undefined> {
    for (let i = 0; i < this.#entries.length; i++) {
      const entry = this.#at(i);
      if (entry !== undefined && matches(entry, filter)) return Promise.resolve(this.#entryOf(entry));
    }
    return new Promise((resolve) => {
      const waiter: Waiter = {
        filter,
        resolve,
        timer: setTimeout(() => {
          this.#waiters.delete(waiter);
          resolve(undefined);
        }, timeoutMs),
      };
      this.#waiters.add(waiter);
    });
  }

  /** Forgets every entry, or one organization's. Returns how many were forgotten. */
  clear(organization?: string): number {
    const kept: Kept[] = [];
    if (organization !== undefined) {
      for (let i = 0; i < this.#entries.length; i++) {
        const entry = this.#at(i);
        if (entry !== undefined && entry.organization !== organization) kept.push(entry);
      }
    }
    const removed = this.#entries.length - kept.length;
    this.#entries.splice(0, this.#entries.length, ...kept);
    this.#start = 0;
    this.#bodyBytes = kept.reduce((sum, k) => sum + keptBytes(k), 0);
    return removed;
  }

  /** The i-th entry, oldest first. */
  #at(i: number): Kept | undefined {
    return this.#entries[(this.#start + i) % this.#entries.length];
  }

  #keepBudget(): void {
    // Entries are in seq order, oldest first: start at the oldest that still holds its bodies.
    const oldest = this.#at(0)?.seq ?? this.#bodiesFrom;
    const from = Math.max(0, this.#bodiesFrom - oldest);
    for (let i = from; i < this.#entries.length && this.#bodyBytes > JOURNAL_BODY_BUDGET; i++) {
      const entry = this.#at(i);
      if (entry === undefined) continue;
      this.#bodyBytes -= keptBytes(entry);
      entry.requestBody = entry.requestBody === null ? null : EMPTY;
      entry.responseBody = entry.responseBody === null ? null : EMPTY;
      this.#bodiesFrom = entry.seq + 1;
    }
  }

  #wake(kept: Kept): void {
    for (const waiter of this.#waiters) {
      if (!matches(kept, waiter.filter)) continue;
      this.#waiters.delete(waiter);
      clearTimeout(waiter.timer);
      waiter.resolve(this.#entryOf(kept));
    }
  }

  #bodyOf(bytes: Uint8Array | null, size: number): JournalBody | null {
    if (bytes === null) return null;
    const shown = capped(bytes);
    const text = this.#redact(Buffer.from(shown.buffer, shown.byteOffset, shown.length).toString("utf8"));
    return { text, bytes: size, truncated: shown.length < size };
  }

  /** Back to the entry as it was recorded, its fields in the order they were given. */
  #entryOf(k: Kept): JournalEntry {
    return {
      time: new Date(k.at),
      method: k.method,
      path: k.path,
      query: k.query,
      status: k.status,
      token: k.token,
      organization: k.organization,
      durationMs: k.durationMs,
      fault: k.fault,
      requestBody: this.#bodyOf(k.requestBody, k.requestBytes),
      responseBody: this.#bodyOf(k.responseBody, k.responseBytes),
      seq: k.seq,
    };
  }
}

function matches(entry: Kept, filter: JournalFilter): boolean {
  return (
    (filter.method === undefined || entry.method === filter.method) &&
    (filter.path === undefined || entry.path === filter.path) &&
    (filter.status === undefined || entry.status === filter.status) &&
    (filter.after === undefined || entry.seq > filter.after)
  );
}
