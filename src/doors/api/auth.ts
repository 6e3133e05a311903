import { ipKeyGenerator } from "express-rate-limit";
import {
  admit,
  hasScope,
  present,
  presentedTokenId,
  type Principal,
  type Unusable,
} from "../../auth/authenticate.js";
import { headerCount, headerValues } from "../../http/headers.js";
import { ApiError } from "../../model/errors.js";
import type { Scope } from "../../model/records.js";
import type { RequestHandler, Response } from "express";
import { apiContext } from "./context.js";

/**
 * What the request's credentials come to, before the rate limit runs: the limit counts per token (per
 * client address without a known one, spec-gaps #21). Every request presenting an active token counts
 * towards its usage, whatever its outcome (spec-gaps #28), so its use is recorded here, first.
 */
export const identify: RequestHandler = (req, res, next) => {
  const ctx = apiContext(res);
  // Node keeps the first of several Authorization headers in `req.headers`; the raw ones count them.
  const repeated = headerCount(req, "authorization") > 1;
  const single = req.headers.authorization;
  const values = repeated ? headerValues(req, "authorization") : single === undefined ? [] : [single];
  const presented = present(ctx.state.tokens, values);
  if (presented.ok) ctx.state.tokens.recordUse(presented.token.id);
  const tokenId = presentedTokenId(presented);
  ctx.presented = presented;
  ctx.rateLimitKey = tokenId === undefined ? `ip:${ipKeyGenerator(req.ip ?? "")}` : `token:${tokenId}`;
  next();
};

const UNAUTHORIZED: Record<Unusable, string> = {
  missing: "Missing bearer token: send the header Authorization: Bearer <token>",
  malformed: "Malformed Authorization header: expected Bearer <token>",
  repeated: "Several Authorization headers: send exactly one",
  unknown: "Invalid token",
  revoked: "This token has been revoked",
  expired: "This token has expired",
};

/**
 * RFC 6750 §3: a 401 for a bearer-protected resource names the scheme; §3.1 calls a repeated
 * credential an invalid_request (with 400, but §5.6 makes every unusable token a 401).
 */
const WWW_AUTHENTICATE: Record<Unusable, string> = {
  missing: "Bearer",
  malformed: 'Bearer error="invalid_token"',
  unknown: 'Bearer error="invalid_token"',
  revoked: 'Bearer error="invalid_token"',
  expired: 'Bearer error="invalid_token"',
  repeated: 'Bearer error="invalid_request"',
};

const refuse = (res: Response, reason: Unusable): ApiError => {
  res.setHeader("WWW-Authenticate", WWW_AUTHENTICATE[reason]);
  return new ApiError("unauthorized", UNAUTHORIZED[reason]);
};

/** The token (401), then the organization's plan (403): both before routing (spec-gaps #26). */
export const authenticate: RequestHandler = (_req, res, next) => {
  const ctx = apiContext(res);
  const admission = admit(ctx.presented, ctx.state.store);
  if (admission.ok) {
    ctx.principal = admission.principal;
    next();
  } else if (admission.status === 401) {
    next(refuse(res, admission.reason));
  } else {
    next(new ApiError("forbidden", "The organization's plan does not include API access"));
  }
};

/**
 * Who a routed request acts for. The routes come after `authenticate`; a request that reached one
 * without being admitted is refused as unauthenticated, so a route never serves an unknown caller.
 */
export function principalOf(res: Response): Principal {
  const { principal } = apiContext(res);
  if (principal === undefined) throw refuse(res, "missing");
  return principal;
}

/** §5.6: a valid token without the endpoint's scope is 403. */
export const requireScope =
  (scope: Scope): RequestHandler =>
  (_req, res, next) => {
    if (hasScope(principalOf(res), scope)) next();
    else next(new ApiError("forbidden", `This token lacks the scope ${scope}`));
  };
