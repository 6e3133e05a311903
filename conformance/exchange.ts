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
  /** Every exchange of the run so far, in order. */
  history(): readonly HttpExchange[];
  /** The curl commands that replay these exchanges in order, tokens as shell variables named once. */
  replay?(exchanges: readonly HttpExchange[]): string;
}
