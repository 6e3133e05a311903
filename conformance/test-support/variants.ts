import { createHash } from "node:crypto";
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type RequestListener,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import { Decimal } from "decimal.js";
import type { Contact, Organization } from "../../src/domain/model.js";
import type { ManifestToken, TokenManifest } from "../../src/fixtures/manifest.js";
import { createReference, type Reference } from "../../src/reference.js";
import { toContact } from "../../src/serialization/resources.js";
import { runConformance } from "../index.js";
import type { CheckResult, RunReport } from "../types.js";

/**
 * Deliberately broken and deliberately different-but-legal servers, to prove the kit: each variant is
 * the reference behind a layer that rewrites requests before the reference sees them, rewrites answers
 * after it has written them, or changes the data behind it. The reference's own code has no switch for
 * any of this: a variant is only ever a wrapper (the issue asks for exactly that).
 */

// ---- the harness's settings ---------------------------------------------------------------------------

/**
 * Requests per window for every variant. The burst meets a 429 only if one client sends faster than
 * L per window: at 400 a loaded 2-core machine does not, and every variant fails ratelimit.burst. At 150
 * a request may take 6 ms, and a full run (~450 paced requests) still takes about 3 s.
 */
export const RATE_LIMIT = 150;
export const WINDOW_MS = 1000;
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
   * A violation the kit misses, or a legal variant it fails, today: the kit's gap, as reported to its
   * authors. The tests expect that wrong verdict, so that the day the kit is fixed they say so and the
   * mark comes off.
   */
  knownGap?: string;
  build(env: VariantEnv): Promise<Handler>;
}

// ---- the layer: request and answer rewriting around the reference ------------------------------------

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
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
const CONTACTS = "/api/v1/contacts";
const PRODUCTS = "/api/v1/products";
const INVOICES = "/api/v1/invoices";
const EXPENSES = "/api/v1/expenses";

export const isList = (req: Incoming): boolean => req.method === "GET" && LIST_PATHS.includes(req.path);
export const isCreation = (req: Incoming): boolean =>
  req.method === "POST" && (req.path === CONTACTS || req.path === PRODUCTS);
const is2xx = (res: Outgoing): boolean => res.status >= 200 && res.status < 300;

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

/** Rewrites the status only (`mapError` changes an error's status and code together). */
export const mapStatus = (fn: (status: number, req: Incoming, res: Outgoing) => number): Layer => ({
  response(res, req) {
    res.status = fn(res.status, req, res);
  },
});

export const dropHeader = (...names: readonly string[]): Layer => ({
  response(res) {
    const dropped = names.map((n) => n.toLowerCase());
    res.headers = Object.fromEntries(Object.entries(res.headers).filter(([n]) => !dropped.includes(n)));
  },
});

/** `{ error: {...} }`, the error object of a §7 answer, if it is one. */
const errorOf = (body: unknown): Json | undefined =>
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

const retarget = (status: number, code: string) => (error: Json, res: Outgoing) => {
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
function mapObjects(value: unknown, fn: (o: Json) => Json): unknown {
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

function parseJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString("utf8")) as unknown;
  } catch {
    return undefined;
  }
}

/** Rewrites the text of `"unitPrice": <number>` in a request body exactly (no binary float on the way). */
const mapPriceText = (fn: (price: Decimal) => Decimal): Layer => ({
  readBody: true,
  request(req) {
    if (req.body === undefined || req.method !== "POST" || req.path !== PRODUCTS) return undefined;
    const text = req.body
      .toString("utf8")
      .replace(
        /("unitPrice"\s*:\s*)(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)/,
        (_all, key: string, number: string) => `${key}${fn(new Decimal(number)).toString()}`,
      );
    req.body = Buffer.from(text);
    return undefined;
  },
});

const codePoints = (s: string): number => [...s].length;

/** Another token in the Authorization header. */
const useToken = (req: Incoming, token: ManifestToken): void => {
  req.headers.authorization = `Bearer ${token.token}`;
};

function tokenByLabel(reference: Reference, label: string): ManifestToken {
  const token = reference.manifest.tokens.find((t) => t.label === label);
  if (token === undefined) throw new Error(`the fixtures have no token ${label}`);
  return token;
}

const ENDPOINT_SCOPES = [
  "contacts:read",
  "contacts:write",
  "products:read",
  "products:write",
  "invoices:read",
  "expenses:read",
];

/** An active, never-expiring token of the organization holding every scope that has an endpoint. */
function fullTokenOf(reference: Reference, organization: string): ManifestToken {
  const token = reference.manifest.tokens.find((t) => {
    const held: readonly string[] = t.scopes;
    return (
      t.organization === organization &&
      t.state === "active" &&
      t.expiresAt === null &&
      ENDPOINT_SCOPES.every((s) => held.includes(s))
    );
  });
  if (token === undefined) throw new Error(`the fixtures have no full token in ${organization}`);
  return token;
}

/** A §7 error reply. */
const errorReply = (status: number, code: string, message: string): Reply => ({
  status,
  json: { error: { code, message } },
});

