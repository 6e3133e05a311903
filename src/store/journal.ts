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

/** The first `JOURNAL_BODY_CAP` bytes of a body, cut at a character's end. */
function capped(bytes: Uint8Array): Uint8Array {
  let end = Math.min(bytes.length, JOURNAL_BODY_CAP);
  // Back off continuation bytes (10xxxxxx) and the lead byte they follow, so no character is cut.
  if (end < bytes.length) {
    while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  }
  return bytes.subarray(0, end);
}

interface Waiter {
  filter: JournalFilter;
  resolve: (entry: JournalEntry | undefined) => void;
  timer: NodeJS.Timeout;
}

/** No body: the column value of a body that was not read or not sent. */
const NO_BODY = -1;

/** Where a journal's ring of bodies starts: it grows, doubling, up to `JOURNAL_BODY_BUDGET`. */
const FIRST_RING_BYTES = 16 * 1024;

/**
 * The bodies' bytes: each body's first `JOURNAL_BODY_CAP` bytes are copied in, one after the other,
 * into one buffer used round and round once it has grown to `JOURNAL_BODY_BUDGET` bytes. A body is
 * placed at an absolute offset (bytes written since the start, the gap left at the end of a round
 * included); it is still whole while fewer than a buffer's length of bytes have been written after
 * its start, and it was not overwritten before the buffer last grew.
 */
class BodyRing {
  #bytes = new Uint8Array(FIRST_RING_BYTES);
  /** Bytes written since the start, as an absolute offset. */
  #written = 0;
  /** Bodies placed before this offset were overwritten before the ring last grew. */
  #wholeFrom = 0;

