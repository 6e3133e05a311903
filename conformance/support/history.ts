import type { HttpExchange, HttpRequest } from "../types.js";
import { isRecord, type JsonObject } from "./assert.js";
import { type KitSpec, type ListName } from "../spec/kit-spec.js";

/**
 * Reading the run's history (`http.history()`) after the fact: who sent each request, what it sent,
 * what it created. The final phase's judges use it to hold every answer of a kind to a rule, whichever
 * check received it.
 */

/**
 * The organization whose manifest token the request carries, a raw header made from one included (its
 * holder sent it: `bearer <token>`, a near miss); undefined for none or any other raw header.
 */
export function orgOf(request: HttpRequest): string | undefined {
  const auth = request.auth;
  if (auth === null || auth === undefined) return undefined;
  return "header" in auth ? auth.derivedFrom?.token.organization : auth.organization;
}

/** The answer's `Date` header in ms, if it has a readable one. */
export function dateOf(ex: HttpExchange): number | undefined {
  const value = ex.headers.date;
  const ms = value === undefined ? Number.NaN : Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/** The request's JSON body, parsed (raw bodies included), or undefined. */
export function sentBody(request: HttpRequest): unknown {
  if (request.json !== undefined) return request.json;
  if (typeof request.rawBody !== "string") return undefined;
  try {
    return JSON.parse(request.rawBody) as unknown;
  } catch {
    return undefined;
  }
}

/** Every string anywhere in a JSON value. */
export function stringsOf(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const v of value) stringsOf(v, out);
  else if (isRecord(value)) for (const v of Object.values(value)) stringsOf(v, out);
  return out;
}

/** What a request carried that an answer may fairly echo: its body's strings, path segments, query values. */
export function sentStrings(request: HttpRequest): string[] {
  const segments = request.path.split("/").map((s) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  });
  const query = Object.values(request.query ?? {}).flatMap((v) => (typeof v === "string" ? [v] : [...v]));
  return [...stringsOf(sentBody(request)), ...segments, ...query];
}

/** A record the kit created: the POST that made it, and what names it in later reads. */
export interface Creation {
  /** Its place in the history: the exchanges before it are the instants before its creation. */
  index: number;
  ex: HttpExchange;
  list: ListName;
  org: string;
  sent: JsonObject;
  /** The id the creation answered, if any. */
  id: string | undefined;
}

const CREATABLE: readonly ListName[] = ["contacts", "products"];

/** Every creation of the run: a 2xx answer to a POST on contacts or products with a manifest token. */
export function creations(spec: KitSpec, history: readonly HttpExchange[]): Creation[] {
  const out: Creation[] = [];
  history.forEach((ex, index) => {
    const list = CREATABLE.find((l) => spec.LISTS[l].path === ex.request.path);
    const org = orgOf(ex.request);
    const sent = sentBody(ex.request);
    if (ex.request.method !== "POST" || list === undefined || org === undefined) return;
    if (ex.status < 200 || ex.status >= 300 || !isRecord(sent)) return;
    const data = isRecord(ex.json) && isRecord(ex.json.data) ? ex.json.data : undefined;
    out.push({ index, ex, list, org, sent, id: typeof data?.id === "string" ? data.id : undefined });
  });
  return out;
}

/** The items of a list answer read by `org`, with the exchange, for every list read of the run. */
export function listReads(
  spec: KitSpec,
  history: readonly HttpExchange[],
): Array<{ ex: HttpExchange; list: ListName; org: string | undefined; items: JsonObject[] }> {
  return history.flatMap((ex) => {
    const list = CREATABLE.find((l) => spec.LISTS[l].path === ex.request.path);
    const data = isRecord(ex.json) ? ex.json.data : undefined;
    if (ex.request.method !== "GET" || list === undefined || ex.status !== 200 || !Array.isArray(data))
      return [];
    return [{ ex, list, org: orgOf(ex.request), items: data.filter(isRecord) }];
  });
}
