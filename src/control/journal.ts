import type { JournalEntryView } from "./wire.js";

/** One API request as the journal keeps it (see `JournalEntryView` for the fields), its time as a Date. */
export type JournalEntry = Omit<JournalEntryView, "time"> & { time: Date };

export interface JournalFilter {
  path?: string;
  status?: number;
  limit?: number;
}

export const JOURNAL_CAPACITY = 1000;

/** The last `capacity` API requests, newest first: what a test asks when it wants to know what its app sent. */
export class Journal {
  readonly #capacity: number;
  /** A ring: the oldest entry is overwritten once the journal is full. */
  readonly #entries: JournalEntry[] = [];
  #start = 0;
  #seq = 0;

  constructor(capacity = JOURNAL_CAPACITY) {
    this.#capacity = capacity;
  }

  record(entry: Omit<JournalEntry, "seq">): void {
    const full = { ...entry, seq: ++this.#seq };
    if (this.#entries.length < this.#capacity) {
      this.#entries.push(full);
    } else {
      this.#entries[this.#start] = full;
      this.#start = (this.#start + 1) % this.#capacity;
    }
  }

  get size(): number {
    return this.#entries.length;
  }

  list(filter: JournalFilter = {}): JournalEntry[] {
    const out: JournalEntry[] = [];
    const limit = filter.limit ?? this.#capacity;
    for (let i = this.#entries.length - 1; i >= 0 && out.length < limit; i--) {
      const entry = this.#entries[(this.#start + i) % this.#entries.length];
      if (entry === undefined) continue;
      if (filter.path !== undefined && entry.path !== filter.path) continue;
      if (filter.status !== undefined && entry.status !== filter.status) continue;
      out.push({ ...entry });
    }
    return out;
  }

  /** Forgets every entry, or one organization's. Returns how many were forgotten. */
  clear(organization?: string): number {
    const kept = organization === undefined ? [] : this.list().filter((e) => e.organization !== organization);
    const removed = this.#entries.length - kept.length;
    this.#entries.splice(0, this.#entries.length, ...kept.reverse());
    this.#start = 0;
    return removed;
  }
}