  /** Copies a body in; its absolute offset. */
  add(body: Uint8Array): number {
    let size = this.#bytes.length;
    // A body never straddles the end of a round: the rest of the round is left empty.
    const gap = (this.#written % size) + body.length > size ? size - (this.#written % size) : 0;
    if (this.#written + gap + body.length > size && size < JOURNAL_BODY_BUDGET) {
      this.#grow(Math.min(JOURNAL_BODY_BUDGET, size * 2));
      size = this.#bytes.length;
    }
    if ((this.#written % size) + body.length > size) this.#written += size - (this.#written % size);
    const at = this.#written;
    this.#bytes.set(body, at % size);
    this.#written += body.length;
    return at;
  }

  /** Whether the body of `length` bytes at `at` is still whole. */
  holds(at: number, length: number): boolean {
    return at >= this.#wholeFrom && this.#written - at <= this.#bytes.length && length <= this.#bytes.length;
  }

  text(at: number, length: number): string {
    const start = at % this.#bytes.length;
    return Buffer.from(this.#bytes.buffer, this.#bytes.byteOffset + start, length).toString("utf8");
  }

  /** The bytes of the last round move to where their offsets fall in a larger buffer. */
  #grow(size: number): void {
    const old = this.#bytes;
    const bytes = new Uint8Array(size);
    const from = Math.max(this.#wholeFrom, this.#written - old.length);
    for (let at = from; at < this.#written; ) {
      const run = Math.min(this.#written - at, old.length - (at % old.length), size - (at % size));
      bytes.set(old.subarray(at % old.length, (at % old.length) + run), at % size);
      at += run;
    }
    this.#bytes = bytes;
    this.#wholeFrom = from;
  }
}

/**
 * The last `capacity` API requests, newest first: what a test asks when it wants to know what its app
 * sent. Every API request adds an entry, and each lives for the next `capacity` requests, long enough
 * to leave the young generation of the heap: so an entry is no object but a row of columns written in
 * place (numbers in typed arrays, the bodies' first bytes copied into one ring), and recording one
 * allocates nothing that the request had not already made (bytes promoted per creation 858 -> 668,
 * RSS after 100 000 creations about 190 -> 165 MiB: DECISIONS.md, "The request path (issue #28)").
 */
export class Journal {
  readonly #capacity: number;
  /** Rows in use, and the row of the oldest entry: the rows are a ring. */
  #size = 0;
  #start = 0;
  #seq = 0;
  readonly #seqs: Float64Array;
  readonly #at: Float64Array;
  /** null as -1. */
  readonly #status: Int32Array;
  readonly #durationMs: Float64Array;
  readonly #method: string[];
  readonly #path: string[];
  readonly #query: string[];
  readonly #token: (string | null)[];
  readonly #organization: (string | null)[];
  readonly #fault: (string | null)[];
  /** Each body: its offset in the ring (NO_BODY: none), the bytes kept of it, and its whole size. */
  readonly #requestAt: Float64Array;
  readonly #requestKept: Int32Array;
  readonly #requestBytes: Int32Array;
  readonly #responseAt: Float64Array;
  readonly #responseKept: Int32Array;
  readonly #responseBytes: Int32Array;
  readonly #bodies = new BodyRing();
  readonly #waiters = new Set<Waiter>();
  /** Blanks what looks like a token: the journal never gives a secret back. */
  readonly #redact: (text: string) => string;

  constructor(options: { capacity?: number; tokenPrefix?: string } = {}) {
    const capacity = options.capacity ?? JOURNAL_CAPACITY;
    this.#capacity = capacity;
    this.#seqs = new Float64Array(capacity);
    this.#at = new Float64Array(capacity);
    this.#status = new Int32Array(capacity);
    this.#durationMs = new Float64Array(capacity);
    this.#method = new Array<string>(capacity).fill("");
    this.#path = new Array<string>(capacity).fill("");
    this.#query = new Array<string>(capacity).fill("");
    this.#token = new Array<string | null>(capacity).fill(null);
    this.#organization = new Array<string | null>(capacity).fill(null);
    this.#fault = new Array<string | null>(capacity).fill(null);
    this.#requestAt = new Float64Array(capacity);
    this.#requestKept = new Int32Array(capacity);
    this.#requestBytes = new Int32Array(capacity);
    this.#responseAt = new Float64Array(capacity);
    this.#responseKept = new Int32Array(capacity);
    this.#responseBytes = new Int32Array(capacity);
    const prefix = options.tokenPrefix;
    const pattern = prefix === undefined ? undefined : new RegExp(`${prefix}_[0-9A-Za-z]{8,}`, "g");
    this.#redact = pattern === undefined ? (t) => t : (t) => t.replace(pattern, `${prefix}_[redacted]`);
  }

  /** Keeps one request; anything shaped like a token in its query string is redacted here, before it is kept. */
  record(entry: JournalRecord): void {
    let row: number;
    if (this.#size < this.#capacity) {
      row = (this.#start + this.#size) % this.#capacity;
      this.#size += 1;
    } else {
      row = this.#start;
      this.#start = (this.#start + 1) % this.#capacity;
    }
    this.#seqs[row] = ++this.#seq;
    this.#at[row] = entry.time.getTime();
    this.#status[row] = entry.status ?? -1;
    this.#durationMs[row] = entry.durationMs;
    this.#method[row] = entry.method;
    this.#path[row] = entry.path;
    this.#query[row] = entry.query === "" ? "" : this.#redact(entry.query);
    this.#token[row] = entry.token;
    this.#organization[row] = entry.organization;
    this.#fault[row] = entry.fault;
    this.#keepBody(entry.requestBody, row, this.#requestAt, this.#requestKept, this.#requestBytes);
    this.#keepBody(entry.responseBody, row, this.#responseAt, this.#responseKept, this.#responseBytes);
    if (this.#waiters.size > 0) this.#wake(row);
  }

  get size(): number {
    return this.#size;
  }

  /** The newest entries first, as filtered. */
  list(filter: JournalFilter = {}): JournalEntry[] {
    const out: JournalEntry[] = [];
    const limit = filter.limit ?? this.#capacity;
    for (let i = this.#size - 1; i >= 0 && out.length < limit; i--) {
      const row = this.#row(i);
      if (this.#matches(row, filter)) out.push(this.#entryOf(row));
    }
    return out;
  }

  /**
   * The oldest entry that matches `filter` (`after` included), at once if the journal has one, else
   * the first such request to be answered within `timeoutMs` of real time; undefined if none came.
   */
  waitFor(filter: JournalFilter, timeoutMs: number): Promise<JournalEntry | undefined> {
    for (let i = 0; i < this.#size; i++) {
      const row = this.#row(i);
      if (this.#matches(row, filter)) return Promise.resolve(this.#entryOf(row));
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
    const before = this.#size;
    const kept: number[] = [];
    if (organization !== undefined) {
      for (let i = 0; i < this.#size; i++) {
        const row = this.#row(i);
        if (this.#organization[row] !== organization) kept.push(row);
      }
    }
    // The rows kept move to the front, in order; their bodies stay where they are in the ring.
    for (const column of [this.#seqs, this.#at, this.#status, this.#durationMs]) moveRows(column, kept);
    for (const column of [this.#requestAt, this.#requestKept, this.#requestBytes]) moveRows(column, kept);
    for (const column of [this.#responseAt, this.#responseKept, this.#responseBytes]) moveRows(column, kept);
    for (const column of [this.#method, this.#path, this.#query]) moveRows(column, kept);
    for (const column of [this.#token, this.#organization, this.#fault]) moveRows(column, kept);
    this.#start = 0;
    this.#size = kept.length;
    return before - kept.length;
  }

  /** The row of the i-th entry, oldest first. */
  #row(i: number): number {
    return (this.#start + i) % this.#capacity;
  }

  #keepBody(
    body: Uint8Array | null,
    row: number,
    at: Float64Array,
    kept: Int32Array,
    bytes: Int32Array,
  ): void {
    if (body === null) {
      at[row] = NO_BODY;
      kept[row] = 0;
      bytes[row] = 0;
      return;
    }
    const shown = capped(body);
    at[row] = this.#bodies.add(shown);
    kept[row] = shown.length;
    bytes[row] = body.length;
  }

  #wake(row: number): void {
    for (const waiter of this.#waiters) {
      if (!this.#matches(row, waiter.filter)) continue;
      this.#waiters.delete(waiter);
      clearTimeout(waiter.timer);
      waiter.resolve(this.#entryOf(row));
    }
  }

  /** A body as shown: its first bytes as text, or none once later bodies have taken its place in the ring. */
  #bodyOf(at: number, kept: number, size: number): JournalBody | null {
    if (at === NO_BODY) return null;
    if (!this.#bodies.holds(at, kept)) return { text: "", bytes: size, truncated: true };
    return { text: this.#redact(this.#bodies.text(at, kept)), bytes: size, truncated: kept < size };
  }

  /** The entry of a row, its fields in the order they were given. */
  #entryOf(row: number): JournalEntry {
    const status = this.#status[row] ?? -1;
    return {
      time: new Date(this.#at[row] ?? 0),
      method: this.#method[row] ?? "",
      path: this.#path[row] ?? "",
      query: this.#query[row] ?? "",
      status: status < 0 ? null : status,
      token: this.#token[row] ?? null,
      organization: this.#organization[row] ?? null,
      durationMs: this.#durationMs[row] ?? 0,
      fault: this.#fault[row] ?? null,
      requestBody: this.#bodyOf(
        this.#requestAt[row] ?? NO_BODY,
        this.#requestKept[row] ?? 0,
        this.#requestBytes[row] ?? 0,
      ),
      responseBody: this.#bodyOf(
        this.#responseAt[row] ?? NO_BODY,
        this.#responseKept[row] ?? 0,
        this.#responseBytes[row] ?? 0,
      ),
      seq: this.#seqs[row] ?? 0,
    };
  }

  #matches(row: number, filter: JournalFilter): boolean {
    return (
      (filter.method === undefined || this.#method[row] === filter.method) &&
      (filter.path === undefined || this.#path[row] === filter.path) &&
      (filter.status === undefined || this.#status[row] === filter.status) &&
      (filter.after === undefined || (this.#seqs[row] ?? 0) > filter.after)
    );
  }
}

/** Moves the values of `rows`, in order, to the first rows of a column. */
function moveRows<T>(column: { [row: number]: T }, rows: readonly number[]): void {
  const values = rows.map((row) => column[row]);
  values.forEach((value, i) => {
    if (value !== undefined) column[i] = value;
  });
}
