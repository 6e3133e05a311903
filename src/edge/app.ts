import express, { type Express } from "express";
import { Control, type Latency } from "../doors/control/control.js";
import { controlDoor } from "../doors/control/door.js";
import { randomIds, type IdGenerator } from "../store/ids.js";
import { docsRouter } from "../doors/pages/docs.js";
import { pageGuard } from "../doors/pages/guard.js";
import { pagesDoorOnFirstVisit } from "../doors/pages/on-first-visit.js";
import { apiDoor } from "../doors/api/door.js";
import { errorHandler } from "../http/errors.js";
import { parseQuery } from "../http/query.js";
import type { RateLimitOptions } from "../doors/api/rate-limit.js";
import type { ReferenceState } from "../store/state.js";

export interface AppOptions {
  ids?: IdGenerator;
  /** The cap on a request body (spec-gaps #15). */
  bodyLimitBytes?: number;
  /** Where internal errors are told; the client only ever sees a generic 500. */
  log?: (line: string) => void;
  /** The control surface over HTTP, with the key its callers present; `false` leaves it closed. */
  control?: { key: string } | false;
  /** Host names besides IP literals and localhost that the local-only doors answer to. */
  allowedHosts?: readonly string[];
  /** A random delay before every API answer (`--latency`). */
  latency?: Latency | null;
  /** A test token the docs page fills in for "try it". */
  tryItToken?: string;
}

/** §8: 100 requests a minute. */
export const DEFAULT_RATE_LIMIT: RateLimitOptions = { limit: 100, windowMs: 60_000 };
export const DEFAULT_BODY_LIMIT_BYTES = 100 * 1024;

/**
 * Builds the server over one reference state, with its doors side by side: the control surface under
 * /__control, the web pages (/, /settings/…, /docs, /openapi.json) and the API, which answers every
 * other path. No listening, flags or signals here: those belong to the entry file.
 */
export function createApp(state: ReferenceState, options: AppOptions = {}): Express {
  const log = options.log ?? ((line) => console.error(line));
  const allowedHosts = options.allowedHosts ?? [];
  const control = options.control === undefined ? false : options.control;
  const app = express();
  app.disable("x-powered-by");
  // No ETags and no conditional requests: a 304 is an answer §4 does not list. `fresh` is redefined
  // on this app's own request prototype, so no other Express app in the process is touched.
  app.set("etag", false);
  Object.defineProperty(app.request, "fresh", { configurable: true, get: () => false });
  app.set("query parser", parseQuery);
  app.set("strict routing", true);
  app.set("case sensitive routing", true);

  if (control !== false) {
    app.use(
      "/__control",
      controlDoor(new Control(state, options.latency ?? null), { key: control.key, allowedHosts, log }),
    );
  }
  // The docs are a page of this server like the others: the pages' guard, no CORS.
  app.use(["/docs", "/openapi.json"], pageGuard({ allowedHosts }));
  app.use(docsRouter(options.tryItToken === undefined ? {} : { tryItToken: options.tryItToken }));
  // The web pages (§5's token interface and a landing page): HTML, their own guard, never CORS.
  app.use(pagesDoorOnFirstVisit(state, { allowedHosts, log, control: control !== false }));
  // Every other path is the API's, the door a client of the API meets whatever it mistypes: CORS,
  // then the token before the path (spec-gaps #26), then 404 in §7's envelope.
  app.use(
    apiDoor(state, {
      ids: options.ids ?? randomIds,
      bodyLimitBytes: options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES,
      latency: options.latency ?? null,
      log,
    }),
  );
  // Only reached by an error no door handled itself.
  app.use(errorHandler(log));
  return app;
}
