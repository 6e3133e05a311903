import type { Request, RequestHandler } from "express";
import { ApiError } from "../../model/errors.js";
import { isOwnHost, localOnly, type LocalOnlyOptions } from "../../http/local-only.js";

/**
 * Who may reach the pages: the local-only guard of the control surface (Host, Sec-Fetch-Site,
 * Origin), with one allowance. A link followed from another site (the developer's app on another
 * port, a wiki) is a top-level navigation: it reads nothing back for the other site and changes
 * nothing, so only its Host is checked. Everything else, every form POST first, must come from the
 * pages themselves (or from a tool that is no browser).
 */
export function pageGuard(options: LocalOnlyOptions = {}): RequestHandler {
  const strict = localOnly(options);
  return (req, res, next) => {
    if (!isTopLevelNavigation(req)) {
      strict(req, res, next);
      return;
    }
    if (!isOwnHost(req.headers.host, options.allowedHosts)) {
      next(
        new ApiError("forbidden", `Host ${JSON.stringify(req.headers.host ?? "")} does not name this server`),
      );
      return;
    }
    next();
  };
}

const isTopLevelNavigation = (req: Request): boolean =>
  (req.method === "GET" || req.method === "HEAD") &&
  req.headers["sec-fetch-mode"] === "navigate" &&
  req.headers["sec-fetch-dest"] === "document";

/**
 * Sent with every page and asset: nothing from elsewhere (the pages work offline), no framing (a
 * page framing the revoke button could trick a click), nothing cached (a token page reloaded or
 * reached with the back button is asked for again, and the token shown once is not in it).
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "Content-Security-Policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "X-Frame-Options": "DENY",
  "X-Content-Type-Options": "nosniff",
  // Not no-referrer: with it, Chromium sends `Origin: null` on the pages' own form POSTs.
  "Referrer-Policy": "same-origin",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Resource-Policy": "same-origin",
  "Cache-Control": "no-store",
};

export const securityHeaders: RequestHandler = (_req, res, next) => {
  res.set(SECURITY_HEADERS);
  next();
};
