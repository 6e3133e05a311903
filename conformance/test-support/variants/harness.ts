import {
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type RequestListener,
  type ServerResponse,
} from "node:http";
import { ManualClock } from "../../../src/model/clock.js";
import type { Contact } from "../../../src/model/records.js";
import type { ManifestToken, TokenManifest } from "../../../src/store/fixtures/manifest.js";
import { createReference, type Reference } from "../../../src/entry/reference.js";
import { ManifestMismatchError, runConformance } from "../../index.js";
import { listenLocally } from "../local.js";
import type { CheckResult, KitClock, RunReport } from "../../types.js";

/**
 * Deliberately broken and deliberately different-but-legal servers, to prove the kit: each variant is
 * the reference behind a layer that rewrites requests before the reference sees them, rewrites answers
 * after it has written them, or changes the data behind it. The reference's own code has no switch for
 * any of this: a variant is only ever a wrapper (the issue asks for exactly that).
 */

// ---- the harness's settings ---------------------------------------------------------------------------

/**
 * Requests per window for every variant. Time is virtual (VIRTUAL_START): the kit and the variant share
 * one ManualClock that moves only when the kit waits, so a burst always outruns the window and no
 * verdict depends on the machine's speed.
 */
export const RATE_LIMIT = 150;
export const WINDOW_MS = 1000;
/** Where every variant's clock starts: after every fixture date, before every fixture token's expiry. */
export const VIRTUAL_START = "2026-11-22T09:00:00.000Z";
/** Fixed: every run of a variant sends the same generated cases, so a verdict does not depend on luck. */
export const SEED = 20261122;
/** Property runs per property check: the examples already cover the boundaries, this adds variety. */
export const NUM_RUNS = 8;

// ---- what a variant is ----------------------------------------------------------------------------------

export type Handler = RequestListener;

export interface ReferenceSettings {
  /** Requests per window; default RATE_LIMIT. */
  rateLimit?: number;
}

/** What `build` gets: a factory of fresh references (each a new store) and the window they run with. */
export interface VariantEnv {
  rateLimit: number;
  windowMs: number;
  /** The run's virtual time: the references and the kit read it, a variant's own layers must too. */
  clock: ManualClock;
  reference(settings?: ReferenceSettings): Promise<Reference>;
}

export const AREAS = [
  "envelope",
  "errors",
  "formats",
  "lists",
  "auth",
  "isolation",
  "cors",
  "input",
  "rate-limit",
] as const;
export type Area = (typeof AREAS)[number];

export interface Variant {
  id: string;
  kind: "violation" | "benign";
  /** What the variant touches: the table of the score groups by it, the tests split by it. */
  area: Area;
  description: string;
  /** Check ids the kit must fail (violations): at least one of them must be among the failing checks. */
  expectFailing?: readonly string[];
  /**
   * Run with --strict: the rule broken is a SHOULD of spec-gaps, which fails a run only then. Counted
   * apart in the score: in the default profile such a variant is legal.
   */
  strict?: boolean;
  /** Also run the slow checks (ratelimit.retry-after waits one window: cheap at WINDOW_MS). */
  slow?: boolean;
  /**
   * Run the manifest preflight first, as the CLI does: a target the preflight refuses ends the run
   * with one failing result, `preflight` (the harness otherwise leaves it off: many variants are paired
   * with a deliberately different manifest).
   */
  preflight?: boolean;
  /** The manifest the kit is given, from the references' own (tokens the variant accepts in their stead). */
  manifest?: (manifest: TokenManifest) => TokenManifest;
  /**
   * A violation the kit misses, or a legal variant it fails, today: the kit's gap, as reported to its
   * authors. The tests expect that wrong verdict, so that the day the kit is fixed they say so and the
   * mark comes off.
   */
  knownGap?: string;
  build(env: VariantEnv): Promise<Handler>;
}

// ---- the layer: request and answer rewriting around the reference ------------------------------------

export type Json = Record<string, unknown>;

export const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A request as a layer sees it before the reference does; every field may be changed. */
export interface Incoming {
  method: string;
  /** The path, without the query. */
  path: string;
  query: URLSearchParams;
  /** The live header object (lower-case names): a change reaches the reference. */
  headers: IncomingHttpHeaders;
  /** The body, when the layer reads bodies (`readBody`) and the request has a small one. */
  body?: Buffer;
  /** The manifest token the Authorization header carries, if it carries one. */
  token?: ManifestToken;
  /** The client's address. */
  address: string;
}

