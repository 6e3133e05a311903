/**
 * A collection kept sorted by (key, tie) ascending, and among equal (key, tie) in the order of
 * insertion; read newest first. Lists are served from it in O(log n + limit): a binary search finds
 * where `before` cuts, then the page is read backwards. Inserting is a binary search plus a splice;
 * new records usually carry the newest key, so the splice is an append.
 */
export interface Keyed {
  id: string;
}

export class OrderedIndex<T extends Keyed> {
  readonly #items: T[] = [];
  readonly #key: (item: T) => number;
  readonly #tie: (item: T) => number;

  /**
   * `key` orders the list and `before` cuts on it; `tie` orders items of equal key. Neither may change
   * while the item is in the index (timestamps in ms).
   */
  constructor(key: (item: T) => number, tie: (item: T) => number = () => 0) {
    this.#key = key;
    this.#tie = tie;
  }

  get size(): number {
    return this.#items.length;
  }

  insert(item: T): void {
    this.#items.splice(this.#upperBound(this.#key(item), this.#tie(item)), 0, item);
  }

  /**
   * Up to `limit` items, newest first, whose key is strictly below `before` (exclusive, spec-gaps #8).
   * Items of equal key and tie come last inserted first: ids are random, so only the order of
   * insertion says which of two records made within one millisecond is the newer.
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

  /** First position that sorts after (key, tie): after every item already there with both equal. */
  #upperBound(key: number, tie: number): number {
    let lo = 0;
    let hi = this.#items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const other = this.#items[mid] as T;
      const otherKey = this.#key(other);
      if (otherKey < key || (otherKey === key && this.#tie(other) <= tie)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
