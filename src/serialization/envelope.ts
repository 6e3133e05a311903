import type { Response } from "express";

/**
 * The success envelope of §1, `{ "data": … }`, as the bytes sent.
 *
 * A list is the bytes of its items joined inside the envelope, which is exactly what
 * `JSON.stringify({ data: items })` gives for objects. An item's bytes (its JSON text in UTF-8) are
 * kept beside it when the item is frozen (the served shape of a stored record, see
 * `resources.ts`), so a record read by many lists is turned into JSON and encoded once rather than
 * once per list; a list answer then costs a copy of its items' bytes.
 */
const encoded = new WeakMap<object, Buffer>();

function itemBytes(item: unknown): Buffer {
  if (typeof item !== "object" || item === null) return Buffer.from(JSON.stringify(item) ?? "null");
  const known = encoded.get(item);
  if (known !== undefined) return known;
  const bytes = Buffer.from(JSON.stringify(item) ?? "null");
  if (Object.isFrozen(item)) encoded.set(item, bytes);
  return bytes;
}

const LIST_START = Buffer.from('{"data":[');
const COMMA = Buffer.from(",");
const LIST_END = Buffer.from("]}");

export function dataBody(data: unknown): Buffer {
  if (!Array.isArray(data)) return Buffer.from(JSON.stringify({ data }));
  const parts: Buffer[] = [LIST_START];
  data.forEach((item, i) => {
    if (i > 0) parts.push(COMMA);
    parts.push(itemBytes(item));
  });
  parts.push(LIST_END);
  return Buffer.concat(parts);
}

/** DECISIONS #32: what `res.json` would send, written straight to Node's response. */
export const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

/**
 * Sends `{ data }` with `status`: the same status and headers as Express's `res.json` (Content-Type
 * with its charset, Content-Length; no ETag, which the app turns off), without `res.send`'s work
 * that never applies here (HEAD, 204 and 304 never reach a handler).
 */
export function sendData(res: Response, status: number, data: unknown): void {
  const body = dataBody(data);
  res.statusCode = status;
  res.setHeader("Content-Type", JSON_CONTENT_TYPE);
  res.setHeader("Content-Length", body.length);
  res.end(body);
}
