import express, { type RequestHandler, type Router } from "express";
import { authenticate, identify } from "./auth.js";
import type { Latency } from "../control/control.js";
import { addLatency, injectFaults, journalRequests } from "./hooks.js";
import { Accounting } from "../../domain/accounting.js";
import type { IdGenerator } from "../../store/ids.js";
import type { ReferenceState } from "../../store/state.js";
import { corsMiddleware } from "../../http/cors.js";
import { errorHandler, notFound } from "../../http/errors.js";
import { rateLimitMiddleware } from "./rate-limit.js";
import { buildRouter } from "./router.js";
import { buildRoutes } from "../../routes/table.js";

export interface ApiDoorOptions {
  ids: IdGenerator;
  bodyLimitBytes: number;
  latency: Latency | null;
  log: (line: string) => void;
}

/** HEAD has no endpoint in §4; Express would otherwise answer it from the GET route. */
const rejectHead: RequestHandler = (req, res, next) =>
  req.method === "HEAD" ? notFound(req, res, next) : next();

/**
 * The API door: the pipeline of §4, §5, §7 and §8 over the reference state. It answers every path
 * the other doors leave, so that a mistyped path still gets the API's CORS headers and envelope.
 */
export function apiDoor(state: ReferenceState, options: ApiDoorOptions): Router {
  const accounting = new Accounting({ store: state.store, clock: state.clock, ids: options.ids });
  const api = express.Router({ strict: true, caseSensitive: true });

  // The journal first, so that it sees every request, pre-flights and refusals included.
  api.use(journalRequests(state));
  if (options.latency !== null) api.use(addLatency(options.latency));
  // The pipeline, in the precedence of spec-gaps #26: CORS, then the rate limit (counted before
  // anything can fail), the token (401), the plan (403), then per route scope, input and handler.
  // Faults come once the token is known (they may aim at one) and the request counted, so that an
  // injected answer carries the rate-limit headers every API answer has.
  api.use(corsMiddleware());
  api.use(identify(state.tokens));
  api.use(...rateLimitMiddleware(state.rateLimits, state.clock));
  api.use(injectFaults(state));
  api.use(authenticate(state.store));
  api.use(rejectHead);
  api.use(buildRouter(buildRoutes(accounting), options.bodyLimitBytes, () => state.durable()));
  api.use(notFound);
  api.use(errorHandler(options.log));
  return api;
}
