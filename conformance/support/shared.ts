import type { SharedSlot } from "../types.js";

/**
 * What the checks of one run share: reads made once (the first page of a list), records created once
 * and read by several checks, the experiments a PROBE and its REFERENCE judge together. Each module
 * declares the slots it fills, next to the code that fills them (support/data.ts, checks/contacts.ts,
 * ...); the run's store (`ctx.shared`) makes each slot's value on first use, one per run, so runs side
 * by side share nothing. A check run alone (--grep) fills what it needs; a whole run fills each once.
 */

/** A slot of promises made once per key for the run (a Memo). */
export const memoSlot = <K, V>(name: string): SharedSlot<Memo<K, V>> => ({
  name,
  make: () => new Memo<K, V>(),
});

/** A slot of one promise made once for the run (a Once). */
export const onceSlot = <V>(name: string): SharedSlot<Once<V>> => ({ name, make: () => new Once<V>() });

/** A slot of a plain mutable value for the run, starting from `initial()`. */
export const valueSlot = <V extends object>(name: string, initial: () => V): SharedSlot<V> => ({
  name,
  make: initial,
});

/**
 * Promises made once per key for the run. A rejected one is forgotten, so that the next check asking
 * tries again rather than inherit another check's skip or failure.
 */
export class Memo<K, V> {
  readonly #made = new Map<K, Promise<V>>();

  get(key: K, make: () => Promise<V>): Promise<V> {
    const hit = this.#made.get(key);
    if (hit !== undefined) return hit;
    const made = make();
    this.#made.set(key, made);
    made.catch(() => this.#made.delete(key));
    return made;
  }
}

/** A Memo of one value. */
export class Once<V> {
  readonly #memo = new Memo<null, V>();

  get(make: () => Promise<V>): Promise<V> {
    return this.#memo.get(null, make);
  }
}
