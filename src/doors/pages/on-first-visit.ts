import type { RequestHandler } from "express";
import type { ReferenceState } from "../../store/state.js";
import type { PagesDoorOptions } from "./door.js";
import { isPagePath } from "./paths.js";

/**
 * The pages door, loaded on the first request for a page rather than at start (DECISIONS.md,
 * "Performance"): most runs never open a page. Other paths never load it.
 */
export function pagesDoorOnFirstVisit(state: ReferenceState, options: PagesDoorOptions): RequestHandler {
  let door: Promise<RequestHandler> | undefined;
  return (req, res, next) => {
    if (!isPagePath(req.path)) {
      next();
      return;
    }
    door ??= import("./door.js").then(({ pagesDoor }) => pagesDoor(state, options));
    door.then((handle) => handle(req, res, next), next);
  };
}