/** An answer as the reference wrote it, before it leaves. */
export interface Outgoing {
  status: number;
  /** Lower-case names. */
  headers: OutgoingHttpHeaders;
  body: Buffer;
}

/** An answer a layer gives itself, without asking the reference. */
export interface Reply {
  status: number;
  json?: unknown;
  headers?: Record<string, string>;
}

export interface Layer {
  /** Reads request bodies (only those of at most BODY_READ_MAX bytes with a Content-Length). */
  readBody?: boolean;
  /** Rewrites the request in place; returning a Reply answers without the reference. */
  request?(req: Incoming): Reply | undefined | Promise<Reply | undefined>;
  /** Rewrites the reference's answer in place. */
  response?(res: Outgoing, req: Incoming): void;
}

/** Bodies above this are left to the reference untouched: the size-cap checks must meet its own cap. */
const BODY_READ_MAX = 64 * 1024;

function tokenIn(headers: IncomingHttpHeaders, manifest: TokenManifest): ManifestToken | undefined {
  const match = /^bearer (.+)$/i.exec(headers.authorization ?? "");
  return match === null ? undefined : manifest.tokens.find((t) => t.token === match[1]);
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

function writeReply(res: ServerResponse, reply: Reply): void {
  res.statusCode = reply.status;
  // A reply stands in for the reference, CORS included: only what the variant means to break breaks.
  res.setHeader("access-control-allow-origin", "*");
  for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
  if (reply.json === undefined) {
    res.end();
    return;
  }
  const body = Buffer.from(JSON.stringify(reply.json));
  res.setHeader("content-type", "application/json; charset=utf-8");
  res.setHeader("content-length", body.length);
  res.end(body);
}

type Write = (...args: unknown[]) => unknown;

/**
 * Holds back everything the app writes (status, headers, body) until it ends, then lets `finish`
 * rewrite it and sends the result. Express writes through setHeader, write and end only, and nothing
 * leaves the process before end: the app sees an ordinary response.
 */
function capture(res: ServerResponse, finish: (out: Outgoing) => void): void {
  const chunks: Buffer[] = [];
  const push = (chunk: unknown, encoding: unknown): void => {
    if (typeof chunk === "string") {
      chunks.push(Buffer.from(chunk, typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8"));
    } else if (chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
  };
  const lastCallback = (args: readonly unknown[]): (() => void) | undefined => {
    const last = args[args.length - 1];
    return typeof last === "function" ? (last as () => void) : undefined;
  };
  const writeHead: Write = (status, ...rest) => {
    res.statusCode = Number(status);
    // writeHead(status, [message], [headers]): the headers, if any, are the last object argument.
    const headers = rest.find(isObject);
    if (headers !== undefined) {
      for (const [name, value] of Object.entries(headers)) res.setHeader(name, value as string);
    }
    return res;
  };
  const write: Write = (chunk, encoding, ...rest) => {
    push(chunk, encoding);
    lastCallback([encoding, ...rest])?.();
    return true;
  };
  const end: Write = (chunk, encoding, ...rest) => {
    if (typeof chunk !== "function") push(chunk, encoding);
    // Back to Node's own methods: the rewritten answer goes out through them.
    delete (res as Partial<Record<"writeHead" | "write" | "end", unknown>>).writeHead;
    delete (res as Partial<Record<"writeHead" | "write" | "end", unknown>>).write;
    delete (res as Partial<Record<"writeHead" | "write" | "end", unknown>>).end;
    const out: Outgoing = { status: res.statusCode, headers: res.getHeaders(), body: Buffer.concat(chunks) };
    const hadLength = out.headers["content-length"] !== undefined;
    finish(out);
    for (const name of res.getHeaderNames()) res.removeHeader(name);
    res.statusCode = out.status;
    for (const [name, value] of Object.entries(out.headers)) {
      if (value !== undefined && name !== "content-length") res.setHeader(name, value);
    }
    if (hadLength || out.body.length > 0) res.setHeader("content-length", out.body.length);
    res.end(out.body, lastCallback([chunk, encoding, ...rest]));
    return res;
  };
  Object.assign(res, { writeHead, write, end });
}

/**
 * Layers rewrite `req.headers`; the reference reads some headers from the raw lines (every
 * Authorization line, src/http/headers.ts): a header a layer changed is changed there too.
 */
function rewriteRawHeaders(req: IncomingMessage, sent: IncomingHttpHeaders): void {
  for (const name of new Set([...Object.keys(sent), ...Object.keys(req.headers)])) {
    const value = req.headers[name];
    if (value === sent[name]) continue;
    const raw: string[] = [];
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
      const line = req.rawHeaders[i] ?? "";
      if (line.toLowerCase() !== name) raw.push(line, req.rawHeaders[i + 1] ?? "");
    }
    for (const v of value === undefined ? [] : Array.isArray(value) ? value : [value]) raw.push(name, v);
    req.rawHeaders = raw;
  }
}

/** The reference behind layers: requests pass through them in order, answers in reverse order. */
export function wrap(reference: Reference, ...layers: readonly Layer[]): Handler {
  const app = reference.app;
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://variant.invalid");
    const incoming: Incoming = {
      method: req.method ?? "GET",
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      address: req.socket.remoteAddress ?? "",
    };
    const sent = { ...req.headers };
    const token = tokenIn(req.headers, reference.manifest);
    if (token !== undefined) incoming.token = token;
    const length = Number(req.headers["content-length"] ?? Number.NaN);
    if (layers.some((l) => l.readBody === true) && length > 0 && length <= BODY_READ_MAX) {
      incoming.body = await readBody(req);
    }
    for (const layer of layers) {
      const reply = await layer.request?.(incoming);
      if (reply !== undefined) {
        writeReply(res, reply);
        return;
      }
    }
    const search = incoming.query.toString();
    req.method = incoming.method;
    req.url = `${incoming.path}${search === "" ? "" : `?${search}`}`;
    if (incoming.body !== undefined) {
      // The body has been read: body-parser then takes `req.body` as already parsed (on-finished).
      req.headers["content-length"] = String(incoming.body.length);
      Object.assign(req, { body: incoming.body });
    }
    rewriteRawHeaders(req, sent);
    const answering = layers.filter((l) => l.response !== undefined).reverse();
    if (answering.length > 0) {
      capture(res, (out) => {
        for (const layer of answering) layer.response?.(out, incoming);
      });
    }
    app(req, res);
  };
  return (req, res) => {
    handle(req, res).catch(() => {
      // A variant's own bug: an empty 599 that no check could mistake for the reference's answer.
      if (!res.headersSent) res.statusCode = 599;
      res.end();
    });
  };
}

// ---- helpers for the common rewrites -------------------------------------------------------------------

export const LIST_PATHS = ["/api/v1/contacts", "/api/v1/products", "/api/v1/invoices", "/api/v1/expenses"];
export const CONTACTS = "/api/v1/contacts";
export const PRODUCTS = "/api/v1/products";
export const INVOICES = "/api/v1/invoices";
export const EXPENSES = "/api/v1/expenses";

export const isList = (req: Incoming): boolean => req.method === "GET" && LIST_PATHS.includes(req.path);
export const isCreation = (req: Incoming): boolean =>
  req.method === "POST" && (req.path === CONTACTS || req.path === PRODUCTS);
export const is2xx = (res: Outgoing): boolean => res.status >= 200 && res.status < 300;

/** The body as JSON, or undefined when it is not JSON. */
export function jsonOf(res: Outgoing): unknown {
  if (res.body.length === 0) return undefined;
  try {
    return JSON.parse(res.body.toString("utf8")) as unknown;
  } catch {
    return undefined;
  }
}

export function setJson(res: Outgoing, value: unknown): void {
  res.body = Buffer.from(JSON.stringify(value));
}

/** Rewrites a JSON answer's body when `when` holds. */
export const mapJsonBody = (
  fn: (body: unknown, res: Outgoing, req: Incoming) => unknown,
  when: (res: Outgoing, req: Incoming) => boolean = () => true,
): Layer => ({
  response(res, req) {
    const body = jsonOf(res);
    if (body !== undefined && when(res, req)) setJson(res, fn(body, res, req));
  },
});

/** Rewrites a list request's query in place before the reference reads it. */
export const mapQuery = (fn: (query: URLSearchParams, req: Incoming) => void): Layer => ({
  request(req) {
    if (isList(req)) fn(req.query, req);
    return undefined;
  },
});

/** Rewrites the status only (`mapError` changes an error's status and code together). */
export const mapStatus = (fn: (status: number, req: Incoming, res: Outgoing) => number): Layer => ({
  response(res, req) {
    res.status = fn(res.status, req, res);
  },
});

/** Sets an answer's header to `value` (or removes it, for undefined) when `when` holds. */
export const setHeader = (
  name: string,
  value: string | undefined,
  when: (req: Incoming, res: Outgoing) => boolean,
): Layer => ({
  response(res, req) {
    if (!when(req, res)) return;
    if (value === undefined)
      res.headers = Object.fromEntries(Object.entries(res.headers).filter(([n]) => n !== name));
    else res.headers[name] = value;
  },
});

export const dropHeader = (...names: readonly string[]): Layer => ({
  response(res) {
    const dropped = names.map((n) => n.toLowerCase());
    res.headers = Object.fromEntries(Object.entries(res.headers).filter(([n]) => !dropped.includes(n)));
  },
});

/** `{ error: {...} }`, the error object of a §7 answer, if it is one. */
export const errorOf = (body: unknown): Json | undefined =>
  isObject(body) && isObject(body.error) ? body.error : undefined;

/** Rewrites the error answers whose status is `status`: a new status and code, or any change. */
export const mapError = (
  status: number,
  fn: (error: Json, res: Outgoing, req: Incoming) => void,
  when: (req: Incoming, res: Outgoing) => boolean = () => true,
): Layer => ({
  response(res, req) {
    if (res.status !== status || !when(req, res)) return;
    const body = jsonOf(res);
    const error = errorOf(body);
    if (error === undefined) return;
    fn(error, res, req);
    setJson(res, body);
  },
});

export const retarget = (status: number, code: string) => (error: Json, res: Outgoing) => {
  res.status = status;
  error.code = code;
};

/** Applies `fn` to every resource of a successful list (each item) or creation (data) answer. */
export const mapResources = (
  fn: (item: Json, req: Incoming) => Json,
  where: "lists" | "creations" | "both" = "both",
): Layer =>
  mapJsonBody(
    (body, _res, req) => {
      if (!isObject(body)) return body;
      const data = body.data;
      if (Array.isArray(data))
        return { ...body, data: data.map((i: unknown) => (isObject(i) ? fn(i, req) : i)) };
      return isObject(data) ? { ...body, data: fn(data, req) } : body;
    },
    (res, req) =>
      is2xx(res) && ((where !== "creations" && isList(req)) || (where !== "lists" && isCreation(req))),
  );

/** Every string anywhere in `value` through `fn`. */
export function mapStrings(value: unknown, fn: (s: string) => string): unknown {
  if (typeof value === "string") return fn(value);
  if (Array.isArray(value)) return value.map((v: unknown) => mapStrings(v, fn));
  if (isObject(value))
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, fn)]));
  return value;
}

