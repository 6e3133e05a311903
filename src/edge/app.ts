import express, { type Express } from "express";
import { apiDoor } from "../doors/api/door.js";
import { CONTROL_BASE, controlDoor } from "../doors/control/door.js";
import { docsRouter } from "../doors/pages/docs.js";
import { pageGuard } from "../doors/pages/guard.js";
import { pagesDoorOnFirstVisit } from "../doors/pages/on-first-visit.js";
import { errorHandler } from "../http/errors.js";
import { parseQuery } from "../http/query.js";
import type { IdGenerator } from "../store/ids.js";
import type { Sandboxes } from "../store/sandboxes.js";
import type { ReferenceState } from "../store/state.js";

/** The paths `docsRouter` answers: the document, the page and the page's files under /docs/. */
const isDocsPath = (path: string): boolean =>
  path === "/openapi.json" || path === "/docs" || path.startsWith("/docs/");

/** What the app is built with, every choice already made (createReference makes them). */
export interface AppSettings {
  /** The cap on a request body (spec-gaps #15). */
  bodyLimitBytes: number;
  /** Where internal errors are told; the client only ever sees a generic 500. */
  log: (line: string) => void;
  /** The key the control surface wants, or null to leave it closed. */
  controlKey: string | null;
  /** Host names besides IP literals and localhost that the local-only doors answer to. */
  allowedHosts: readonly string[];
  /** A test token the docs page fills in for "try it". */
  tryItToken: string | undefined;
  /** Ids of created records (tests fix them); random by default. */
  ids: IdGenerator | undefined;
  /** The sandboxes: the API answers their tokens from their states, the control surface manages them. */
  sandboxes: Sandboxes;
}

/**
 * The doors side by side over one reference state: the control surface under /__control, the web
 * pages (/, /settings/…, /docs, /openapi.json) and the API, which answers every other path. No
 * listening, flags or signals here: those belong to the entry.
 */
export function buildApp(state: ReferenceState, settings: AppSettings): Express {
  const { log, allowedHosts, controlKey } = settings;
  const app = express();
  app.disable("x-powered-by");
  // No ETags and no conditional requests: a 304 is an answer §4 does not list. `fresh` is redefined
  // on this app's own request prototype, so no other Express app in the process is touched.
  app.set("etag", false);
  Object.defineProperty(app.request, "fresh", { configurable: true, get: () => false });
  app.set("query parser", parseQuery);
  app.set("strict routing", true);
  app.set("case sensitive routing", true);

  if (controlKey !== null) {
    app.use(CONTROL_BASE, controlDoor(state, settings.sandboxes, { key: controlKey, allowedHosts, log }));
  }
  // The docs are a page of this server like the others: the pages' guard, no CORS. Their router is
  // entered for their own paths only: every API request used to walk through it.
  const docs = docsRouter({ tryItToken: settings.tryItToken, spec: state.spec });
  app.use(["/docs", "/openapi.json"], pageGuard({ allowedHosts }));
  app.use((req, res, next) => {
    if (isDocsPath(req.path)) docs(req, res, next);
    else next();
  });
  // The web pages (§5's token interface and a landing page): HTML, their own guard, never CORS.
  app.use(pagesDoorOnFirstVisit(state, { allowedHosts, log, control: controlKey !== null }));
  // Every other path is the API's, the door a client of the API meets whatever it mistypes: CORS,
  // then the token before the path (spec-gaps #26), then 404 in §7's envelope.
  app.use(
    apiDoor(state, {
      bodyLimitBytes: settings.bodyLimitBytes,
      log,
      ids: settings.ids,
      sandboxes: settings.sandboxes,
    }),
  );
  // Only reached by an error no door handled itself.
  app.use(errorHandler(log));
  return app;
}
