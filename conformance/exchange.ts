import type { ManifestToken } from "./manifest-schema.js";

/**
 * What goes over the wire: a request as a check writes it, the exchange the kit records of it, and the
 * client that sends it. Below the check contract (types.ts) and the failures (failures.ts), which both
 * name exchanges; the engine's client (engine/client.ts) implements it.
 */

export interface HttpRequest {
  method: string;
  /** Path relative to the base URL, starting with "/": "/api/v1/contacts". */
  path: string;
  /** Query parameters; an array repeats the parameter. Appended to `path` in order. */
  query?: Record<string, string | readonly string[]>;
  /**
   * A manifest token, a raw Authorization header value (`{ header: "bearer x" }`), or none. A raw
   * value made from a manifest token (a near miss) says how, so that its curl derives it from the
   * token's shell variable instead of spelling the secret out.
   */
  auth?: ManifestToken | { header: string; derivedFrom?: DerivedSecret | undefined } | null;
  headers?: Record<string, string>;
  /** A JSON value, sent as `application/json` unless `headers` says otherwise. */
  json?: unknown;
  /** A body sent as is (malformed JSON, oversized bodies, numbers written exactly). */
  rawBody?: string | Uint8Array;
}

/**
 * A header value made from a manifest token: `shell` is the value as the inside of a double-quoted
 * POSIX shell word in which `$T` stands for the token (`Bearer $(printf %s "$T" | cut -c1-44)`: its
 * last character dropped), so that a curl line rebuilds it from the token's variable.
 */
export interface DerivedSecret {
  token: ManifestToken;
  shell: string;
}

export interface HttpExchange {
  request: HttpRequest;
  /** When the request was sent, on the run's clock (ms): what the rate-limit judges count with. */
  sentAt?: number | undefined;
  /**
   * When the answer's status line came back, on the same clock: with `sentAt` it brackets the
   * instant the target took the request in, whatever the delays on the way.
   */
  answeredAt?: number | undefined;
  status: number;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  text: string;
  /** The parsed body, or undefined when it is not JSON. */
  json: unknown;
  /** `curl` command that replays the request, the token shown as $TOKEN. */
  curl: string;
}

export interface HttpClient {
  /** Sends one request, paced under the rate limit; a 429 outside a burst check is waited out (Retry-After). */
  send(request: HttpRequest): Promise<HttpExchange>;
  /** Sends without pacing or waiting out 429s: for the rate-limit burst only. */
  sendUnpaced(request: HttpRequest): Promise<HttpExchange>;
  /** Sends paced, but answers a 429 as it came instead of waiting it out (the preflight's). */
  sendOnce?(request: HttpRequest): Promise<HttpExchange>;
  /** Every exchange of the run so far, in order. */
  history(): readonly HttpExchange[];
  /** The curl commands that replay these exchanges in order, tokens as shell variables named once. */
  replay?(exchanges: readonly HttpExchange[]): string;
}

// ---- what an answer says of the rate limit -------------------------------------------------------

/** Retry-After in ms (delta-seconds, or an HTTP date read against `now`); undefined when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now: number): number | undefined {
  const v = value?.trim() ?? "";
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return v === "" || Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * The requests the target says are left in its rate-limit budget once this answer's request is
 * counted, from whichever header it sends: `RateLimit: "policy";r=N;t=…` (IETF draft 8 and later; the
 * smallest r of several policies), `RateLimit: limit=…, remaining=N, reset=…` (draft 7),
 * `RateLimit-Remaining: N` (earlier drafts) or `X-RateLimit-Remaining: N`. Undefined when it sends none
 * (§8 leaves the headers open: what they say only ever makes the kit more lenient or more careful).
 */
export function remainingOf(ex: Pick<HttpExchange, "headers">): number | undefined {
  const found: number[] = [];
  const combined = ex.headers.ratelimit;
  if (combined !== undefined) {
    for (const m of combined.matchAll(/(?:^|[;,\s])(?:r|remaining)\s*=\s*(\d+)/gi)) found.push(Number(m[1]));
  }
  for (const name of ["ratelimit-remaining", "x-ratelimit-remaining"]) {
    for (const part of (ex.headers[name] ?? "").split(",")) {
      if (/^\s*\d+\s*$/.test(part)) found.push(Number(part));
    }
  }
  return found.length === 0 ? undefined : Math.min(...found);
}
