import { createHash, timingSafeEqual } from "node:crypto";
import express, { type RequestHandler, type Router } from "express";
import { errorHandler } from "../../http/errors.js";
import { localOnly, type LocalOnlyOptions } from "../../http/local-only.js";
import { ApiError } from "../../model/errors.js";
import type { ReferenceState } from "../../store/state.js";
import { OPERATIONS } from "./control.js";

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

/** A body, when there is one, is JSON; an empty body is an empty object. */
function jsonOnly(): RequestHandler[] {
  const mediaType: RequestHandler = (req, _res, next) => {
    const hasBody =
      req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"] ?? 0) > 0;
    if (hasBody && !req.is("application/json")) {
      next(new ApiError("invalid_request", "Content-Type must be application/json"));
      return;
    }
    next();
  };
  return [mediaType, express.json({ limit: "16kb", strict: true })];
}

const VERB = { GET: "get", POST: "post", PUT: "put", DELETE: "delete" } as const;

/**
 * The control surface over HTTP, under /__control: the operations of its table, JSON in and out, the
 * error envelope of the API, and no CORS headers: the developer's tools call it, never a web page.
 */
export function controlDoor(state: ReferenceState, options: ControlDoorOptions): Router {
  const door = express.Router({ strict: true, caseSensitive: true });
  door.use(localOnly(options), requireKey(options.key), ...jsonOnly());
  for (const { operation, source, run } of Object.values(OPERATIONS)) {
    door[VERB[operation.method]](operation.path, async (req, res) => {
      // An empty body is an empty object (express.json leaves `req.body` undefined without one).
      const body: unknown = req.body;
      const input =
        source === "query"
          ? req.query
          : source === "body"
            ? (body ?? {})
            : source === "params"
              ? { ...req.params }
              : undefined;
      const answer: unknown = await run(state, input);
      if (operation.changes === true) await state.durable();
      res.status(operation.status ?? 200).json(answer);
    });
  }
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