/** Every object anywhere in `value` through `fn` (children first). */
export function mapObjects(value: unknown, fn: (o: Json) => Json): unknown {
  if (Array.isArray(value)) return value.map((v: unknown) => mapObjects(v, fn));
  if (!isObject(value)) return value;
  return fn(Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapObjects(v, fn)])));
}

/** Rewrites the JSON body of a request before the reference reads it (the layer reads bodies). */
export const mapRequestJson = (
  fn: (body: Json, req: Incoming) => Json,
  when: (req: Incoming) => boolean = isCreation,
): Layer => ({
  readBody: true,
  request(req) {
    if (req.body === undefined || !when(req)) return undefined;
    const body = parseJson(req.body);
    if (isObject(body)) req.body = Buffer.from(JSON.stringify(fn(body, req)));
    return undefined;
  },
});

export function parseJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString("utf8")) as unknown;
  } catch {
    return undefined;
  }
}

/** Another token in the Authorization header. */
export const useToken = (req: Incoming, token: ManifestToken): void => {
  req.headers.authorization = `Bearer ${token.token}`;
};

export function tokenByLabel(reference: Reference, label: string): ManifestToken {
  const token = reference.manifest.tokens.find((t) => t.label === label);
  if (token === undefined) throw new Error(`the fixtures have no token ${label}`);
  return token;
}

