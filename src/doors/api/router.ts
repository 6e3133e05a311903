import express, { type Router } from "express";
import { ApiError } from "../../model/errors.js";
import { TABLE_ROWS } from "../../routes/table.js";
import { JSON_CONTENT_TYPE } from "../../serialization/envelope.js";
import type { IdGenerator } from "../../store/ids.js";
import { principalOf, requireScope } from "./auth.js";
import { jsonBody } from "./body.js";
import { apiContext } from "./context.js";
import { accountingOf, BOUND } from "./handlers.js";

/**
 * The routes of §4's table, each a pipeline in the order of spec-gaps #26 after authentication:
 * scope (403), then the body and query (400), then the operation. A write is answered only once it
 * is kept (`--data`: once its change is on disk). Announced endpoints answer 404 saying so.
 */
export function buildRouter(bodyLimitBytes: number, ids?: IdGenerator): Router {
  const accounting = accountingOf(ids);
  // Exact paths only: no trailing slash, no other case (spec-gaps #34).
  const router = express.Router({ strict: true, caseSensitive: true });
  for (const bound of Object.values(BOUND)) {
    const { endpoint } = bound;
    const readBody = endpoint.method === "post" ? jsonBody(bodyLimitBytes) : [];
    router[endpoint.method](endpoint.path, requireScope(endpoint.scope), ...readBody, async (req, res) => {
      const { state, json } = apiContext(res);
      const body = bound.answer(
        { query: req.query, body: json, principal: principalOf(res) },
        accounting(state),
      );
      if (endpoint.method === "post") await state.durable();
      res.statusCode = endpoint.status;
      res.setHeader("Content-Type", JSON_CONTENT_TYPE);
      res.setHeader("Content-Length", body.length);
      res.end(body);
    });
  }
  for (const { row } of TABLE_ROWS) {
    if (row.announced !== true) continue;
    router[row.method](row.path, (_req, _res, next) => {
      next(
        new ApiError(
          "not_found",
          `${row.what} (${row.method.toUpperCase()} ${row.path}) is announced but not yet available`,
        ),
      );
    });
  }
  return router;
}
