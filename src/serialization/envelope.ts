import type { Response } from "express";

/**
 * The success envelope of §1, `{ "data": … }`, as the JSON text sent.
 *
 * A list is the texts of its items joined inside the envelope, which is exactly what
 * `JSON.stringify({ data: items })` gives for objects. An item's text is kept beside it when the item
 * is frozen (the served shape of a stored record, see `resources.ts`), so a record read by many
 * lists is turned into JSON once rather than once per list.
 */
const texts = new WeakMap<object, string>();

function itemText(item: unknown): string {
  if (typeof item !== "object" || item === null) return JSON.stringify(item) ?? "null";
  const known = texts.get(item);
  if (known !== undefined) return known;
  const text = JSON.stringify(item) ?? "null";
  if (Object.isFrozen(item)) texts.set(item, text);
  return text;
}

export function dataJson(data: unknown): string {
  return Array.isArray(data) ? `{"data":[${data.map(itemText).join(",")}]}` : JSON.stringify({ data });
}

/** DECISIONS #32: what `res.json` would send, written straight to Node's response. */
export const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

/**
 * Sends `{ data }` with `status`. The same status and headers as Express's `res.json` (Content-Type
 * with its charset, Content-Length; no ETag, which the app turns off), without `res.send`'s work
 * that never applies here: HEAD, 204 and 304 never reach a handler, and the text is handed to Node
 * as a string, so that the headers and the body leave in one write.
 */
export function sendData(res: Response, status: number, data: unknown): void {
  const body = dataJson(data);
  res.statusCode = status;
  res.setHeader("Content-Type", JSON_CONTENT_TYPE);
  res.setHeader("Content-Length", Buffer.byteLength(body));
  res.end(body);
}
