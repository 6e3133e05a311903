import express, { type Router } from "express";
import { requireScope } from "./auth.js";
import { ApiError } from "../../model/errors.js";
import { sendData } from "../../serialization/envelope.js";
import { validate } from "../../validation/validate.js";
import { jsonBody } from "./body.js";
import { ANNOUNCED, type Route } from "../../routes/table.js";

/**
 * Each route's pipeline, in the order of spec-gaps #26 after authentication: scope (403), then the
 * body and query (400), then the handler. Handlers receive parsed values and never re-parse.
 * A write is answered only once `durable` resolves (with `--data`, once its change is on disk).
 */
export function buildRouter(
  routes: readonly Route[],
  bodyLimitBytes: number,
  durable: () => Promise<void> = () => Promise.resolve(),
): Router {
  // Exact paths only: no trailing slash, no other case (spec-gaps #34).
  const router = express.Router({ strict: true, caseSensitive: true });
  for (const r of routes) {
    const readBody = r.body === undefined ? [] : jsonBody(bodyLimitBytes);
    router[r.method](r.path, requireScope(r.scope), ...readBody, async (req, res) => {
      const auth = res.locals.auth;
      if (auth === undefined) throw new Error("route reached without authentication");
      const query = r.query === undefined ? undefined : validate(r.query, req.query, "query");
      const body = r.body === undefined ? undefined : validate(r.body, res.locals.json, "body");
      const data = r.handle({ query, body, auth });
      if (r.method !== "get") await durable();
      sendData(res, r.status, data);
    });
  }
  for (const a of ANNOUNCED) {
    router[a.method](a.path, (_req, _res, next) => {
      next(
        new ApiError(
          "not_found",
          `${a.what} (${a.method.toUpperCase()} ${a.path}) is announced but not yet available`,
        ),
      );
    });
  }
  return router;
}
