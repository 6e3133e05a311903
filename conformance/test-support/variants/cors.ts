import { errorReply, type Incoming, is2xx, setHeader, variantsIn } from "./harness.js";

const { violation, benign } = variantsIn("cors");

const isPreflight = (req: Incoming): boolean => req.method === "OPTIONS";

/** Variants of CORS and preflights (§4). */

// ---- violations: the kit must fail each one in the spec profile, naming the right check ---------------

// §4: CORS.
export const corsMissingOnSuccess = violation(
  "cors-missing-on-success",
  "successful answers carry no Access-Control-Allow-Origin",
  ["cors.success"],
  setHeader("access-control-allow-origin", undefined, (req, res) => !isPreflight(req) && is2xx(res)),
);

export const preflightNotAnswered = violation(
  "preflight-not-answered",
  "pre-flights (OPTIONS) get 404 not_found without CORS headers",
  ["cors.preflight"],
  [
    {
      request: (req) => (req.method === "OPTIONS" ? errorReply(404, "not_found", "No endpoint") : undefined),
    },
    setHeader("access-control-allow-origin", undefined, isPreflight),
  ],
);

export const preflightWithoutAuthorization = violation(
  "preflight-without-authorization",
  "pre-flights allow Content-Type but not the Authorization header",
  ["cors.preflight"],
  setHeader("access-control-allow-headers", "Content-Type", isPreflight),
);

export const preflightWithoutPutPatchDelete = violation(
  "preflight-without-put-patch-delete",
  "pre-flights allow only GET, POST and OPTIONS",
  ["cors.preflight"],
  setHeader("access-control-allow-methods", "GET,POST,OPTIONS", isPreflight),
);

// A MUST on every answer of its kind (issue 16, class 3).
export const corsMissingOnCreations = violation(
  "cors-missing-on-creations",
  "creations (POST answered 200 or 201) carry no Access-Control-Allow-Origin; reads do",
  ["run.cors-success"],
  setHeader("access-control-allow-origin", undefined, (req, res) => req.method === "POST" && is2xx(res)),
);

// §4: CORS on error answers too (spec-gaps #22 revised, issue 29).
export const corsMissingOnErrors = violation(
  "cors-missing-on-errors",
  "error answers (401, 403, 404, 429, 500…) carry no Access-Control-Allow-Origin; successes do",
  ["cors.errors", "run.cors-errors"],
  setHeader("access-control-allow-origin", undefined, (req, res) => !isPreflight(req) && res.status >= 400),
);

export const corsMissingOn429 = violation(
  "cors-missing-on-429",
  "429 rate_limited answers carry no Access-Control-Allow-Origin; every other answer does",
  ["run.cors-errors"],
  setHeader("access-control-allow-origin", undefined, (req, res) => !isPreflight(req) && res.status === 429),
);

// ---- benign variants: other legal answers to open points; the kit must pass each one -------------------

export const corsEchoOrigin = benign(
  "cors-echo-origin",
  "CORS echoes the request's Origin (with Vary: Origin) instead of *",
  {
    response(res, req) {
      const origin = req.headers.origin;
      if (origin === undefined || res.headers["access-control-allow-origin"] === undefined) return;
      res.headers["access-control-allow-origin"] = origin;
      res.headers.vary = "Origin";
    },
  },
);

export const preflightReflectsRequest = benign(
  "preflight-reflects-request",
  "pre-flights allow exactly the method and headers asked for (reflected), not the whole list",
  {
    response(res, req) {
      if (req.method !== "OPTIONS") return;
      const method = req.headers["access-control-request-method"];
      const headers = req.headers["access-control-request-headers"];
      if (method !== undefined) res.headers["access-control-allow-methods"] = method;
      if (headers !== undefined) res.headers["access-control-allow-headers"] = headers;
    },
  },
);