/** A §7 error reply. */
export const errorReply = (
  status: number,
  code: string,
  message: string,
  details?: Record<string, string[]>,
): Reply => ({
  status,
  json: { error: { code, message, ...(details === undefined ? {} : { details }) } },
});

export const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * Adds `count` old contacts to an organization's store: older than anything a run creates, so the
 * kit's own records stay on the first page.
 */
export function archiveContacts(reference: Reference, organizationId: string, count: number): void {
  const base = Date.parse("2020-01-01T00:00:00.000Z");
  for (let i = 0; i < count; i += 1) {
    const at = new Date(base - i * 60_000);
    const contact: Contact = {
      id: `con_archived${organizationId.slice(4, 8)}${String(i).padStart(5, "0")}`,
      organizationId,
      type: "CLIENT",
      name: `Archived client ${i}`,
      email: null,
      phone: null,
      address: null,
      taxNumberTPS: null,
      taxNumberTVQ: null,
      createdAt: at,
      updatedAt: at,
    };
    reference.store.add({ type: "contact", data: contact });
  }
}

/** The reference, plain: the start of every variant. */
export const plain = async (env: VariantEnv, ...layers: readonly Layer[]): Promise<Handler> =>
  wrap(await env.reference(), ...layers);

/**
 * What a variant puts around a fresh reference: a layer, layers, or layers made with the reference in
 * hand (a variant that changes the data behind the API, or keeps state of its own, makes them here:
 * once per build, so that no two runs share it).
 */
