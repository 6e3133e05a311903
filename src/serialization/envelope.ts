import type { Stored } from "../model/records.js";

/**
 * The success envelope of §1, `{ "data": … }`, as the bytes sent.
 *
 * A stored record never changes (`Stored`, src/model/records.ts), so its JSON is made once:
 * `cachedBytes` keeps each stored record's bytes beside it (a WeakMap, so a record the store drops
 * takes them along) and a list answer is its items' bytes joined inside the envelope, exactly what
 * `JSON.stringify({ data: items })` gives. Lists read the same records again and again; formatting
 * their timestamps and decimals and encoding them once was most of a list's cost (DECISIONS.md,
 * "Performance (issue #11)"; `npm run bench:list` re-measures a list read).
 */

/** A stored record's served JSON as bytes, made on its first read and kept while the record lives. */
export function cachedBytes<R extends object>(toJson: (record: R) => unknown): (record: Stored<R>) => Buffer {
  const kept = new WeakMap<Stored<R>, Buffer>();
  return (record) => {
    let bytes = kept.get(record);
    if (bytes === undefined) {
      bytes = jsonBytes(toJson(record));
      kept.set(record, bytes);
    }
    return bytes;
  };
}

export const jsonBytes = (value: unknown): Buffer => Buffer.from(JSON.stringify(value) ?? "null");

const DATA_START = Buffer.from('{"data":');
const LIST_START = Buffer.from('{"data":[');
const COMMA = Buffer.from(",");
const LIST_END = Buffer.from("]}");
const END = Buffer.from("}");

/** `{ "data": <item> }` around one item's bytes. */
export const dataBytes = (item: Buffer): Buffer => Buffer.concat([DATA_START, item, END]);

/** `{ "data": [ … ] }` around the items' bytes. */
export function listBytes(items: readonly Buffer[]): Buffer {
  const parts: Buffer[] = [LIST_START];
  items.forEach((item, i) => {
    if (i > 0) parts.push(COMMA);
    parts.push(item);
  });
  parts.push(LIST_END);
  return Buffer.concat(parts);
}

/** DECISIONS #32: what Express's `res.json` would send. */
export const JSON_CONTENT_TYPE = "application/json; charset=utf-8";
