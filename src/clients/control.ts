import type { ArgsOf, RemoteStateMethods, ResultOf, SandboxOperationId } from "../doors/control/table.js";
import type { SandboxCreatedView } from "../doors/control/wire.js";
import { CONTROL_BASE, ROUTES, SANDBOX_BASE, SHORTHANDS, type Route } from "./control-routes.js";

/**
 * `accounting-api-reference/control`: a typed client of the control surface, for test runners
 * (Playwright, Cypress, vitest) and scripts:
 *
 *   const control = new ControlClient({ baseUrl: "http://127.0.0.1:4010", key: process.env.CONTROL_KEY! });
 *   await control.reset();
 *   const sandbox = await control.createSandbox(); // a world of one's own: sandbox.tokens["lumiere-full"]
 *
 * Its methods are the control table's rows (src/doors/control/table.ts), under the names
 * `reference.control` has in process; their types come from the table, type-only, and their routes
 * from the generated control-routes.ts: it carries no server code into a test runner or a browser.
 */

export interface ControlClientOptions {
  /** The server's base URL, as the banner prints it. */
  baseUrl: string;
  /** The control key the banner prints (or `--control-key`). */
  key: string;
  fetch?: typeof fetch;
}

/** Each operation's input, by the name of its method. */
export type ResetRequest = NonNullable<ArgsOf<"reset">[0]>;
export type ClockRequest = ArgsOf<"setClock">[0];
export type FaultRequest = ArgsOf<"addFault">[0];
export type JournalRequest = NonNullable<ArgsOf<"journal">[0]>;
export type WaitRequest = NonNullable<ArgsOf<"waitForRequest">[0]>;
export type LatencyRequest = ArgsOf<"setLatency">[0];
export type SandboxRequest = NonNullable<ArgsOf<"createSandbox">[0]>;
/** Records in the fixtures' format (docs/server.md, "Fixtures"); `id`, `createdAt` and `updatedAt` may be left out. */
export type RecordsRequest = NonNullable<ArgsOf<"addRecords">[0]>;
export type ContactRecordInput = NonNullable<RecordsRequest["contacts"]>[number];
export type ProductRecordInput = NonNullable<RecordsRequest["products"]>[number];
export type AccountRecordInput = NonNullable<RecordsRequest["accounts"]>[number];
export type InvoiceRecordInput = NonNullable<RecordsRequest["invoices"]>[number];
export type ExpenseRecordInput = NonNullable<RecordsRequest["expenses"]>[number];

/** A refusal of the control surface, in the API's error envelope. */
export class ControlError extends Error {
  override readonly name = "ControlError";
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, string[]>,
  ) {
    super(message);
  }
}

/** No answer at all: nothing listens at the base URL, or the connection failed (`cause` says how). */
export class ReferenceUnreachableError extends Error {
  override readonly name = "ReferenceUnreachableError";
  constructor(
    readonly baseUrl: string,
    cause: unknown,
  ) {
    super(`could not reach the reference at ${baseUrl}: is it running? (${causeText(cause)})`, { cause });
  }
}

/** What `fetch`'s network error says happened: `connect ECONNREFUSED 127.0.0.1:4010`, say. */
function causeText(err: unknown): string {
  const cause: unknown = err instanceof Error && err.cause !== undefined ? err.cause : err;
  const text = (e: unknown): string => {
    if (!(e instanceof Error)) return String(e);
    const code = (e as { code?: unknown }).code;
    return e.message !== "" ? e.message : typeof code === "string" ? code : e.name;
  };
  if (cause instanceof AggregateError && cause.errors.length > 0) return cause.errors.map(text).join("; ");
  return text(cause);
}

/** The API's error envelope, as far as an answer has one. */
interface Envelope {
  error?: { code?: string; message?: string; details?: Record<string, string[]> };
}

/** Puts a method named `name` on `prototype`. */
function install(prototype: object, name: string, method: (...args: never[]) => unknown): void {
  Object.defineProperty(method, "name", { value: name });
  Object.defineProperty(prototype, name, { value: method, writable: true, configurable: true });
}

// The methods are declared by the interface, from the control table's types, and put on the
// prototype by the static block, from its routes: no method is written here.
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type
export interface StateClient extends RemoteStateMethods {}