export type Wrapping =
  | Layer
  | readonly Layer[]
  | ((reference: Reference, env: VariantEnv) => Layer | readonly Layer[]);

const isLayers = (layers: Layer | readonly Layer[]): layers is readonly Layer[] => Array.isArray(layers);

/** The build of a variant: a fresh reference (with `settings`) behind `wrapping`. */
export const around =
  (wrapping: Wrapping, settings?: ReferenceSettings) =>
  async (env: VariantEnv): Promise<Handler> => {
    const reference = await env.reference(settings);
    const layers = typeof wrapping === "function" ? wrapping(reference, env) : wrapping;
    return wrap(reference, ...(isLayers(layers) ? layers : [layers]));
  };

/** What a variant may add to its id, description and wrapping. */
export type VariantExtra = Partial<
  Pick<Variant, "strict" | "slow" | "manifest" | "knownGap" | "preflight">
> & {
  settings?: ReferenceSettings;
};

const declare = (
  kind: Variant["kind"],
  area: Area,
  id: string,
  description: string,
  expectFailing: readonly string[] | undefined,
  wrapping: Wrapping,
  { settings, ...extra }: VariantExtra,
): Variant => ({
  id,
  kind,
  area,
  description,
  ...(expectFailing === undefined ? {} : { expectFailing }),
  ...extra,
  build: around(wrapping, settings),
});

/** How an area's file declares its variants: the area said once. */
export function variantsIn(area: Area): {
  /** A deliberately broken reference: the kit must fail it, naming one of `expectFailing`. */
  violation(
    id: string,
    description: string,
    expectFailing: readonly string[],
    wrapping: Wrapping,
    extra?: VariantExtra,
  ): Variant;
  /** Another legal answer to an open point: the kit must pass it. */
  benign(id: string, description: string, wrapping: Wrapping, extra?: VariantExtra): Variant;
} {
  return {
    violation: (id, description, expectFailing, wrapping, extra = {}) =>
      declare("violation", area, id, description, expectFailing, wrapping, extra),
    benign: (id, description, wrapping, extra = {}) =>
      declare("benign", area, id, description, undefined, wrapping, extra),
  };
}

/** Bodies past this are refused early: once this much is read, the rest is not. */
const EARLY_LIMIT = 1024 * 1024;

/**
 * The reference behind a server that refuses a body larger than 1 MB once it has read 1 MB, without
 * reading the rest (RFC 9112 §9.6 lets it): with a 400 and the connection closed at once ("answer"), or
 * by closing the connection without a word ("silent": what the kit sees when the close overtakes the
 * answer on the way).
 */
