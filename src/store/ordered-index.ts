/**
 * A collection kept sorted by (key, id) ascending, read newest first. Lists are served from it in
 * O(log n + limit): a binary search finds where `before` cuts, then the page is read backwards.
 * Inserting is a binary search plus a splice; new records usually carry the newest key, so the
 * splice is an append.
 */
export interface Keyed {
  id: string;
}

export class OrderedIndex<T extends Keyed> {
  readonly #items: T[] = [];
  readonly #key: (item: T) => number;

  /** `key` must not change while the item is in the index (a timestamp in ms). */
  constructor(key: (item: T) => number) {
    this.#key = key;
  }

  get size(): number {
    return this.#items.length;
  }

  insert(item: T): void {
    this.#items.splice(this.#upperBound(this.#key(item), item.id), 0, item);
  }

  /**
   * Up to `limit` items, newest first, whose key is strictly below `before` (exclusive, spec-gaps #8).
   * Ties on the key are broken by id, descending.
   */
  newestFirst(limit: number, before?: number): T[] {
    let end = before === undefined ? this.#items.length : this.#lowerBound(before);
    const page: T[] = [];
    while (end > 0 && page.length < limit) {
      end -= 1;
      page.push(this.#items[end] as T);
    }
    return page;
  }

  /** First position whose key is >= `key`. */
  #lowerBound(key: number): number {
    let lo = 0;
    let hi = this.#items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#key(this.#items[mid] as T) < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** First position that sorts after (key, id). */
  #upperBound(key: number, id: string): number {
    let lo = 0;
    let hi = this.#items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const other = this.#items[mid] as T;
      const otherKey = this.#key(other);
      if (otherKey < key || (otherKey === key && other.id <= id)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
