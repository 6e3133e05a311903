import type { KitSpec } from "../spec/kit-spec.js";
import type { RequestPacer } from "./pacer.js";
import { RequestError, routeOf } from "../failures.js";
import { retryAfterMs } from "../exchange.js";
import { renderCurl, renderCurlSequence, type MaskedToken, type PreparedRequest } from "../report/curl.js";
import type { HttpClient, HttpExchange, HttpRequest, UnexpectedLimits } from "../types.js";

/**
 * The kit's transport: Node's global fetch, paced by one Pacer for the whole run, every exchange
 * recorded with a replayable `curl` command. fetch needs no dependency and leaves the body, the
 * headers and the method to the check (supertest stays with the server's own tests).
 */

export interface FetchHttpClientOptions {
  baseUrl: string;
  pacer: RequestPacer;
  /** Manifest tokens, never shown in clear in a curl command. */
  tokens?: readonly MaskedToken[];
  /** Per request, body included; default 10 s. */
  timeoutMs?: number;
  /** `reason`: why the run waits, for the progress line. */
  sleep?: (ms: number, reason?: string) => Promise<void>;
  /** Wall-clock ms, for a Retry-After given as an HTTP date. */
  now?: () => number;
  /** Told of every request as it goes out (the progress line counts them). */
  onRequest?: (() => void) | undefined;
  /**
   * Sent as `Origin` with every request that names none, as a browser on another site would: every
   * answer of the run can then be judged for CORS (§4).
   */
  origin?: string | undefined;
  /** The run's spec: its paths name routes in failure keys (failures.ts, routeOf). */
  spec?: KitSpec | undefined;
}

/** What the client adds to every request that does not set it itself. */
export interface RequestDefaults {
  origin?: string | undefined;
}

export class FetchHttpClient implements HttpClient {
  readonly baseUrl: string;
  readonly #pacer: RequestPacer;
  readonly #tokens: readonly MaskedToken[];
  readonly #timeoutMs: number;
  readonly #sleep: (ms: number, reason?: string) => Promise<void>;
  readonly #now: () => number;
  readonly #onRequest: (() => void) | undefined;
  readonly #defaults: RequestDefaults;
  readonly #spec: KitSpec | undefined;
  readonly #history: HttpExchange[] = [];
  #requests = 0;
  #limits: UnexpectedLimits | undefined;

  constructor(options: FetchHttpClientOptions) {
    this.baseUrl = options.baseUrl;
    this.#pacer = options.pacer;
    this.#tokens = options.tokens ?? [];
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.#now = options.now ?? Date.now;
    this.#onRequest = options.onRequest;
    this.#defaults = { origin: options.origin };
    this.#spec = options.spec;
  }

  /** Requests sent so far, answered or not. */
  get requests(): number {
    return this.#requests;
  }

  /**
   * Paced requests answered 429 so far, and what came of sending each again: what happened, for the
   * report to say without guessing why (another client, an earlier run, a narrower budget).
   */
  get limits(): UnexpectedLimits | undefined {
    return this.#limits === undefined ? undefined : { ...this.#limits };
  }

