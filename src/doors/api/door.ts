import express, { type Request, type RequestHandler, type Router } from "express";
import { bearerToken } from "../../auth/authenticate.js";
import { headerCount } from "../../http/headers.js";
import { corsMiddleware } from "../../http/cors.js";
import { errorHandler, notFound } from "../../http/errors.js";
import type { IdGenerator } from "../../store/ids.js";
import type { Sandboxes } from "../../store/sandboxes.js";
import type { ReferenceState } from "../../store/state.js";
import { authenticate, identify } from "./auth.js";
import { openContext } from "./context.js";
import { addLatency, injectFaults, journalRequests } from "./hooks.js";
import { rateLimitStep } from "./rate-limit.js";
import { buildRouter } from "./router.js";

export interface ApiDoorOptions {
  /** The cap on a request body (spec-gaps #15). */
  bodyLimitBytes: number;
  log: (line: string) => void;
  /** Ids of created records (tests fix them); random by default. */
  ids?: IdGenerator | undefined;
  /** The sandboxes whose tokens the door answers from their own state. */
  sandboxes?: Sandboxes | undefined;
}

/**
 * The state a request is answered from: the sandbox whose token its one `Authorization` header
 * presents, or the default state for anything else (no token, an unknown or malformed one, two
 * headers), which then refuses it as it always has.
 */
function stateOf(state: ReferenceState, sandboxes: Sandboxes | undefined): (req: Request) => ReferenceState {
  if (sandboxes === undefined) return () => state;
  return (req) => {
    if (sandboxes.size === 0 || headerCount(req, "authorization") > 1) return state;
    const token = bearerToken(req.headers.authorization);
    return (token === undefined ? undefined : sandboxes.stateForToken(token)) ?? state;
  };
}

/** HEAD has no endpoint in §4; Express would otherwise answer it from the GET route. */
const rejectHead: RequestHandler = (req, res, next) =>
  req.method === "HEAD" ? notFound(req, res, next) : next();

/**
 * The API door: the pipeline of §4, §5, §7 and §8 over the reference state. It answers every path
 * the other doors leave, so that a mistyped path still gets the API's CORS headers and envelope.
 */
export function apiDoor(state: ReferenceState, options: ApiDoorOptions): Router {
  const api = express.Router({ strict: true, caseSensitive: true });
  // First, which state answers: every later step (the journal, the latency, the rate limit, faults,
  // the token, the routes) reads it from the context.
  api.use(openContext(stateOf(state, options.sandboxes)));
  // The journal first, so that it sees every request, pre-flights and refusals included.
  api.use(journalRequests());
  api.use(addLatency());
  // The pipeline, in the precedence of spec-gaps #26: CORS, then the rate limit (counted before
  // anything can fail), the token (401), the plan (403), then per route scope, input and handler.
  // Faults come once the token is known (they may aim at one) and the request counted, so that an
  // injected answer carries the rate-limit headers every API answer has.
  api.use(corsMiddleware());
  api.use(identify);
  api.use(rateLimitStep());
  api.use(injectFaults);
  api.use(authenticate);
  api.use(rejectHead);
  api.use(buildRouter(options.bodyLimitBytes, options.ids));
  api.use(notFound);
  api.use(errorHandler(options.log));
  return api;
}
