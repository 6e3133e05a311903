import express, { type Express, type RequestHandler } from "express";
import { authenticate, identify } from "./auth/authenticate.js";
import type { TokenRegistry } from "./auth/tokens.js";
import { systemClock, type Clock } from "./clock.js";
import { Accounting } from "./domain/accounting.js";
import { randomIds, type IdGenerator } from "./domain/ids.js";
import { corsMiddleware } from "./routing/cors.js";
import { errorHandler, notFound } from "./routing/errors.js";
import { parseQuery } from "./routing/query.js";
import { rateLimitMiddleware, type RateLimitOptions } from "./routing/rate-limit.js";
import { buildRouter } from "./routing/router.js";
import { buildRoutes } from "./routing/routes.js";
import type { Store } from "./store/store.js";

export interface AppOptions {
  store: Store;
  tokens: TokenRegistry;
  clock?: Clock;
  ids?: IdGenerator;
  /** §8: 100 requests a minute. */
  rateLimit?: RateLimitOptions;
  /** The cap on a request body (spec-gaps #15). */
  bodyLimitBytes?: number;
  /** Where internal errors are told; the client only ever sees a generic 500. */
  log?: (line: string) => void;
}

export const DEFAULT_RATE_LIMIT: RateLimitOptions = { limit: 100, windowMs: 60_000 };
export const DEFAULT_BODY_LIMIT_BYTES = 100 * 1024;

/** HEAD has no endpoint in §4; Express would otherwise answer it from the GET route. */
const rejectHead: RequestHandler = (req, res, next) =>
  req.method === "HEAD" ? notFound(req, res, next) : next();

/** Builds the API. No listening, flags or signals here: those belong to the entry file. */
export function createApp(options: AppOptions): Express {
  const clock = options.clock ?? systemClock;
  const accounting = new Accounting({ store: options.store, clock, ids: options.ids ?? randomIds });
  const routes = buildRoutes(accounting);

  const app = express();
  app.disable("x-powered-by");
  // No ETags and no conditional requests: a 304 is an answer §4 does not list. `fresh` is redefined
  // on this app's own request prototype, so no other Express app in the process is touched.
  app.set("etag", false);
  Object.defineProperty(app.request, "fresh", { configurable: true, get: () => false });
  app.set("query parser", parseQuery);
  app.set("strict routing", true);
  app.set("case sensitive routing", true);

  // The pipeline, in the precedence of spec-gaps #26: CORS, then the rate limit (counted before
  // anything can fail), the token (401), the plan (403), then per route scope, input and handler.
  app.use(corsMiddleware());
  app.use(identify(options.tokens));
  app.use(...rateLimitMiddleware(options.rateLimit ?? DEFAULT_RATE_LIMIT, clock));
  app.use(authenticate(options.store));
  app.use(rejectHead);
  app.use(buildRouter(routes, options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES));
  app.use(notFound);
  app.use(errorHandler(options.log ?? ((line) => console.error(line))));
  return app;
}