const MONEY_FIELDS = ["unitPrice", "subtotal", "amount", "tps", "tvq", "total"];
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A stable UUID (v5 layout) for an id: the same id always maps to the same UUID. */
function uuidOf(id: string): string {
  const h = createHash("sha1").update(id).digest("hex");
  const variant = ((parseInt(h.slice(16, 18), 16) & 0x3f) | 0x80).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(18, 20)}-${h.slice(20, 32)}`;
}

/**
 * Adds `count` old contacts to an organization's store: older than anything a run creates, so the
 * kit's own records stay on the first page.
 */
function archiveContacts(reference: Reference, organizationId: string, count: number): void {
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
    reference.store.addContact(contact);
  }
}

/** The reference, plain: the start of every variant. */
const plain = async (env: VariantEnv, ...layers: readonly Layer[]): Promise<Handler> =>
  wrap(await env.reference(), ...layers);

// ---- violations: the kit must fail each one in the spec profile, naming the right check ---------------

const violations: Variant[] = [
  // §1 and §4: envelopes and success statuses.
  {
    id: "list-status-201",
    kind: "violation",
    area: "envelope",
    description: "lists answer 201 instead of 200",
    expectFailing: ["envelope.list-data-array", "lists.default-limit"],
    build: (env) =>
      plain(
        env,
        mapStatus((s, req) => (isList(req) && s === 200 ? 201 : s)),
      ),
  },
  {
    id: "contact-create-200",
    kind: "violation",
    area: "envelope",
    description: "contact creation answers 200 instead of 201",
    expectFailing: ["contacts.create-response", "envelope.create-data-object"],
    build: (env) =>
      plain(
        env,
        mapStatus((s, req) => (req.method === "POST" && req.path === CONTACTS && s === 201 ? 200 : s)),
      ),
  },
  {
    id: "list-bare-array",
    kind: "violation",
    area: "envelope",
    description: "lists answer a bare array, without the data envelope",
    expectFailing: ["envelope.list-data-array", "run.success-envelope"],
    build: (env) =>
      plain(
        env,
        mapJsonBody(
          (body) => (isObject(body) ? body.data : body),
          (res, req) => isList(req) && is2xx(res),
        ),
      ),
  },
  {
    id: "create-bare-object",
    kind: "violation",
    area: "envelope",
    description: "creations answer the bare record, without the data envelope",
    expectFailing: ["envelope.create-data-object", "contacts.create-response", "products.create"],
    build: (env) =>
      plain(
        env,
        mapJsonBody(
          (body) => (isObject(body) ? body.data : body),
          (res, req) => isCreation(req) && is2xx(res),
        ),
      ),
  },
  {
    id: "envelope-extra-key",
    kind: "violation",
    area: "envelope",
    description: "success envelopes carry a meta key next to data",
    expectFailing: ["run.success-envelope", "envelope.list-data-array"],
    build: (env) =>
      plain(
        env,
        mapJsonBody(
          (body) => (isObject(body) ? { ...body, meta: { server: "variant" } } : body),
          (res) => is2xx(res),
        ),
      ),
  },
  // §7: error envelopes and codes.
  {
    id: "error-without-code",
    kind: "violation",
    area: "errors",
    description: "error envelopes lack error.code",
    expectFailing: ["run.error-envelope"],
    build: (env) =>
      plain(
        env,
        mapJsonBody(
          (body) => {
            const error = errorOf(body);
            if (error !== undefined) delete error.code;
            return body;
          },
          (res) => res.status >= 400,
        ),
      ),
  },
  {
    id: "error-as-string",
    kind: "violation",
    area: "errors",
    description: 'errors answer { "error": "<code>" } instead of an object',
    expectFailing: ["run.error-envelope"],
    build: (env) =>
      plain(
        env,
        mapJsonBody(
          (body) => ({ error: errorOf(body)?.code ?? "error" }),
          (res) => res.status >= 400,
        ),
      ),
  },
  {
    id: "unauthorized-as-forbidden",
    kind: "violation",
    area: "auth",
    description: "a missing, unknown, revoked or expired token gets 403 forbidden instead of 401",
    expectFailing: ["auth.missing-token", "auth.invalid-token", "auth.revoked-token", "auth.expired-token"],
    build: (env) => plain(env, mapError(401, retarget(403, "forbidden"))),
  },
  {
    id: "scope-as-not-found",
    kind: "violation",
    area: "auth",
    description: "a token lacking the endpoint's scope gets 404 not_found instead of 403",
    expectFailing: ["auth.scope-matrix"],
    build: (env) =>
      plain(
        env,
        // The plan's 403 stays: only the scope's moves (auth.plan has its own variant).
        mapError(
          403,
          retarget(404, "not_found"),
          (req) => req.token !== undefined && req.token.organization !== "org_petitpas",
        ),
      ),
  },
  {
    id: "unknown-path-as-400",
    kind: "violation",
    area: "errors",
    description: "unknown paths and methods get 400 invalid_request instead of 404",
    expectFailing: ["errors.unknown-paths", "errors.other-methods", "versioning.unversioned-path"],
    build: (env) => plain(env, mapError(404, retarget(400, "invalid_request"))),
  },
  {
    id: "invalid-request-renamed",
    kind: "violation",
    area: "errors",
    description: "400 answers carry the code validation_error instead of invalid_request",
    expectFailing: ["errors.malformed-json", "contacts.invalid-bodies", "run.error-envelope"],
    build: (env) =>
      plain(
        env,
        mapError(400, (error) => {
          error.code = "validation_error";
        }),
      ),
  },
  {
    id: "details-as-array",
    kind: "violation",
    area: "errors",
    description: "error.details is an array of { field, messages } instead of an object",
    expectFailing: ["run.error-envelope"],
    build: (env) =>
      plain(
        env,
        mapError(400, (error) => {
          if (isObject(error.details)) {
            error.details = Object.entries(error.details).map(([field, messages]) => ({ field, messages }));
          }
        }),
      ),
  },
  // §2: formats.
  {
    id: "unit-price-number",
    kind: "violation",
    area: "formats",
    description: "unitPrice is served as a JSON number instead of a 4-decimal string",
    expectFailing: ["resources.products", "products.created-listed"],
    build: (env) =>
      plain(
        env,
        mapResources((item) =>
          typeof item.unitPrice === "string" ? { ...item, unitPrice: Number(item.unitPrice) } : item,
        ),
      ),
  },
  {
    id: "money-two-decimals",
    kind: "violation",
    area: "formats",
    description: "money is served with 2 decimals instead of 4",
    expectFailing: ["resources.invoices", "resources.expenses", "resources.products"],
    build: (env) =>
      plain(
        env,
        mapResources((item) => {
          const out = { ...item };
          for (const f of MONEY_FIELDS) {
            const v = out[f];
            if (typeof v === "string") out[f] = new Decimal(v).toFixed(2);
          }
          return out;
        }),
      ),
  },
  {
    id: "timestamps-without-ms",
    kind: "violation",
    area: "formats",
    description: "timestamps are served without milliseconds (2025-01-10T18:37:11Z)",
    expectFailing: ["resources.contacts", "resources.invoices", "contacts.create-response"],
    build: (env) =>
      plain(
        env,
        mapJsonBody((body) => mapStrings(body, (s) => (TIMESTAMP.test(s) ? s.replace(/\.\d{3}Z$/, "Z") : s))),
      ),
  },
  {
    id: "timestamps-with-offset",
    kind: "violation",
    area: "formats",
    description: "timestamps end in +00:00 instead of Z",
    expectFailing: ["resources.contacts", "resources.products", "resources.invoices", "resources.expenses"],
    build: (env) =>
      plain(
        env,
        mapJsonBody((body) => mapStrings(body, (s) => (TIMESTAMP.test(s) ? s.replace(/Z$/, "+00:00") : s))),
      ),
  },
  {
    id: "invoice-date-noon",
    kind: "violation",
    area: "formats",
    description: "invoice dates are at noon instead of midnight",
    expectFailing: ["resources.invoices"],
    build: (env) =>
      plain(
        env,
        mapResources(
          (item) =>
            typeof item.date === "string" && item.invoiceNumber !== undefined
              ? { ...item, date: item.date.replace("T00:00:00.000Z", "T12:00:00.000Z") }
              : item,
          "lists",
        ),
      ),
  },
  {
    id: "invoice-status-unknown",
    kind: "violation",
    area: "formats",
    description: "voided invoices are served with the status CANCELLED, outside §2's enum",
    expectFailing: ["resources.invoices", "lists.status-filter"],
    build: (env) =>
      plain(
        env,
        mapResources(
          (item) =>
            item.invoiceNumber !== undefined && item.status === "VOIDED"
              ? { ...item, status: "CANCELLED" }
              : item,
          "lists",
        ),
      ),
  },
  {
    id: "expense-without-account",
    kind: "violation",
    area: "formats",
    description: "expenses are served without their account",
    expectFailing: ["resources.expenses"],
    build: (env) =>
      plain(
        env,
        mapResources((item, req) => {
          if (req.path !== EXPENSES) return item;
          const { account: _account, ...rest } = item;
          return rest;
        }, "lists"),
      ),
  },
  // §4 and §8: lists, filters, limits.
  {
    id: "limit-ignored",
    kind: "violation",
    area: "lists",
    description: "limit is ignored: lists always hold up to 50 items",
    expectFailing: ["lists.limit-and-filters", "lists.limit-out-of-range"],
    build: (env) =>
      plain(env, {
        request(req) {
          if (isList(req)) req.query.delete("limit");
          return undefined;
        },
      }),
  },
  {
    id: "limit-plus-one",
    kind: "violation",
    area: "lists",
    description: "limit=n returns n + 1 items (off by one)",
    expectFailing: ["lists.limit-and-filters"],
    build: (env) =>
      plain(env, {
        request(req) {
          const limit = req.query.get("limit");
          if (isList(req) && limit !== null && /^[1-9]\d*$/.test(limit) && Number(limit) < 200) {
            req.query.set("limit", String(Number(limit) + 1));
          }
          return undefined;
        },
      }),
  },
  {
    id: "type-filter-ignored",
    kind: "violation",
    area: "lists",
    description: "the contacts' type filter is ignored",
    expectFailing: ["lists.type-filter", "lists.limit-and-filters"],
    build: (env) =>
      plain(env, {
        request(req) {
          if (isList(req) && req.path === CONTACTS) req.query.delete("type");
          return undefined;
        },
      }),
  },
  {
    id: "status-filter-ignored",
    kind: "violation",
    area: "lists",
    description: "the invoices' and expenses' status filter is ignored",
    expectFailing: ["lists.status-filter", "lists.limit-and-filters"],
    build: (env) =>
      plain(env, {
        request(req) {
          if (isList(req) && req.path !== CONTACTS) req.query.delete("status");
          return undefined;
        },
      }),
  },
  {
    id: "page-cap-250",
    kind: "violation",
    area: "lists",
    description: "the page size is capped at 250 instead of 200 (an organization with 274 contacts)",
    expectFailing: ["lists.limit-out-of-range"],
    build: async (env) => {
      const reference = await env.reference();
      archiveContacts(reference, "org_lumiere", 250);
      return wrap(reference, {
        request(req) {
          const limit = Number(req.query.get("limit"));
          const org = req.token?.organization;
          if (!isList(req) || req.path !== CONTACTS || !(limit > 200) || org === undefined) return undefined;
          if (req.token?.state !== "active" || !req.token.scopes.includes("contacts:read")) return undefined;
          const type = req.query.get("type");
          const items = reference.store
            .listContacts(org, { limit: Math.min(Math.floor(limit), 250) })
            .filter((c) => type === null || c.type === type);
          return { status: 200, json: { data: items.map(toContact) } };
        },
      });
    },
  },
  {
    id: "name-201-accepted",
    kind: "violation",
    area: "input",
    description: "a contact name of 201 characters is accepted (cut to 200)",
    expectFailing: ["contacts.length-boundaries"],
    build: (env) =>
      plain(
        env,
        mapRequestJson((body, req) =>
          req.path === CONTACTS && typeof body.name === "string" && codePoints(body.name) === 201
            ? { ...body, name: [...body.name].slice(0, 200).join("") }
            : body,
        ),
      ),
  },
  {
    id: "phone-50-refused",
    kind: "violation",
    area: "input",
    description: "a phone of exactly 50 characters is refused (off by one)",
    expectFailing: ["contacts.length-boundaries"],
    build: (env) =>
      plain(
        env,
        mapRequestJson((body, req) =>
          req.path === CONTACTS && typeof body.phone === "string" && codePoints(body.phone) === 50
            ? { ...body, phone: `${body.phone}9` }
            : body,
        ),
      ),
  },
  {
    id: "description-2001-accepted",
    kind: "violation",
    area: "input",
    description: "a product description of 2001 characters is accepted (cut to 2000)",
    expectFailing: ["products.length-boundaries"],
    build: (env) =>
      plain(
        env,
        mapRequestJson((body, req) =>
          req.path === PRODUCTS &&
          typeof body.description === "string" &&
          codePoints(body.description) === 2001
            ? { ...body, description: [...body.description].slice(0, 2000).join("") }
            : body,
        ),
      ),
  },
  // §3 and §5: token states, scopes, plans.
  {
    id: "revoked-token-accepted",
    kind: "violation",
    area: "auth",
    description: "a revoked token is still accepted",
    expectFailing: ["auth.revoked-token"],
    build: async (env) => {
      const reference = await env.reference();
      return wrap(reference, {
        request(req) {
          if (req.token?.state === "revoked") useToken(req, fullTokenOf(reference, req.token.organization));
          return undefined;
        },
      });
    },
  },
  {
    id: "expired-token-accepted",
    kind: "violation",
    area: "auth",
    description: "an expired token is still accepted",
    expectFailing: ["auth.expired-token"],
    build: async (env) => {
      const reference = await env.reference();
      return wrap(reference, {
        request(req) {
          if (req.token?.state === "expired") useToken(req, fullTokenOf(reference, req.token.organization));
          return undefined;
        },
      });
    },
  },
  {
    id: "token-with-suffix-accepted",
    kind: "violation",
    area: "auth",
    description: "a valid token with characters appended is accepted (prefix comparison)",
    expectFailing: ["auth.invalid-token"],
    build: async (env) => {
      const reference = await env.reference();
      return wrap(reference, {
        request(req) {
          const value = /^bearer (.+)$/i.exec(req.headers.authorization ?? "")?.[1];
          const known = reference.manifest.tokens.find((t) => value?.startsWith(t.token) === true);
          if (value !== undefined && known !== undefined && value !== known.token) useToken(req, known);
          return undefined;
        },
      });
    },
  },
  {
    id: "missing-token-default-org",
    kind: "violation",
    area: "auth",
    description: "a GET without a token is served as the first organization's (a default tenant)",
    expectFailing: ["auth.missing-token"],
    build: async (env) => {
      const reference = await env.reference();
      const full = tokenByLabel(reference, "lumiere-full");
      return wrap(reference, {
        request(req) {
          if (req.headers.authorization === undefined && isList(req)) useToken(req, full);
          return undefined;
        },
      });
    },
  },
  {
    id: "scope-not-enforced-invoices",
    kind: "violation",
    area: "auth",
    description: "GET /api/v1/invoices does not check the invoices:read scope",
    expectFailing: ["auth.scope-matrix"],
    build: async (env) => {
      const reference = await env.reference();
      return wrap(reference, {
        request(req) {
          const token = req.token;
          if (isList(req) && req.path === INVOICES && token !== undefined && token.state === "active") {
            if (!token.scopes.includes("invoices:read") && token.organization !== "org_petitpas") {
              useToken(req, fullTokenOf(reference, token.organization));
            }
          }
          return undefined;
        },
      });
    },
  },
  {
    id: "plan-not-enforced",
    kind: "violation",
    area: "auth",
    description: "an organization whose plan has no API access is served (org_petitpas gets 200)",
    expectFailing: ["auth.plan"],
    build: async (env) => {
      const reference = await env.reference();
      const store = reference.store;
      const lookup = store.organization.bind(store);
      // The data behind the API changes, not the server: the organization now reads as on a paid plan.
      store.organization = (id: string): Organization | undefined => {
        const org = lookup(id);
        return org?.plan === "STARTER" ? { ...org, plan: "BUSINESS" } : org;
      };
      return wrap(reference);
    },
  },
  // §1: isolation between organizations.
  {
    id: "contacts-mirrored-to-other-org",
    kind: "violation",
    area: "isolation",
    description: "contacts created by one organization also appear in another's list",
    expectFailing: ["isolation.contacts"],
    build: async (env) => {
      const reference = await env.reference();
      return wrap(reference, {
        response(res, req) {
          const id = (jsonOf(res) as { data?: { id?: unknown } } | undefined)?.data?.id;
          if (req.method !== "POST" || req.path !== CONTACTS || res.status !== 201 || typeof id !== "string")
            return;
          const org = req.token?.organization ?? "";
          const created = reference.store.contact(org, id);
          for (const other of reference.store.organizations()) {
            if (created !== undefined && other.id !== org) {
              reference.store.addContact({ ...created, organizationId: other.id });
            }
          }
        },
      });
    },
  },
  {
    id: "products-shared-across-orgs",
    kind: "violation",
    area: "isolation",
    description: "every organization reads the first organization's products",
    expectFailing: ["isolation.products"],
    build: async (env) => {
      const reference = await env.reference();
      const lumiere = tokenByLabel(reference, "lumiere-full");
      return wrap(reference, {
        request(req) {
          if (isList(req) && req.path === PRODUCTS && req.token?.organization === "org_boreal") {
            useToken(req, lumiere);
          }
          return undefined;
        },
      });
    },
  },
  {
    id: "foreign-id-readable",
    kind: "violation",
    area: "isolation",
    description: "GET /api/v1/contacts/<id> answers any organization's contact",
    expectFailing: ["isolation.foreign-id"],
    build: async (env) => {
      const reference = await env.reference();
      return wrap(reference, {
        request(req) {
          const id = /^\/api\/v1\/contacts\/([^/]+)$/.exec(req.path)?.[1];
          if (req.method !== "GET" || id === undefined || req.token === undefined) return undefined;
          for (const org of reference.store.organizations()) {
            const contact = reference.store.contact(org.id, decodeURIComponent(id));
            if (contact !== undefined) return { status: 200, json: { data: toContact(contact) } };
          }
          return undefined;
        },
      });
    },
  },
  // §4: CORS.
  {
    id: "cors-missing-on-success",
    kind: "violation",
    area: "cors",
    description: "successful answers carry no Access-Control-Allow-Origin",
    expectFailing: ["cors.success"],
    build: (env) =>
      plain(env, {
        response(res, req) {
          if (req.method !== "OPTIONS" && is2xx(res)) delete res.headers["access-control-allow-origin"];
        },
      }),
  },
  {
    id: "preflight-not-answered",
    kind: "violation",
    area: "cors",
    description: "pre-flights (OPTIONS) get 404 not_found without CORS headers",
    expectFailing: ["cors.preflight"],
    build: (env) =>
      plain(env, {
        request: (req) =>
          req.method === "OPTIONS" ? errorReply(404, "not_found", "No endpoint") : undefined,
        response(res, req) {
          if (req.method === "OPTIONS") delete res.headers["access-control-allow-origin"];
        },
      }),
  },
  {
    id: "preflight-without-authorization",
    kind: "violation",
    area: "cors",
    description: "pre-flights allow Content-Type but not the Authorization header",
    expectFailing: ["cors.preflight"],
    build: (env) =>
      plain(env, {
        response(res, req) {
          if (req.method === "OPTIONS") res.headers["access-control-allow-headers"] = "Content-Type";
        },
      }),
  },
  {
    id: "preflight-without-put-patch-delete",
    kind: "violation",
    area: "cors",
    description: "pre-flights allow only GET, POST and OPTIONS",
    expectFailing: ["cors.preflight"],
    build: (env) =>
      plain(env, {
        response(res, req) {
          if (req.method === "OPTIONS") res.headers["access-control-allow-methods"] = "GET,POST,OPTIONS";
        },
      }),
  },
  // §7 and §4: bad input, unavailable endpoints.
  {
    id: "malformed-json-500",
    kind: "violation",
    area: "errors",
    description: "malformed JSON gets 500 internal_error instead of 400",
    expectFailing: ["errors.malformed-json", "run.no-5xx"],
    build: (env) =>
      plain(env, {
        readBody: true,
        response(res, req) {
          if (res.status === 400 && req.method === "POST" && req.body !== undefined && !isJson(req.body)) {
            res.status = 500;
            setJson(res, { error: { code: "internal_error", message: "Unexpected token" } });
          }
        },
      }),
  },
  {
    id: "malformed-json-accepted",
    kind: "violation",
    area: "errors",
    description: "malformed JSON gets 200 with an empty record",
    expectFailing: ["errors.malformed-json"],
    build: (env) =>
      plain(env, {
        readBody: true,
        request: (req) =>
          req.method === "POST" && req.token !== undefined && req.body !== undefined && !isJson(req.body)
            ? { status: 200, json: { data: {} } }
            : undefined,
      }),
  },
  {
    id: "oversized-body-413-text",
    kind: "violation",
    area: "errors",
    description: "an oversized body gets 413 as text/plain, outside the error envelope",
    expectFailing: ["errors.body-size", "run.json-responses"],
    build: (env) =>
      plain(env, {
        response(res) {
          if (res.status !== 400 || !/exceeds the limit/.test(res.body.toString("utf8"))) return;
          res.status = 413;
          res.headers["content-type"] = "text/plain; charset=utf-8";
          res.body = Buffer.from("Payload Too Large");
        },
      }),
  },
  {
    id: "content-type-422",
    kind: "violation",
    area: "errors",
    description: "a POST without Content-Type: application/json gets 422 instead of 400 or 415",
    expectFailing: ["errors.content-type"],
    build: (env) =>
      plain(
        env,
        mapError(
          400,
          (error, res) => {
            res.status = 422;
            error.code = "unprocessable_entity";
          },
          (req) => req.method === "POST" && !/^application\/json/i.test(req.headers["content-type"] ?? ""),
        ),
      ),
  },
  {
    id: "invoice-creation-open",
    kind: "violation",
    area: "errors",
    description: "POST /api/v1/invoices, announced but not available, answers 201",
    expectFailing: ["errors.announced-endpoints"],
    build: (env) =>
      plain(env, {
        request: (req) =>
          req.method === "POST" && req.path === INVOICES && req.token !== undefined
            ? { status: 201, json: { data: { id: "inv_variant" } } }
            : undefined,
      }),
  },
  {
    id: "other-methods-succeed",
    kind: "violation",
    area: "errors",
    description: "PUT, PATCH and DELETE succeed (200, or 204 for DELETE) on paths without an endpoint",
    expectFailing: ["errors.other-methods"],
    build: (env) =>
      plain(env, {
        request(req) {
          if (req.token === undefined || !["PUT", "PATCH", "DELETE"].includes(req.method)) return undefined;
          return req.method === "DELETE" ? { status: 204 } : { status: 200, json: { data: {} } };
        },
      }),
  },
  {
    id: "unversioned-alias",
    kind: "violation",
    area: "errors",
    description: "/api/contacts is served like /api/v1/contacts",
    expectFailing: ["versioning.unversioned-path"],
    build: (env) =>
      plain(env, {
        request(req) {
          if (/^\/api\/(contacts|products|invoices|expenses)$/.test(req.path))
            req.path = req.path.replace("/api/", "/api/v1/");
          return undefined;
        },
      }),
  },
  // §4 and §8: body validation.
  {
    id: "duplicate-sku-accepted",
    kind: "violation",
    area: "input",
    description: "a duplicate sku is accepted (stored under a suffixed sku)",
    expectFailing: ["products.duplicate-sku"],
    build: async (env) => {
      const reference = await env.reference();
      return wrap(
        reference,
        mapRequestJson((body, req) => {
          const org = req.token?.organization;
          if (req.path !== PRODUCTS || typeof body.sku !== "string" || org === undefined) return body;
          if (reference.store.productBySku(org, body.sku) === undefined) return body;
          return { ...body, sku: `${body.sku.slice(0, 90)}-dup${Date.now() % 1000}` };
        }),
      );
    },
  },
  {
    id: "negative-price-accepted",
    kind: "violation",
    area: "input",
    description: "a negative unitPrice is accepted (stored as its absolute value)",
    expectFailing: ["products.unit-price-negative"],
    build: (env) =>
      plain(
        env,
        mapPriceText((p) => p.abs()),
      ),
  },
  {
    id: "invalid-email-accepted",
    kind: "violation",
    area: "input",
    description: "an invalid e-mail (not-an-email, a@, @b.c, a b@c.d) is accepted (dropped)",
    expectFailing: ["contacts.email-clear-cases"],
    build: (env) =>
      plain(
        env,
        mapRequestJson((body, req) => {
          if (req.path !== CONTACTS || typeof body.email !== "string") return body;
          if (/^[^\s@]+@[^\s@]+$/.test(body.email)) return body;
          const { email: _email, ...rest } = body;
          return rest;
        }),
      ),
  },
  {
    id: "missing-type-defaulted",
    kind: "violation",
    area: "input",
    description: "a contact without type is created as CLIENT instead of refused",
    expectFailing: ["contacts.invalid-bodies"],
    build: (env) =>
      plain(
        env,
        mapRequestJson((body, req) =>
          req.path === CONTACTS && !("type" in body) ? { type: "CLIENT", ...body } : body,
        ),
      ),
  },
  {
    id: "unit-price-rounded",
    kind: "violation",
    area: "input",
    description: "unitPrice is rounded to 2 decimals on creation (1234.5678 reads back 1234.5700)",
    expectFailing: ["products.unit-price-round-trip", "products.valid-bodies"],
    build: (env) =>
      plain(
        env,
        mapPriceText((p) => p.toDecimalPlaces(2, Decimal.ROUND_HALF_UP)),
      ),
  },
  {
    id: "taxable-default-false",
    kind: "violation",
    area: "input",
    description: "a product created without taxable is taxable false (§4: default true)",
    expectFailing: ["products.created-listed"],
    build: (env) =>
      plain(
        env,
        mapRequestJson((body, req) =>
          req.path === PRODUCTS && !("taxable" in body) ? { ...body, taxable: false } : body,
        ),
      ),
  },
  {
    id: "contact-email-not-echoed",
    kind: "violation",
    area: "input",
    description: "contact creation answers leave out the e-mail that was sent",
    expectFailing: ["contacts.create-response", "contacts.valid-bodies"],
    build: (env) =>
      plain(
        env,
        mapResources((item) => {
          const { email: _email, ...rest } = item;
          return rest;
        }, "creations"),
      ),
  },
  {
    id: "contact-names-uppercased",
    kind: "violation",
    area: "input",
    description: "lists serve contact names upper-cased",
    expectFailing: ["contacts.created-listed"],
    build: (env) =>
      plain(
        env,
        mapResources(
          (item, req) =>
            req.path === CONTACTS && typeof item.name === "string"
              ? { ...item, name: item.name.toUpperCase() }
              : item,
          "lists",
        ),
      ),
  },
  {
    id: "created-contacts-not-listed",
    kind: "violation",
    area: "input",
    description: "contacts created through the API never show in the list",
    expectFailing: ["contacts.created-listed"],
    build: async (env) => {
      const reference = await env.reference();
      const started = Date.now();
      return wrap(
        reference,
        mapJsonBody(
          (body) =>
            isObject(body) && Array.isArray(body.data)
              ? {
                  ...body,
                  data: body.data.filter(
                    (i: unknown) =>
                      !(isObject(i) && typeof i.createdAt === "string" && Date.parse(i.createdAt) >= started),
                  ),
                }
              : body,
          (res, req) => isList(req) && req.path === CONTACTS && is2xx(res),
        ),
      );
    },
  },
  {
    id: "mojibake-echo",
    kind: "violation",
    area: "envelope",
    description: "creation answers echo non-ASCII text decoded as Latin-1 (Ã‰lodie)",
    expectFailing: ["envelope.utf-8", "contacts.create-response"],
    build: (env) =>
      plain(
        env,
        mapResources(
          (item) => mapStrings(item, (s) => Buffer.from(s, "utf8").toString("latin1")) as Json,
          "creations",
        ),
      ),
  },
  {
    id: "content-type-html",
    kind: "violation",
    area: "envelope",
    description: "answers are served as text/html",
    expectFailing: ["run.json-responses", "envelope.list-data-array"],
    build: (env) =>
      plain(env, {
        response(res) {
          if (res.headers["content-type"] !== undefined)
            res.headers["content-type"] = "text/html; charset=utf-8";
        },
      }),
  },
  // §8: the rate limit.
  {
    id: "no-rate-limit",
    kind: "violation",
    area: "rate-limit",
    description: "no 429, ever",
    expectFailing: ["ratelimit.burst"],
    build: async (env) => wrap(await env.reference({ rateLimit: 1_000_000_000 })),
  },
  {
    id: "rate-limited-wrong-code",
    kind: "violation",
    area: "rate-limit",
    description: "429 answers carry the code too_many_requests instead of rate_limited",
    expectFailing: ["ratelimit.burst", "run.error-envelope"],
    build: (env) =>
      plain(
        env,
        mapError(429, (error) => {
          error.code = "too_many_requests";
        }),
      ),
  },
  {
    id: "rate-limited-as-503",
    kind: "violation",
    area: "rate-limit",
    description: "the rate limit answers 503 instead of 429",
    expectFailing: ["ratelimit.burst", "run.no-5xx"],
    build: (env) => plain(env, mapError(429, retarget(503, "service_unavailable"))),
  },
  {
    id: "rate-limit-never-lifts",
    kind: "violation",
    area: "rate-limit",
    slow: true,
    description: "once rate-limited, a token stays blocked whatever it waits (run with --slow)",
    expectFailing: ["ratelimit.retry-after"],
    build: (env) => {
      const blocked = new Set<string>();
      return plain(env, {
        request: (req) =>
          req.token !== undefined && blocked.has(req.token.token)
            ? { ...errorReply(429, "rate_limited", "Blocked"), headers: { "retry-after": "1" } }
            : undefined,
        response(res, req) {
          if (res.status === 429 && req.token !== undefined) blocked.add(req.token.token);
        },
      });
    },
  },
  // §4: before.
  {
    id: "before-inclusive",
    kind: "violation",
    area: "lists",
    description: "before is inclusive: items at exactly that instant are returned",
    expectFailing: ["lists.before"],
    build: (env) =>
      plain(env, {
        request(req) {
          const before = req.query.get("before");
          if (!isList(req) || before === null || !TIMESTAMP.test(before)) return undefined;
          req.query.set("before", new Date(Date.parse(before) + 1).toISOString());
          return undefined;
        },
      }),
  },
  // Where the kit is likeliest to look away: one direction of isolation, a reversed filter, byte counts.
  {
    id: "contacts-leak-into-first-org",
    kind: "violation",
    area: "isolation",
    description: "contacts created by org_boreal also appear in org_lumiere's list",
    expectFailing: ["isolation.contacts"],
    build: async (env) => {
      const reference = await env.reference();
      return wrap(reference, {
        response(res, req) {
          const id = (jsonOf(res) as { data?: { id?: unknown } } | undefined)?.data?.id;
          if (req.method !== "POST" || req.path !== CONTACTS || res.status !== 201 || typeof id !== "string")
            return;
          const created = reference.store.contact("org_boreal", id);
          if (req.token?.organization === "org_boreal" && created !== undefined) {
            reference.store.addContact({ ...created, organizationId: "org_lumiere" });
          }
        },
      });
    },
  },
  {
    id: "before-reversed",
    kind: "violation",
    area: "lists",
    description: "before returns the items at or after it instead of those strictly before",
    expectFailing: ["lists.before"],
    build: (env) =>
      plain(env, {
        request(req) {
          if (isList(req) && req.query.has("before")) {
            asAfter.set(req, req.query.get("before") ?? "");
            req.query.delete("before");
            req.query.set("limit", "200");
          }
          return undefined;
        },
        response(res, req) {
          const after = asAfter.get(req);
          const body = jsonOf(res);
          if (after === undefined || res.status !== 200 || !isObject(body) || !Array.isArray(body.data))
            return;
          const field = req.path === INVOICES || req.path === EXPENSES ? "date" : "createdAt";
          const kept = body.data.filter(
            (i: unknown) =>
              isObject(i) && typeof i[field] === "string" && Date.parse(i[field]) >= Date.parse(after),
          );
          setJson(res, { data: kept });
        },
      }),
  },
  {
    id: "before-date-only",
    kind: "violation",
    area: "lists",
    description:
      'before takes a date only (YYYY-MM-DD) and refuses a date-time with 400; but §4\'s pagination sets before "from the date of the last result", which is served as a date-time (2026-10-30T00:00:00.000Z), so a server supporting before must accept the served format',
    expectFailing: ["lists.before"],
    build: (env) =>
      plain(env, {
        request(req) {
          const before = req.query.get("before");
          if (
            !isList(req) ||
            before === null ||
            /^\d{4}-\d{2}-\d{2}$/.test(before) ||
            req.token === undefined
          ) {
            return undefined;
          }
          return {
            status: 400,
            json: {
              error: {
                code: "invalid_request",
                message: "before must be a date (YYYY-MM-DD)",
                details: { before: ["must be a date (YYYY-MM-DD)"] },
              },
            },
          };
        },
      }),
  },
  {
    id: "name-limit-in-bytes",
    kind: "violation",
    area: "input",
    description: 'the contact name limit counts UTF-8 bytes: 200 characters "é" (400 bytes) are refused',
    expectFailing: ["contacts.length-boundaries", "contacts.valid-bodies"],
    build: (env) =>
      plain(env, {
        readBody: true,
        request(req) {
          if (req.method !== "POST" || req.path !== CONTACTS || req.body === undefined) return undefined;
          const body = parseJson(req.body);
          if (!isObject(body) || typeof body.name !== "string" || Buffer.byteLength(body.name) <= 200)
            return undefined;
          return {
            status: 400,
            json: {
              error: {
                code: "invalid_request",
                message: "name is too long",
                details: { name: ["too long"] },
              },
            },
          };
        },
      }),
  },
  {
    id: "default-limit-100",
    kind: "violation",
    area: "lists",
    description: "a list without limit holds up to 100 items instead of 50",
    expectFailing: ["lists.default-limit", "lists.limit-and-filters"],
    build: (env) =>
      plain(env, {
        request(req) {
          if (isList(req) && !req.query.has("limit")) req.query.set("limit", "100");
          return undefined;
        },
      }),
  },
  {
    id: "write-implies-read",
    kind: "violation",
    area: "auth",
    description: "a token with contacts:write (products:write) may also read contacts (products)",
    expectFailing: ["auth.scope-matrix"],
    build: async (env) => {
      const reference = await env.reference();
      return wrap(reference, {
        request(req) {
          const token = req.token;
          if (!isList(req) || token === undefined || token.state !== "active") return undefined;
          const kind = req.path.slice("/api/v1/".length);
          const held: readonly string[] = token.scopes;
          if (held.includes(`${kind}:write`) && !held.includes(`${kind}:read`)) {
            useToken(req, fullTokenOf(reference, token.organization));
          }
          return undefined;
        },
      });
    },
  },
  {
    id: "limit-200-refused",
    kind: "violation",
    area: "lists",
    description: "limit=200, the largest page, is refused with 400 (off by one)",
    expectFailing: ["lists.limit-and-filters"],
    build: (env) =>
      plain(env, {
        request: (req) =>
          isList(req) && req.query.get("limit") === "200" && req.token !== undefined
            ? errorReply(400, "invalid_request", "limit must be below 200")
            : undefined,
      }),
  },
  // SHOULD rules: violations only under --strict.
  {
    id: "totals-off-by-a-cent",
    kind: "violation",
    area: "formats",
    strict: true,
    description: "invoice totals are one cent more than subtotal + tps + tvq (SHOULD: run with --strict)",
    expectFailing: ["resources.totals"],
    build: (env) =>
      plain(
        env,
        mapResources(
          (item) =>
            item.invoiceNumber !== undefined && typeof item.total === "string"
              ? { ...item, total: new Decimal(item.total).plus("0.01").toFixed(4) }
              : item,
          "lists",
        ),
      ),
  },
  {
    id: "lists-oldest-first",
    kind: "violation",
    area: "lists",
    strict: true,
    description: "lists come oldest first (SHOULD: run with --strict)",
    expectFailing: ["lists.order"],
    build: (env) =>
      plain(
        env,
        mapJsonBody(
          (body) =>
            isObject(body) && Array.isArray(body.data) ? { ...body, data: [...body.data].reverse() } : body,
          (res, req) => isList(req) && is2xx(res),
        ),
      ),
  },
];

/** The `before` a reversed-filter variant read, by request. */
const asAfter = new WeakMap<Incoming, string>();

function isJson(bytes: Buffer): boolean {
  return parseJson(bytes) !== undefined || bytes.toString("utf8").trim() === "null";
}

// ---- benign variants: other legal answers to open points; the kit must pass each one -------------------

/** The query parameters §4 names for each list: anything else is "unknown" (spec-gaps #11). */
const KNOWN_PARAMS: Readonly<Record<string, readonly string[]>> = {
  [CONTACTS]: ["limit", "type", "before"],
  [PRODUCTS]: ["limit", "before"],
  [INVOICES]: ["limit", "status", "before"],
  [EXPENSES]: ["limit", "status", "before"],
};

const BODY_FIELDS: Readonly<Record<string, readonly string[]>> = {
  [CONTACTS]: ["type", "name", "email", "phone", "address", "taxNumberTPS", "taxNumberTVQ"],
  [PRODUCTS]: ["sku", "name", "description", "type", "unitPrice", "taxable"],
};

/** A rate limiter in front of the reference: a fixed window per client address (spec-gaps #21). */
function perAddressLimiter(limit: number, windowMs: number): Layer {
  const counts = new Map<string, { window: number; count: number }>();
  return {
    request(req) {
      if (req.method === "OPTIONS") return undefined;
      const now = Date.now();
      const window = Math.floor(now / windowMs);
      const entry = counts.get(req.address);
      const current = entry !== undefined && entry.window === window ? entry : { window, count: 0 };
      current.count += 1;
      counts.set(req.address, current);
      if (current.count <= limit) return undefined;
      const retry = Math.max(1, Math.ceil(((window + 1) * windowMs - now) / 1000));
      return {
        ...errorReply(429, "rate_limited", "Too many requests from this address"),
        headers: { "retry-after": String(retry) },
      };
    },
  };
}

const benign: Variant[] = [
  {
    id: "extra-fields",
    kind: "benign",
    area: "envelope",
    description: "every resource carries extra fields (_links, version), nested objects too",
    build: (env) =>
      plain(env, {
        response(res, req) {
          if (!is2xx(res) || !(isList(req) || isCreation(req))) return;
          const body = jsonOf(res);
          if (!isObject(body)) return;
          const data = mapObjects(body.data, (o) => ({
            ...o,
            _links: { self: typeof o.id === "string" ? `${req.path}/${o.id}` : req.path },
            version: 1,
          }));
          setJson(res, { data });
          res.headers["x-request-id"] = "variant-request";
        },
      }),
  },
  {
    id: "uuid-ids",
    kind: "benign",
    area: "formats",
    description: "identifiers are UUIDs (mapped consistently both ways)",
    build: async (env) => {
      const reference = await env.reference();
      const back = new Map<string, string>();
      const toUuid = (id: string): string => {
        const uuid = uuidOf(id);
        back.set(uuid, id);
        return uuid;
      };
      return wrap(reference, {
        request(req) {
          req.path = req.path
            .split("/")
            .map((seg) => back.get(decodeURIComponent(seg)) ?? seg)
            .join("/");
          return undefined;
        },
        response(res) {
          const body = jsonOf(res);
          if (!isObject(body) || !("data" in body)) return;
          const data = mapObjects(body.data, (o) =>
            typeof o.id === "string" ? { ...o, id: toUuid(o.id) } : o,
          );
          setJson(res, { data });
        },
      });
    },
  },
  {
    id: "product-create-200",
    kind: "benign",
    area: "envelope",
    description: "product creation answers 200 instead of 201",
    build: (env) =>
      plain(
        env,
        mapStatus((s, req) => (req.method === "POST" && req.path === PRODUCTS && s === 201 ? 200 : s)),
      ),
  },
  {
    id: "product-create-empty-data",
    kind: "benign",
    area: "envelope",
    description: 'product creation answers { "data": {} }',
    build: (env) =>
      plain(
        env,
        mapJsonBody(
          () => ({ data: {} }),
          (res, req) => req.method === "POST" && req.path === PRODUCTS && is2xx(res),
        ),
      ),
  },
  {
    id: "limit-clamped",
    kind: "benign",
    area: "lists",
    description:
      "an out-of-range limit is clamped (0 → 1, 1000 → 200, junk → 50, repeated → first) instead of 400",
    build: (env) =>
      plain(env, {
        request(req) {
          const values = req.query.getAll("limit");
          const first = values[0];
          if (!isList(req) || first === undefined) return undefined;
          const n = Number(first);
          const clamped =
            first.trim() === "" || !Number.isFinite(n) ? 50 : Math.min(200, Math.max(1, Math.floor(n)));
          req.query.set("limit", String(clamped));
          return undefined;
        },
      }),
  },
  {
    id: "method-not-allowed-405",
    kind: "benign",
    area: "errors",
    description: "PUT, PATCH and DELETE get 405 (with Allow and the error envelope) instead of 404",
    build: (env) =>
      plain(env, {
        request(req) {
          if (!["PUT", "PATCH", "DELETE"].includes(req.method) || req.token === undefined) return undefined;
          const collection = LIST_PATHS.find((p) => req.path === p || req.path.startsWith(`${p}/`));
          if (collection === undefined) return undefined;
          return {
            ...errorReply(405, "method_not_allowed", `${req.method} is not allowed here`),
            headers: { allow: req.path === collection ? "GET, POST" : "" },
          };
        },
      }),
  },
  {
    id: "no-rate-limit-headers",
    kind: "benign",
    area: "rate-limit",
    slow: true,
    description: "no rate-limit headers at all (RateLimit, RateLimit-Policy, Retry-After), the 429 kept",
    build: (env) => plain(env, dropHeader("ratelimit", "ratelimit-policy", "retry-after")),
  },
  {
    id: "cors-echo-origin",
    kind: "benign",
    area: "cors",
    description: "CORS echoes the request's Origin (with Vary: Origin) instead of *",
    build: (env) =>
      plain(env, {
        response(res, req) {
          const origin = req.headers.origin;
          if (origin === undefined || res.headers["access-control-allow-origin"] === undefined) return;
          res.headers["access-control-allow-origin"] = origin;
          res.headers.vary = "Origin";
        },
      }),
  },
  {
    id: "optional-fields-absent",
    kind: "benign",
    area: "formats",
    description: "unset optional fields are absent instead of null",
    build: (env) =>
      plain(
        env,
        mapResources(
          (item) =>
            mapObjects(item, (o) =>
              Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null)),
            ) as Json,
        ),
      ),
  },
  {
    id: "before-not-supported",
    kind: "benign",
    area: "lists",
    description: "before is not supported (ignored)",
    build: (env) =>
      plain(env, {
        request(req) {
          req.query.delete("before");
          return undefined;
        },
      }),
  },
  {
    id: "unknown-query-params-refused",
    kind: "benign",
    area: "lists",
    description: "unknown query parameters get 400 invalid_request",
    build: (env) =>
      plain(env, {
        request(req) {
          const known = KNOWN_PARAMS[req.path];
          if (req.method !== "GET" || known === undefined || req.token === undefined) return undefined;
          const unknown = [...req.query.keys()].filter((k) => !known.includes(k));
          if (unknown.length === 0) return undefined;
          return {
            status: 400,
            json: {
              error: {
                code: "invalid_request",
                message: "Unknown query parameters",
                details: Object.fromEntries(unknown.map((k) => [k, ["is not a known parameter"]])),
              },
            },
          };
        },
      }),
  },
  {
    id: "unknown-body-fields-ignored",
    kind: "benign",
    area: "input",
    description: "unknown fields in a POST body are ignored instead of refused",
    build: (env) =>
      plain(
        env,
        mapRequestJson((body, req) => {
          const known = BODY_FIELDS[req.path] ?? [];
          return Object.fromEntries(Object.entries(body).filter(([k]) => known.includes(k)));
        }),
      ),
  },
  {
    id: "type-filter-includes-both",
    kind: "benign",
    area: "lists",
    description: "type=CLIENT and type=SUPPLIER include the contacts of type BOTH",
    build: (env) => {
      const asked = new WeakMap<Incoming, { type: string; limit: number }>();
      return plain(env, {
        request(req) {
          const type = req.query.get("type");
          const limit = req.query.getAll("limit");
          const valid = limit.length === 0 || (limit.length === 1 && /^[1-9]\d*$/.test(limit[0] ?? ""));
          if (!isList(req) || req.path !== CONTACTS || (type !== "CLIENT" && type !== "SUPPLIER") || !valid) {
            return undefined;
          }
          // The reference reads the exact type only: read the largest page, keep the type and BOTH, cut.
          asked.set(req, { type, limit: Math.min(200, Number(limit[0] ?? 50)) });
          req.query.delete("type");
          req.query.set("limit", "200");
          return undefined;
        },
        response(res, req) {
          const wanted = asked.get(req);
          const body = jsonOf(res);
          if (wanted === undefined || res.status !== 200 || !isObject(body) || !Array.isArray(body.data))
            return;
          const kept = body.data.filter(
            (i: unknown) => isObject(i) && (i.type === wanted.type || i.type === "BOTH"),
          );
          setJson(res, { data: kept.slice(0, wanted.limit) });
        },
      });
    },
  },
  {
    id: "unsupported-media-type-415",
    kind: "benign",
    area: "errors",
    description: "a POST without Content-Type: application/json gets 415 instead of 400",
    build: (env) =>
      plain(
        env,
        mapError(
          400,
          (error, res) => {
            res.status = 415;
            error.code = "unsupported_media_type";
          },
          (req) =>
            req.method === "POST" && !/^application\/json\s*(;|$)/i.test(req.headers["content-type"] ?? ""),
        ),
      ),
  },
  {
    id: "payload-too-large-413",
    kind: "benign",
    area: "errors",
    description: "an oversized body gets 413 (error envelope) instead of 400",
    build: (env) =>
      plain(
        env,
        mapError(
          400,
          (error, res) => {
            res.status = 413;
            error.code = "payload_too_large";
          },
          (_req, res) => /exceeds the limit/.test(res.body.toString("utf8")),
        ),
      ),
  },
  {
    id: "json-without-charset",
    kind: "benign",
    area: "envelope",
    description: "Content-Type is application/json without a charset",
    build: (env) =>
      plain(env, {
        response(res) {
          if (String(res.headers["content-type"] ?? "").startsWith("application/json"))
            res.headers["content-type"] = "application/json";
        },
      }),
  },
  {
    id: "trailing-slash-accepted",
    kind: "benign",
    area: "errors",
    description: "paths with a trailing slash are served like those without",
    build: (env) =>
      plain(env, {
        request(req) {
          if (req.path.length > 1 && req.path.endsWith("/")) req.path = req.path.replace(/\/+$/, "");
          return undefined;
        },
      }),
  },
  {
    id: "head-served",
    kind: "benign",
    area: "errors",
    description: "HEAD is answered like GET (headers, no body)",
    build: (env) =>
      plain(env, {
        request(req) {
          // Node leaves out the body of an answer to HEAD whatever the app writes.
          if (req.method === "HEAD") req.method = "GET";
          return undefined;
        },
      }),
  },
  {
    id: "rate-limit-per-address",
    kind: "benign",
    area: "rate-limit",
    description: "the rate limit counts per client address, in fixed windows, without rate-limit headers",
    build: async (env) =>
      wrap(
        await env.reference({ rateLimit: 1_000_000_000 }),
        perAddressLimiter(env.rateLimit, env.windowMs),
        dropHeader("ratelimit", "ratelimit-policy"),
      ),
  },
  {
    id: "details-as-strings",
    kind: "benign",
    area: "errors",
    description: 'error.details maps each field to one message ("name": "is required") instead of a list',
    build: (env) =>
      plain(
        env,
        mapError(400, (error) => {
          if (isObject(error.details)) {
            error.details = Object.fromEntries(
              Object.entries(error.details).map(([k, v]) => [k, Array.isArray(v) ? v.join("; ") : v]),
            );
          }
        }),
      ),
  },
  {
    id: "contact-creation-full-record",
    kind: "benign",
    area: "envelope",
    description: "contact creation answers the full contact, null for what was not sent",
    build: async (env) => {
      const reference = await env.reference();
      return wrap(
        reference,
        mapResources((item, req) => {
          const org = req.token?.organization;
          const stored =
            org === undefined || typeof item.id !== "string"
              ? undefined
              : reference.store.contact(org, item.id);
          return req.path === CONTACTS && stored !== undefined ? { ...toContact(stored) } : item;
        }, "creations"),
      );
    },
  },
  {
    id: "sku-case-insensitive",
    kind: "benign",
    area: "input",
    description: "sku uniqueness ignores case (CFK-1 is a duplicate of cfk-1)",
    build: async (env) => {
      const reference = await env.reference();
      return wrap(reference, {
        readBody: true,
        request(req) {
          const org = req.token?.organization;
          if (req.method !== "POST" || req.path !== PRODUCTS || req.body === undefined || org === undefined) {
            return undefined;
          }
          const body = parseJson(req.body);
          const sku = isObject(body) && typeof body.sku === "string" ? body.sku.toLowerCase() : undefined;
          if (sku === undefined || !req.token?.scopes.includes("products:write")) return undefined;
          const clash = reference.store
            .listProducts(org, { limit: 1_000_000 })
            .some((p) => p.sku.toLowerCase() === sku);
          return clash
            ? errorReply(400, "invalid_request", "sku is already used (case-insensitively)")
            : undefined;
        },
      });
    },
  },
  {
    id: "bearer-case-sensitive",
    kind: "benign",
    area: "auth",
    description:
      "the scheme must be spelled Bearer: bearer and BEARER get 401 (and no WWW-Authenticate anywhere)",
    build: (env) =>
      plain(
        env,
        {
          request: (req) =>
            /^bearer /i.test(req.headers.authorization ?? "") &&
            !/^Bearer /.test(req.headers.authorization ?? "")
              ? errorReply(401, "unauthorized", "The scheme is Bearer")
              : undefined,
        },
        dropHeader("www-authenticate"),
      ),
  },
  {
    id: "validation-before-scope",
    kind: "benign",
    area: "auth",
    description: "an invalid body is refused (400) before the scope is judged (403), spec-gaps #26",
    build: (env) =>
      plain(env, {
        readBody: true,
        request(req) {
          const token = req.token;
          if (!isCreation(req) || token === undefined || req.body === undefined) return undefined;
          const held: readonly string[] = token.scopes;
          const body = parseJson(req.body);
          const required = req.path === CONTACTS ? ["type", "name"] : ["sku", "name", "unitPrice"];
          const missing = isObject(body) ? required.filter((f) => !(f in body)) : required;
          if (
            held.includes(req.path === CONTACTS ? "contacts:write" : "products:write") ||
            missing.length === 0
          )
            return undefined;
          return {
            status: 400,
            json: {
              error: {
                code: "invalid_request",
                message: "Invalid body",
                details: Object.fromEntries(missing.map((f) => [f, ["is required"]])),
              },
            },
          };
        },
      }),
  },
  {
    id: "sku-unique-across-orgs",
    kind: "benign",
    area: "isolation",
    description:
      "a sku is unique across all organizations (another organization's sku gets 400), spec-gaps #20",
    build: async (env) => {
      const reference = await env.reference();
      return wrap(reference, {
        readBody: true,
        request(req) {
          const org = req.token?.organization;
          if (req.method !== "POST" || req.path !== PRODUCTS || req.body === undefined || org === undefined)
            return undefined;
          const body = parseJson(req.body);
          const sku = isObject(body) ? body.sku : undefined;
          if (typeof sku !== "string" || !req.token?.scopes.includes("products:write")) return undefined;
          const taken = reference.store
            .organizations()
            .some((o) => o.id !== org && reference.store.productBySku(o.id, sku) !== undefined);
          return taken ? errorReply(400, "invalid_request", "sku is already used") : undefined;
        },
      });
    },
  },
  {
    id: "preflight-reflects-request",
    kind: "benign",
    area: "cors",
    description: "pre-flights allow exactly the method and headers asked for (reflected), not the whole list",
    build: (env) =>
      plain(env, {
        response(res, req) {
          if (req.method !== "OPTIONS") return;
          const method = req.headers["access-control-request-method"];
          const headers = req.headers["access-control-request-headers"];
          if (method !== undefined) res.headers["access-control-allow-methods"] = method;
          if (headers !== undefined) res.headers["access-control-allow-headers"] = headers;
        },
      }),
  },
  {
    id: "before-rolling-out-strict-params",
    kind: "benign",
    area: "lists",
    description:
      'before exists on invoices and expenses only so far (§4 "added progressively"), and unknown query parameters get 400',
    build: (env) =>
      plain(env, {
        request(req) {
          if (!isList(req) || req.token === undefined) return undefined;
          const known = (KNOWN_PARAMS[req.path] ?? []).filter(
            (k) => k !== "before" || req.path === INVOICES || req.path === EXPENSES,
          );
          const unknown = [...req.query.keys()].filter((k) => !known.includes(k));
          return unknown.length === 0
            ? undefined
            : {
                status: 400,
                json: {
                  error: {
                    code: "invalid_request",
                    message: "Unknown query parameters",
                    details: Object.fromEntries(unknown.map((k) => [k, ["is not a known parameter"]])),
                  },
                },
              };
        },
      }),
  },
  {
    id: "sequential-ids-per-org",
    kind: "benign",
    area: "formats",
    description:
      'ids are per-organization sequence numbers ("1", "2", …), org_boreal holding 150 archived contacts',
    build: async (env) => {
      const reference = await env.reference();
      archiveContacts(reference, "org_boreal", 150);
      // Numbers are handed out per organization as ids are first served, and read back in paths.
      const numbers = new Map<string, Map<string, string>>();
      const ids = new Map<string, Map<string, string>>();
      const numberOf = (org: string, id: string): string => {
        const byId = numbers.get(org) ?? new Map<string, string>();
        const byNumber = ids.get(org) ?? new Map<string, string>();
        numbers.set(org, byId);
        ids.set(org, byNumber);
        let n = byId.get(id);
        if (n === undefined) {
          n = String(byId.size + 1);
          byId.set(id, n);
          byNumber.set(n, id);
        }
        return n;
      };
      return wrap(reference, {
        request(req) {
          const org = req.token?.organization;
          const byNumber = org === undefined ? undefined : ids.get(org);
          if (byNumber !== undefined) {
            req.path = req.path
              .split("/")
              .map((seg) => byNumber.get(seg) ?? seg)
              .join("/");
          }
          return undefined;
        },
        response(res, req) {
          const org = req.token?.organization;
          const body = jsonOf(res);
          if (org === undefined || !isObject(body) || !("data" in body)) return;
          const data = mapObjects(body.data, (o) =>
            typeof o.id === "string" ? { ...o, id: numberOf(org, o.id) } : o,
          );
          setJson(res, { data });
        },
      });
    },
  },
];

export const VARIANTS: readonly Variant[] = [...violations, ...benign];
export const VIOLATIONS: readonly Variant[] = violations;
export const BENIGN: readonly Variant[] = benign;

// ---- running a variant -----------------------------------------------------------------------------------

export interface StartedVariant {
  baseUrl: string;
  manifest: TokenManifest;
  close(): Promise<void>;
}

/** Serves a handler on 127.0.0.1, an ephemeral port. */
export async function serve(handler: Handler, manifest: TokenManifest): Promise<StartedVariant> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    manifest,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // fetch keeps connections alive; close() alone would wait for them to time out.
        server.closeAllConnections();
      }),
  };
}

/** Builds the variant on fresh references and serves it. */
export async function startVariant(variant: Pick<Variant, "build">): Promise<StartedVariant> {
  let manifest: TokenManifest | undefined;
  const env: VariantEnv = {
    rateLimit: RATE_LIMIT,
    windowMs: WINDOW_MS,
    async reference(settings = {}) {
      const reference = await createReference({
        rateLimit: { limit: settings.rateLimit ?? RATE_LIMIT, windowMs: WINDOW_MS },
        log: () => {},
      });
      manifest ??= reference.manifest;
      return reference;
    },
  };
  const handler = await variant.build(env);
  if (manifest === undefined) throw new Error("the variant built no reference");
  return serve(handler, manifest);
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
}

/** Runs the whole kit against the variant (the spec profile unless told otherwise). */
export async function runVariant(variant: Variant, settings: RunSettings = {}): Promise<VariantRun> {
  const started = performance.now();
  const target = await startVariant(variant);
  try {
    const report = await runConformance({
      baseUrl: target.baseUrl,
      manifest: target.manifest,
      profile: settings.profile ?? "spec",
      strict: settings.strict ?? variant.strict ?? false,
      slow: settings.slow ?? variant.slow ?? false,
      rateLimit: RATE_LIMIT,
      rateWindowMs: WINDOW_MS,
      seed: SEED,
      numRuns: NUM_RUNS,
      ...(settings.grep === undefined ? {} : { grep: settings.grep }),
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

/** The reference as it is, through the same harness: the kit must pass it in both profiles. */
export const REFERENCE_AS_IS: Variant = {
  id: "reference",
  kind: "benign",
  area: "envelope",
  description: "the reference, unwrapped",
  build: async (env) => (await env.reference()).app,
};

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
