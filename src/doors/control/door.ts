import { createHash, timingSafeEqual } from "node:crypto";
import express, { type Request, type RequestHandler, type Router } from "express";
import { errorHandler } from "../../http/errors.js";
import { localOnly, type LocalOnlyOptions } from "../../http/local-only.js";
import { ApiError } from "../../model/errors.js";
import type { Sandboxes } from "../../store/sandboxes.js";
import type { ReferenceState } from "../../store/state.js";
import { SandboxesFull, sandboxOf } from "./sandbox-access.js";
import { CONTROL_TABLE, type ControlOperation, type ControlScope, type InputSource } from "./table.js";
import { SANDBOX_BASE } from "./views.js";

export { CONTROL_BASE } from "./views.js";

export interface ControlDoorOptions extends LocalOnlyOptions {
  /** What `Authorization: Bearer <key>` must carry. */
  key: string;
  log: (line: string) => void;
}

const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();

/**
 * Every control call carries the key printed in the banner; compared in constant time. A key that is
 * not this one is told apart from none: under Playwright's `reuseExistingServer`, a reference left
 * running from another run answers with another key, and "missing" would send the user looking in
 * the wrong place.
 */
function requireKey(key: string): RequestHandler {
  const expected = digest(`Bearer ${key}`);
  return (req, res, next) => {
    const given = req.headers.authorization;
    if (given === undefined || !timingSafeEqual(digest(given), expected)) {
      res.setHeader("WWW-Authenticate", 'Bearer realm="control"');
      next(new ApiError("unauthorized", keyRefusal(given)));
      return;
    }
    next();
  };
}

function keyRefusal(given: string | undefined): string {
  if (given === undefined || !/^Bearer\s+\S/i.test(given)) {
    return "The control surface needs Authorization: Bearer <control key> (the key the banner prints, or --control-key)";
  }
  return (
    "The control key does not match the one this reference was started with (--control-key, " +
    "REFERENCE_CONTROL_KEY): is this the server you started? One left running from an earlier run " +
    "(Playwright's reuseExistingServer) has its own key"
  );
}

/** A body, when there is one, is JSON. */
const jsonOnly: RequestHandler = (req, _res, next) => {
  const hasBody =
    req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"] ?? 0) > 0;
  if (hasBody && !req.is("application/json")) {
    next(new ApiError("invalidRequest", "Content-Type must be application/json"));
    return;
  }
  next();
};

/** The body of an operation, read up to its own limit (16 KiB but for `POST /records`). */
const bodyOf = (operation: ControlOperation): RequestHandler =>
  express.json({ limit: operation.bodyLimitBytes, strict: true });

const VERB = { GET: "get", POST: "post", PUT: "put", DELETE: "delete" } as const;

/** An operation's input as its row says: the body (an empty one is an empty object), the query, the id. */
function inputOf(req: Request, source: InputSource): unknown {
  // express.json leaves `req.body` undefined without a body.
  const body: unknown = req.body;
  if (source === "body") return body ?? {};
  if (source === "query") return req.query;
  if (source === "id") return { id: req.params.id };
  return undefined;
}

/** Mounts the rows acting `on` one kind of target on `router`, each on the scope `scopeOf` finds. */
function mount(router: Router, on: ControlOperation["on"], scopeOf: (req: Request) => ControlScope): void {
  for (const operation of Object.values(CONTROL_TABLE) as ControlOperation[]) {
    if (operation.on !== on) continue;
    router[VERB[operation.method]](operation.path, bodyOf(operation), async (req, res) => {
      const scope = scopeOf(req);
      let answer: unknown;
      try {
        answer = await operation.run(scope, inputOf(req, operation.source));
      } catch (err) {
        if (err instanceof SandboxesFull) res.setHeader("Retry-After", String(err.retryAfterSeconds));
        throw err;
      }
      if (operation.changes) await scope.state.durable();
      res.status(operation.status).json(answer);
    });
  }
}

/**
 * The control surface over HTTP, under /__control: the rows of its table, JSON in and out, the error
 * envelope of the API, and no CORS headers: the developer's tools call it, never a web page. The
 * operations on one state are mounted twice: under /__control for the default state, under
 * /__control/sandboxes/{id} for that sandbox's (404 when there is none). The key guards everything, a
 * sandbox's operations included: its id alone opens nothing.
 */
export function controlDoor(
  state: ReferenceState,
  sandboxes: Sandboxes,
  options: ControlDoorOptions,
): Router {
  const door = express.Router({ strict: true, caseSensitive: true });
  door.use(localOnly(options), requireKey(options.key), jsonOnly);
  const main: ControlScope = { state, sandboxes, sandbox: undefined };
  mount(door, "sandboxes", () => main);
  const sandbox = express.Router({ strict: true, caseSensitive: true, mergeParams: true });
  mount(sandbox, "state", (req) => {
    const id = req.params.sandbox;
    const found = sandboxOf(sandboxes, typeof id === "string" ? id : "");
    return { state: found.state, sandboxes, sandbox: found };
  });
  door.use(SANDBOX_BASE.replace(":id", ":sandbox"), sandbox);
  mount(door, "state", () => main);
  door.use((req, _res, next) => {
    next(
      new ApiError(
        "notFound",
        `No control operation ${req.method} ${req.baseUrl}${req.path}; GET /__control/ lists them`,
      ),
    );
  });
  door.use(errorHandler(options.log));
  return door;
}
