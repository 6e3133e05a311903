import { errorReply, is2xx, plain, type Variant } from "./harness.js";

/** Variants of CORS and preflights (§4). */

// ---- violations: the kit must fail each one in the spec profile, naming the right check ---------------

// §4: CORS.
export const corsMissingOnSuccess: Variant = {
  id: "cors-missing-on-success",
  kind: "violation",
  area: "cors",
  description: "successful answers carry no Access-Control-Allow-Origin",
  expectFailing: ["cors.success"],
  build: (env) =>
    plain(env, {
      response(res, req) {
        if (req.method !== "OPTIONS" && is2xx(res)) delete res.headers["access-control-allow-origin"];
      },
    }),
};

export const preflightNotAnswered: Variant = {
  id: "preflight-not-answered",
  kind: "violation",
  area: "cors",
  description: "pre-flights (OPTIONS) get 404 not_found without CORS headers",
  expectFailing: ["cors.preflight"],
  build: (env) =>
    plain(env, {
      request: (req) => (req.method === "OPTIONS" ? errorReply(404, "not_found", "No endpoint") : undefined),
      response(res, req) {
        if (req.method === "OPTIONS") delete res.headers["access-control-allow-origin"];
      },
    }),
};

export const preflightWithoutAuthorization: Variant = {
  id: "preflight-without-authorization",
  kind: "violation",
  area: "cors",
  description: "pre-flights allow Content-Type but not the Authorization header",
  expectFailing: ["cors.preflight"],
  build: (env) =>
    plain(env, {
      response(res, req) {
        if (req.method === "OPTIONS") res.headers["access-control-allow-headers"] = "Content-Type";
      },
    }),
};

export const preflightWithoutPutPatchDelete: Variant = {
  id: "preflight-without-put-patch-delete",
  kind: "violation",
  area: "cors",
  description: "pre-flights allow only GET, POST and OPTIONS",
  expectFailing: ["cors.preflight"],
  build: (env) =>
    plain(env, {
      response(res, req) {
        if (req.method === "OPTIONS") res.headers["access-control-allow-methods"] = "GET,POST,OPTIONS";
      },
    }),
};

// A MUST on every answer of its kind (issue 16, class 3).
export const corsMissingOnCreations: Variant = {
  id: "cors-missing-on-creations",
  kind: "violation",
  area: "cors",
  description: "creations (POST answered 200 or 201) carry no Access-Control-Allow-Origin; reads do",
  expectFailing: ["run.cors-success"],
  build: (env) =>
    plain(env, {
      response(res, req) {
        if (req.method === "POST" && is2xx(res)) delete res.headers["access-control-allow-origin"];
      },
    }),
};

// ---- benign variants: other legal answers to open points; the kit must pass each one -------------------

export const corsEchoOrigin: Variant = {
  id: "cors-echo-origin",
  kind: "benign",
  area: "cors",
  description: "CORS echoes the request's Origin (with Vary: Origin) instead of *",
  build: (env) =>
    plain(env, {
      response(res, req) {
        const origin = req.headers.origin;
        if (origin === undefined || res.headers["access-control-allow-origin"] === undefined) return;
        res.headers["access-control-allow-origin"] = origin;
        res.headers.vary = "Origin";
      },
    }),
};

export const preflightReflectsRequest: Variant = {
  id: "preflight-reflects-request",
  kind: "benign",
  area: "cors",
  description: "pre-flights allow exactly the method and headers asked for (reflected), not the whole list",
  build: (env) =>
    plain(env, {
      response(res, req) {
        if (req.method !== "OPTIONS") return;
        const method = req.headers["access-control-request-method"];
        const headers = req.headers["access-control-request-headers"];
        if (method !== undefined) res.headers["access-control-allow-methods"] = method;
        if (headers !== undefined) res.headers["access-control-allow-headers"] = headers;
      },
    }),
};
