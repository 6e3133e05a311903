import { createHash, timingSafeEqual } from "node:crypto";
import express, { type RequestHandler, type Router } from "express";
import { ApiError } from "../../model/errors.js";
import { errorHandler } from "../../http/errors.js";
import { localOnly, type LocalOnlyOptions } from "../../http/local-only.js";
import { validate } from "../../validation/validate.js";
import type { Control } from "./control.js";
import { JournalQuery, type ClockInput, type FaultInput, type ResetInput } from "./schemas.js";

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

/**
 * The body as the client sent it; `Control` validates it with the surface's schemas, once. The cast
 * only names the type those schemas check for.
 */
const bodyOf = <T>(body: unknown): T => (body ?? {}) as T;

/**
 * The control surface over HTTP, under /__control. JSON in and out, the error envelope of the API,
 * and no CORS headers: the developer's tools call it, never a web page.
 */
export function controlDoor(control: Control, options: ControlDoorOptions): Router {
  const door = express.Router({ strict: true, caseSensitive: true });
  door.use(localOnly(options), requireKey(options.key), ...jsonOnly());
  door.get("/", (_req, res) => {
    res.json(control.describe());
  });
  // Changes of the state are answered once kept (`--data`): a reset is a snapshot, a clock move a record.
  door.post("/reset", async (req, res) => {
    const view = control.reset(bodyOf<ResetInput>(req.body));
    await control.durable();
    res.json(view);
  });
  door.get("/clock", (_req, res) => {
    res.json(control.clock());
  });
  door.put("/clock", async (req, res) => {
    const view = control.setClock(bodyOf<ClockInput>(req.body));
    await control.durable();
    res.json(view);
  });
  door.delete("/clock", async (_req, res) => {
    const view = control.restoreClock();
    await control.durable();
    res.json(view);
  });
  door.get("/faults", (_req, res) => {
    res.json(control.faults());
  });
  door.post("/faults", (req, res) => {
    res.status(201).json(control.addFault(bodyOf<FaultInput>(req.body)));
  });
  door.delete("/faults", (_req, res) => {
    res.json(control.clearFaults());
  });
  door.get("/journal", (req, res) => {
    res.json(control.journal(validate(JournalQuery, req.query, "query")));
  });
  door.delete("/journal", (_req, res) => {
    res.json(control.clearJournal());
  });
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