export function earlyRefusal(mode: "answer" | "silent"): (env: VariantEnv) => Promise<Handler> {
  return async (env) => {
    const inner = wrap(await env.reference());
    return (req, res) => {
      if (req.method !== "POST" || Number(req.headers["content-length"] ?? 0) <= EARLY_LIMIT) {
        inner(req, res);
        return;
      }
      let read = 0;
      let done = false;
      req.on("data", (chunk: Buffer) => {
        read += chunk.length;
        if (done || read < EARLY_LIMIT) return;
        done = true;
        req.pause();
        if (mode === "silent") {
          req.socket.destroy();
          return;
        }
        const body = JSON.stringify({
          error: { code: "invalid_request", message: "The body is larger than 1 MB" },
        });
        res.writeHead(400, {
          "content-type": "application/json; charset=utf-8",
          "content-length": Buffer.byteLength(body),
          "access-control-allow-origin": "*",
          connection: "close",
        });
        res.end(body, () => req.socket.destroy());
      });
    };
  };
}

// ---- running a variant -----------------------------------------------------------------------------------

export interface StartedVariant {
  baseUrl: string;
  manifest: TokenManifest;
  /** The virtual clock the variant's references run on, as the kit reads it. */
  clock: KitClock;
  close(): Promise<void>;
}

/** The kit's view of a ManualClock: waiting moves it, at once. */
export function virtualClock(clock: ManualClock): KitClock {
  return {
    now: () => clock.now().getTime(),
    sleep: (ms) => {
      clock.advance(Math.max(0, ms));
      return Promise.resolve();
    },
  };
}

/**
 * Serves a handler on 127.0.0.1, an ephemeral port. Every answer's `Date` is the virtual clock's, as a
 * server's own clock would stamp it: the kit reads record timestamps against it (run.created-timestamps).
 */
export async function serve(
  handler: Handler,
  manifest: TokenManifest,
  clock: KitClock,
): Promise<StartedVariant> {
  const served = await listenLocally((req, res) => {
    res.setHeader("date", new Date(clock.now()).toUTCString());
    handler(req, res);
  });
  return { ...served, manifest, clock };
}

/**
 * Builds the variant on fresh references and serves it; `scale`: another limit and window than the
 * harness's (§8's own 100 a minute, say), the variant's limiters and references alike.
 */
export async function startVariant(
  variant: Pick<Variant, "build">,
  scale: { rateLimit: number; windowMs: number } = { rateLimit: RATE_LIMIT, windowMs: WINDOW_MS },
): Promise<StartedVariant> {
  let manifest: TokenManifest | undefined;
  const clock = new ManualClock(VIRTUAL_START);
  const env: VariantEnv = {
    rateLimit: scale.rateLimit,
    windowMs: scale.windowMs,
    clock,
    async reference(settings = {}) {
      const reference = await createReference({
        clock,
        rateLimit: { limit: settings.rateLimit ?? scale.rateLimit, windowMs: scale.windowMs },
        log: () => {},
      });
      manifest ??= reference.manifest;
      return reference;
    },
  };
  const handler = await variant.build(env);
  if (manifest === undefined) throw new Error("the variant built no reference");
  return serve(handler, manifest, virtualClock(clock));
}

export interface VariantRun {
  report: RunReport;
  /** The results that fail the run. */
  failing: CheckResult[];
  seconds: number;
}

export interface RunSettings {
  profile?: "spec" | "reference";
  strict?: boolean;
  slow?: boolean;
  grep?: string;
  readOnly?: boolean;
  seed?: number;
  /** The manifest the kit is given, from the references' own (e.g. without a second organization). */
  manifest?: (manifest: TokenManifest) => TokenManifest;
}

