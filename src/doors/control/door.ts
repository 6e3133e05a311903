import { createHash, timingSafeEqual } from "node:crypto";
import express, { type Request, type RequestHandler, type Router } from "express";
import { errorHandler } from "../../http/errors.js";
import { localOnly, type LocalOnlyOptions } from "../../http/local-only.js";
import { ApiError } from "../../model/errors.js";
import type { Sandboxes } from "../../store/sandboxes.js";
import type { ReferenceState } from "../../store/state.js";
import { OPERATIONS } from "./runs.js";
import { SANDBOX_OPERATIONS, SandboxesFull, sandboxOf, sandboxView } from "./sandbox-runs.js";
import type { ControlOperation } from "./operations.js";
import type { ControlDescription } from "./wire.js";

export interface ControlDoorOptions extends LocalOnlyOptions {
  /** What `Authorization: Bearer <key>` must carry. */
  key: string;
  log: (line: string) => void;
}

const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();

/** Every control call carries the key printed in the banner; compared in constant time. */
function requireKey(key: string): RequestHandler {
  const expected = digest(`Bearer ${key}`);
  return (req, res, next) => {
    const given = req.headers.authorization;
    if (given === undefined || !timingSafeEqual(digest(given), expected)) {
      res.setHeader("WWW-Authenticate", 'Bearer realm="control"');
      next(new ApiError("unauthorized", "The control surface needs Authorization: Bearer <control key>"));
      return;
    }
    next();
  };
}

/** A body, when there is one, is JSON. */
const jsonOnly: RequestHandler = (req, _res, next) => {
  const hasBody =
    req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"] ?? 0) > 0;
  if (hasBody && !req.is("application/json")) {
    next(new ApiError("invalid_request", "Content-Type must be application/json"));
    return;
  }
  next();
};

/** The body of an operation, read up to its own limit (16 KiB but for `POST /records`). */
const bodyOf = (operation: ControlOperation): RequestHandler =>
  express.json({ limit: operation.bodyLimitBytes ?? 16 * 1024, strict: true });

const VERB = { GET: "get", POST: "post", PUT: "put", DELETE: "delete" } as const;

/** An operation's input as its source says: the body (an empty one is an empty object), the query, the path. */
function inputOf(req: Request, source: "body" | "query" | "params" | "none"): unknown {
  // express.json leaves `req.body` undefined without a body.
  const body: unknown = req.body;
  if (source === "body") return body ?? {};
  if (source === "query") return req.query;
  if (source === "params") return { id: req.params.id };
  return undefined;
}

/**
 * The operations on one state, on `router`: the default state's under /__control, and the same
 * table again under /__control/sandboxes/{id} for that sandbox's (`stateOf` finds it, or 404s).
 * `describe` says which state it is.
 */
function mountStateOperations(
  router: Router,
  stateOf: (req: Request) => ReferenceState,
  describe: (req: Request) => ControlDescription,
): void {
  for (const [id, bound] of Object.entries(OPERATIONS)) {
    const operation: ControlOperation = bound.operation;
    router[VERB[operation.method]](operation.path, bodyOf(operation), async (req, res) => {
      if (id === "describe") {
        res.json(describe(req));
        return;
      }
      const state = stateOf(req);
      const answer: unknown = await bound.run(state, inputOf(req, bound.source));
      if (operation.changes === true) await state.durable();
      res.status(operation.status ?? 200).json(answer);
    });
  }
}

/**
 * The control surface over HTTP, under /__control: the operations of its table, JSON in and out, the
 * error envelope of the API, and no CORS headers: the developer's tools call it, never a web page.
 * The key guards everything, a sandbox's operations included: its id alone opens nothing.
 */
export function controlDoor(
  state: ReferenceState,
  sandboxes: Sandboxes,
  options: ControlDoorOptions,
): Router {
  const door = express.Router({ strict: true, caseSensitive: true });
  door.use(localOnly(options), requireKey(options.key), jsonOnly);
  for (const bound of Object.values(SANDBOX_OPERATIONS)) {
    const operation: ControlOperation = bound.operation;
    door[VERB[operation.method]](operation.path, bodyOf(operation), (req, res) => {
      try {
        res.status(operation.status ?? 200).json(bound.run(sandboxes, inputOf(req, bound.source)));
      } catch (err) {
        if (err instanceof SandboxesFull) res.setHeader("Retry-After", String(err.retryAfterSeconds));
        throw err;
      }
    });
  }
  const sandbox = express.Router({ strict: true, caseSensitive: true, mergeParams: true });
  const sandboxFor = (req: Request) => {
    const id = req.params.sandbox;
    return sandboxOf(sandboxes, typeof id === "string" ? id : "");
  };
  mountStateOperations(
    sandbox,
    (req) => sandboxFor(req).state,
    (req) => {
      const found = sandboxFor(req);
      return { ...OPERATIONS.describe.run(found.state), sandbox: sandboxView(sandboxes, found) };
    },
  );
  door.use("/sandboxes/:sandbox", sandbox);
  mountStateOperations(
    door,
    () => state,
    () => OPERATIONS.describe.run(state),
  );
  door.use((req, _res, next) => {
    next(
      new ApiError(
        "not_found",
        `No control operation ${req.method} ${req.baseUrl}${req.path}; GET /__control/ lists them`,
      ),
    );
  });
  door.use(errorHandler(options.log));
  return door;
}