/** The operations on one state: the default one (`ControlClient`) or a sandbox's (`SandboxClient`). */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export abstract class StateClient {
  readonly #baseUrl: string;
  readonly #base: string;
  readonly #key: string;
  readonly #fetch: typeof fetch;

  protected constructor(options: ControlClientOptions, under = "") {
    if (!URL.canParse(options.baseUrl)) {
      throw new TypeError(
        `ControlClient: baseUrl must be an absolute URL, e.g. http://127.0.0.1:4010, not ${JSON.stringify(options.baseUrl)}`,
      );
    }
    this.#baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.#base = `${this.#baseUrl}${CONTROL_BASE}${under}`;
    this.#key = options.key;
    this.#fetch = options.fetch ?? fetch;
  }

  static {
    for (const [name, route] of Object.entries(ROUTES)) {
      if (route.on !== "state") continue;
      install(this.prototype, name, function (this: StateClient, ...args: unknown[]) {
        return this.call(route, args);
      });
    }
    for (const [name, { of, field }] of Object.entries(SHORTHANDS)) {
      install(this.prototype, name, function (this: StateClient, value: unknown) {
        return this.call(ROUTES[of], [{ [field]: value }]);
      });
    }
  }

  /** Sends a route's request with the method's arguments; its JSON answer, or a `ControlError`. */
  protected async call(route: Route, args: unknown[]): Promise<unknown> {
    const [arg] = args;
    const path =
      route.source === "id" ? route.path.replace(":id", encodeURIComponent(String(arg))) : route.path;
    const query = new URLSearchParams();
    if (route.source === "query" && typeof arg === "object" && arg !== null) {
      for (const [k, v] of Object.entries(arg)) if (v !== undefined) query.set(k, String(v));
    }
    const search = query.size === 0 ? "" : `?${query.toString()}`;
    const body = route.source === "body" ? JSON.stringify(arg ?? {}) : undefined;
    let res: Response;
    try {
      res = await this.#fetch(`${this.#base}${path}${search}`, {
        method: route.method,
        headers: {
          Authorization: `Bearer ${this.#key}`,
          ...(body === undefined ? {} : { "Content-Type": "application/json" }),
        },
        ...(body === undefined ? {} : { body }),
      });
    } catch (err) {
      // fetch's network error; an abort (the caller's signal, a timeout) stays what it is.
      if (err instanceof TypeError) throw new ReferenceUnreachableError(this.#baseUrl, err);
      throw err;
    }
    const parsed: unknown = await res.json().catch(() => undefined);
    const error = typeof parsed === "object" && parsed !== null ? (parsed as Envelope).error : undefined;
    if (!res.ok || parsed === undefined) {
      const what = `${route.method} ${CONTROL_BASE}${path}`;
      throw new ControlError(
        res.status,
        error?.code ?? "unknown",
        error?.message ??
          `${what}: ${res.status} ${res.headers.get("content-type") ?? "(no content type)"} rather than the control surface's JSON; is ${this.#baseUrl} the reference?`,
        error?.details,
      );
    }
    return parsed;
  }
}

/** The operations that manage sandboxes, over HTTP: a sandbox comes as a `SandboxClient`. */
export type RemoteSandboxMethods = {
  [K in SandboxOperationId]: (
    ...args: ArgsOf<K>
  ) => Promise<ResultOf<K> extends SandboxCreatedView ? SandboxClient : ResultOf<K>>;
};

/** The control surface of the server: the default state's operations, and the sandboxes. */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type
export interface ControlClient extends RemoteSandboxMethods {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class ControlClient extends StateClient {
  readonly #options: ControlClientOptions;

  constructor(options: ControlClientOptions) {
    super(options);
    this.#options = options;
  }

  static {
    for (const [name, route] of Object.entries(ROUTES)) {
      if (route.on !== "sandboxes") continue;
      install(this.prototype, name, async function (this: ControlClient, ...args: unknown[]) {
        const answer = await this.call(route, args);
        // A new sandbox: its own copy of the fixtures (new ids), new tokens, its own clock, faults,
        // journal and rate-limit counters, reached by the API through its tokens only.
        return name === "createSandbox"
          ? new SandboxClient(this.#options, answer as SandboxCreatedView)
          : answer;
      });
    }
  }
}

/** One sandbox: the same operations as the server's, on it alone, with its tokens. */
export class SandboxClient extends StateClient {
  readonly id: string;
  /** Its fixture tokens in clear, in the format of fixtures/tokens.json. */
  readonly manifest: SandboxCreatedView["manifest"];
  /** Each fixture token's clear value, by label: `tokens["lumiere-full"]`. */
  readonly tokens: Readonly<Record<string, string>>;
  /** Fixture organization id → the sandbox's id for it. */
  readonly organizations: Readonly<Record<string, string>>;
  readonly #options: ControlClientOptions;

  constructor(options: ControlClientOptions, created: SandboxCreatedView) {
    super(options, SANDBOX_BASE.replace(":id", encodeURIComponent(created.id)));
    this.#options = options;
    this.id = created.id;
    this.manifest = created.manifest;
    this.tokens = Object.fromEntries(created.manifest.tokens.map((t) => [t.label, t.token]));
    this.organizations = created.organizations;
  }

  /** Ends the sandbox: its tokens are refused (401) at once. */
  delete(): ReturnType<ControlClient["deleteSandbox"]> {
    return new ControlClient(this.#options).deleteSandbox(this.id);
  }
}

export type * from "../doors/control/wire.js";