/** Runs the whole kit against the variant (the spec profile unless told otherwise). */
export async function runVariant(variant: Variant, settings: RunSettings = {}): Promise<VariantRun> {
  const started = performance.now();
  const target = await startVariant(variant);
  const options = {
    baseUrl: target.baseUrl,
    manifest: (settings.manifest ?? variant.manifest ?? ((m: TokenManifest) => m))(target.manifest),
    profile: settings.profile ?? "spec",
    strict: settings.strict ?? variant.strict ?? false,
    slow: settings.slow ?? variant.slow ?? false,
    rateLimit: RATE_LIMIT,
    rateWindowMs: WINDOW_MS,
    seed: settings.seed ?? SEED,
    numRuns: NUM_RUNS,
    clock: target.clock,
    readOnly: settings.readOnly ?? false,
    preflight: variant.preflight ?? false,
    ...(settings.grep === undefined ? {} : { grep: settings.grep }),
  } as const;
  try {
    const report = await runConformance(options).catch((error: unknown) => {
      if (error instanceof ManifestMismatchError) return refusedByPreflight(options, error);
      throw error;
    });
    return {
      report,
      failing: report.results.filter((r) => r.failsRun),
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await target.close();
  }
}

/** The report of a run the preflight stopped (the CLI's exit 2): one failing result, `preflight`. */
function refusedByPreflight(
  options: {
    baseUrl: string;
    profile: "spec" | "reference";
    strict: boolean;
    readOnly: boolean;
    seed: number;
    numRuns: number;
  },
  error: ManifestMismatchError,
): RunReport {
  const lines = error.lines();
  return {
    target: options.baseUrl,
    embedded: false,
    options: {
      profile: options.profile,
      strict: options.strict,
      readOnly: options.readOnly,
      seed: options.seed,
      numRuns: options.numRuns,
      rateLimit: RATE_LIMIT,
      rateLimitPer: "token",
      rateWindowMs: WINDOW_MS,
    },
    startedAt: new Date(0).toISOString(),
    durationMs: 0,
    requests: 0,
    results: [
      {
        id: "preflight",
        section: "§5 Authentication",
        clauses: [],
        level: "MUST",
        rule: "The manifest's tokens are what the target takes them for",
        outcome: "fail",
        failsRun: true,
        durationMs: 0,
        requests: 0,
        observations: [],
        failure: {
          key: "manifest mismatch",
          cause: "rule",
          message: lines.join("\n"),
          expected: "every token as declared",
          actual: `${error.problems.length} tokens or scopes not`,
        },
      },
    ],
  };
}

export type Verdict = "caught" | "caught, other checks" | "missed" | "passed" | "false alarm";

/**
 * A violation is caught when the run fails and names one of the expected checks ("caught, other
 * checks": right verdict, wrong reason); a benign variant passes when no result fails the run.
 */
export function verdictOf(variant: Variant, run: VariantRun): Verdict {
  const ids = run.failing.map((r) => r.id);
  if (variant.kind === "benign") return ids.length === 0 ? "passed" : "false alarm";
  if (ids.length === 0) return "missed";
  return (variant.expectFailing ?? []).some((id) => ids.includes(id)) ? "caught" : "caught, other checks";
}

/** One line per failing result: id, level and why. */
export function describeFailing(run: VariantRun): string {
  if (run.failing.length === 0) return "(no failing result)";
  return run.failing
    .map((r) => `  ${r.id} [${r.level}]: ${r.failure?.message ?? r.skipReason ?? r.outcome}`)
    .join("\n");
}

/** What is wrong with the kit's verdict on a variant, or undefined when it is the expected one. */
export function verdictProblem(variant: Variant, run: VariantRun): string | undefined {
  const verdict = verdictOf(variant, run);
  const known = variant.knownGap !== undefined;
  const wanted: Verdict =
    variant.kind === "benign" ? (known ? "false alarm" : "passed") : known ? "missed" : "caught";
  if (verdict === wanted) return undefined;
  const expected = known
    ? `the known ${variant.kind === "benign" ? "false alarm" : "miss"} (${variant.knownGap ?? ""}); the kit's verdict changed: take knownGap off if it is now right`
    : variant.kind === "benign"
      ? "no result failing the run"
      : `a failing result among ${(variant.expectFailing ?? []).join(", ")}`;
  return `${variant.id}: ${verdict}; expected ${expected}. Failing results:\n${describeFailing(run)}`;
}

/** At most `n` of the functions given run at once (each variant run is a server and a paced client). */
export function limitConcurrency(n: number): <T>(fn: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async <T>(fn: () => Promise<T>): Promise<T> => {
    if (running >= n) await new Promise<void>((resolve) => waiting.push(resolve));
    running += 1;
    try {
      return await fn();
    } finally {
      running -= 1;
      waiting.shift()?.();
    }
  };
}