  /**
   * Sends a request when the pacer gives it room. A 429 all the same means the target's budget held
   * requests the kit could not see (an earlier run's, another client's) or counts more widely than
   * declared: the request is sent again, at once with an equivalent token the pacer has room on (at
   * most twice), else itself, once, after what the target asks (Retry-After, else one window). Only
   * the refused requests' budgets are held meanwhile; the rest of the run keeps its pace.
   */
  async send(request: HttpRequest): Promise<HttpExchange> {
    const sent = (await this.#pacer.acquire(request)) ?? request;
    const exchange = await this.#exchange(sent);
    if (exchange.status !== 429) return exchange;
    const retryAfter = exchange.headers["retry-after"];
    const delay = this.retryDelayMs(retryAfter);
    this.#pacer.limited?.(sent, delay, true);
    const who = `${routeOf(sent, this.#spec)}${this.#tokenLabel(sent)}`;
    const limits = (this.#limits ??= {
      count: 0,
      resentAnswered: 0,
      resentLimited: 0,
      waitedMs: 0,
      first: who,
    });
    limits.count += 1;
    // At once with an equivalent token the pacer has room on (its budget at the target may be spent
    // too: an earlier run's), at most twice; else the request itself, after the wait asked.
    for (let tries = 0; tries < 2; tries += 1) {
      const other = this.#pacer.instead?.(request, sent);
      if (other === undefined) break;
      const via = (await this.#pacer.acquire(other)) ?? other;
      const answered = await this.#exchange(via);
      if (answered.status !== 429) {
        limits.resentAnswered += 1;
        return answered;
      }
      this.#pacer.limited?.(via, this.retryDelayMs(answered.headers["retry-after"]), true);
    }
    const told =
      retryAfterMs(retryAfter, this.#now()) === undefined ? "no Retry-After: one window" : "Retry-After";
    await this.#sleep(delay, `the target answered 429 to ${who} (${told}); it is sent again once`);
    this.#pacer.record(sent);
    const again = await this.#exchange(sent);
    limits.waitedMs += delay;
    if (again.status === 429) {
      limits.resentLimited += 1;
      this.#pacer.limited?.(sent, this.retryDelayMs(again.headers["retry-after"]), true);
    } else limits.resentAnswered += 1;
    return again;
  }

  async sendOnce(request: HttpRequest): Promise<HttpExchange> {
    const sent = (await this.#pacer.acquire(request)) ?? request;
    const exchange = await this.#exchange(sent);
    if (exchange.status === 429) {
      this.#pacer.limited?.(sent, this.retryDelayMs(exchange.headers["retry-after"]), false);
    }
    return exchange;
  }

  async sendUnpaced(request: HttpRequest): Promise<HttpExchange> {
    this.#pacer.record(request);
    const exchange = await this.#exchange(request);
    if (exchange.status === 429) {
      this.#pacer.limited?.(request, this.retryDelayMs(exchange.headers["retry-after"]), false);
    }
    return exchange;
  }

  history(): readonly HttpExchange[] {
    return this.#history;
  }

  /**
   * How long a 429 is waited out: Retry-After (seconds or an HTTP date), else one window, after which
   * any limit counting in windows has room again. Never more than a window.
   */
  retryDelayMs(retryAfter: string | undefined): number {
    const windowMs = this.#pacer.windowMs;
    const ms = retryAfterMs(retryAfter, this.#now()) ?? windowMs;
    return Math.min(windowMs, Math.max(0, ms));
  }

  /** The curl command that replays a request, tokens masked. */
  curl(request: HttpRequest): string {
    return renderCurl(prepareRequest(this.baseUrl, request, this.#defaults), this.#masks(request));
  }

  /** The curl commands that replay exchanges in order, as they were sent, tokens masked. */
  replay(exchanges: readonly HttpExchange[]): string {
    const masks = [
      ...new Map(exchanges.flatMap((ex) => this.#masks(ex.request)).map((t) => [t.token, t])).values(),
    ];
    return renderCurlSequence(
      exchanges.map((ex) => prepareRequest(this.baseUrl, ex.request, this.#defaults)),
      masks,
    );
  }

  /** ` with lumiere-full`: the manifest token a request carries, by label, in a raw header too. */
  #tokenLabel(request: HttpRequest): string {
    const auth = request.auth;
    if (auth === null || auth === undefined) return "";
    if (!("header" in auth)) return ` with ${auth.label}`;
    const found = this.#tokens.find((t) => t.token !== "" && auth.header.includes(t.token));
    return found === undefined ? "" : ` with ${found.label}`;
  }

  #masks(request: HttpRequest): readonly MaskedToken[] {
    const auth = request.auth;
    if (auth === null || auth === undefined) return this.#tokens;
    if ("header" in auth) {
      const from = auth.derivedFrom?.token;
      return from === undefined || this.#tokens.some((t) => t.token === from.token)
        ? this.#tokens
        : [...this.#tokens, { token: from.token, label: from.label }];
    }
    return this.#tokens.some((t) => t.token === auth.token)
      ? this.#tokens
      : [...this.#tokens, { token: auth.token, label: auth.label }];
  }

  async #exchange(request: HttpRequest): Promise<HttpExchange> {
    const prepared = prepareRequest(this.baseUrl, request, this.#defaults);
    const curl = renderCurl(prepared, this.#masks(request));
    this.#requests += 1;
    this.#onRequest?.();
    const sentAt = this.#now();
    let response: Response;
    let answeredAt: number;
    let text: string;
    try {
      response = await fetch(prepared.url, {
        method: prepared.method,
        headers: prepared.headers,
        body: prepared.body,
        // Redirects are answers to judge (a trailing-slash redirect is a PROBE), not to follow.
        redirect: "manual",
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
      answeredAt = this.#now();
      text = await response.text();
    } catch (error) {
      const timedOut = error instanceof Error && error.name === "TimeoutError";
      const reason = timedOut ? `no answer within ${this.#timeoutMs} ms` : describeNetworkError(error);
      throw new RequestError(
        timedOut ? "timeout" : "network",
        reason,
        prepared.method,
        prepared.url,
        curl,
        routeOf(request, this.#spec),
      );
    }
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      const seen = headers[name];
      headers[name] = seen === undefined ? value : `${seen}, ${value}`;
    });
    const exchange: HttpExchange = {
      request,
      sentAt,
      answeredAt,
      status: response.status,
      headers,
      text,
      json: parseJson(text),
      curl,
    };
    this.#history.push(exchange);
    this.#pacer.observe?.(request, exchange);
    return exchange;
  }
}

function parseJson(text: string): unknown {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Base + path + query: arrays repeat the key, in the order given. */
export function buildUrl(
  baseUrl: string,
  path: string,
  query?: Record<string, string | readonly string[]>,
): string {
  const pairs: string[] = [];
  for (const [key, value] of Object.entries(query ?? {})) {
    const values: readonly string[] = typeof value === "string" ? [value] : value;
    for (const v of values) pairs.push(`${encodeURIComponent(key)}=${encodeURIComponent(v)}`);
  }
  const url = baseUrl.replace(/\/+$/, "") + path;
  if (pairs.length === 0) return url;
  return `${url}${url.includes("?") ? "&" : "?"}${pairs.join("&")}`;
}

export function prepareRequest(
  baseUrl: string,
  request: HttpRequest,
  defaults: RequestDefaults = {},
): PreparedRequest {
  const headers: Array<[string, string]> = [];
  const put = (name: string, value: string): void => {
    const at = headers.findIndex(([n]) => n.toLowerCase() === name.toLowerCase());
    if (at === -1) headers.push([name, value]);
    else headers[at] = [name, value];
  };
  const auth = request.auth;
  if (auth !== null && auth !== undefined) {
    put("Authorization", "header" in auth ? auth.header : `Bearer ${auth.token}`);
  }
  let body: Uint8Array | undefined;
  if (request.rawBody !== undefined) {
    body = typeof request.rawBody === "string" ? new TextEncoder().encode(request.rawBody) : request.rawBody;
  } else if (request.json !== undefined) {
    body = new TextEncoder().encode(JSON.stringify(request.json));
    put("Content-Type", "application/json");
  }
  for (const [name, value] of Object.entries(request.headers ?? {})) put(name, value);
  if (defaults.origin !== undefined && !headers.some(([n]) => n.toLowerCase() === "origin")) {
    headers.push(["Origin", defaults.origin]);
  }
  const derived = auth !== null && auth !== undefined && "header" in auth ? auth.derivedFrom : undefined;
  // A string body would make fetch add `text/plain`; bytes leave the content type to the check.
  return {
    method: request.method,
    url: buildUrl(baseUrl, request.path, request.query),
    headers,
    body,
    ...(derived === undefined ? {} : { derived }),
  };
}

/** The reason a request got no answer, from fetch's error and its cause. */
export function describeNetworkError(error: unknown): string {
  const cause = errorField(error, "cause");
  const nested = errorField(cause, "errors");
  const first = Array.isArray(nested) ? (nested as unknown[])[0] : undefined;
  const code = errorField(cause, "code") ?? errorField(first, "code");
  const known: Record<string, string> = {
    ECONNREFUSED: "connection refused",
    ENOTFOUND: "host not found",
    EAI_AGAIN: "host name lookup failed",
    ECONNRESET: "connection reset",
    EHOSTUNREACH: "host unreachable",
    ENETUNREACH: "network unreachable",
    UND_ERR_SOCKET: "connection closed by the server",
  };
  if (typeof code === "string") return `${known[code] ?? "network error"} (${code})`;
  const message = errorField(cause, "message") ?? errorField(error, "message");
  // fetch refuses the ports browsers block (6000, 6665-6669, ...) before any connection.
  if (message === "bad port") return "fetch refuses to connect to this port (a port browsers block)";
  return typeof message === "string" && message !== "" ? message : String(error);
}

function errorField(value: unknown, field: string): unknown {
  return typeof value === "object" && value !== null && field in value
    ? (value as Record<string, unknown>)[field]
    : undefined;
}
