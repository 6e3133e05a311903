import { ipKeyGenerator } from "express-rate-limit";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { ApiError } from "../../model/errors.js";
import { planHasApiAccess, type Scope } from "../../model/records.js";
import { headerCount } from "../../http/headers.js";
import type { Store } from "../../store/store.js";
import type { Resolution, TokenRegistry, TokenView } from "../../store/tokens.js";

export interface AuthContext {
  token: TokenView;
  organizationId: string;
}

/** What the request's Authorization header came to: a token's resolution, or several headers. */
export type Presented = Resolution | { ok: false; reason: "repeated"; tokenId?: undefined };

declare module "express-serve-static-core" {
  interface Locals {
    /** Set by `identify` for every request: what the bearer token resolved to, and the rate-limit key. */
    identity?: { resolution: Presented; rateLimitKey: string };
    /** Set by `authenticate` once the token is known to be active. */
    auth?: AuthContext;
  }
}

/**
 * Resolves the bearer token before the rate limiter runs, so that the limit is counted per token
 * (per client address without one, spec-gaps #21). Every request presenting an active token counts
 * towards its usage, whatever its outcome (spec-gaps #28), so use is recorded here, first.
 */
export function identify(tokens: TokenRegistry): RequestHandler {
  return (req, res, next) => {
    // Authorization holds one value (RFC 9110 §5.3, §11.6.2); Node keeps the first of several without a
    // word, so a request carrying two is refused rather than judged by whichever came first.
    const resolution: Presented =
      headerCount(req, "authorization") > 1
        ? { ok: false, reason: "repeated" }
        : tokens.resolve(req.headers.authorization);
    if (resolution.ok) tokens.recordUse(resolution.token.id);
    const tokenId = resolution.ok ? resolution.token.id : resolution.tokenId;
    const rateLimitKey = tokenId === undefined ? `ip:${ipKeyGenerator(req.ip ?? "")}` : `token:${tokenId}`;
    res.locals.identity = { resolution, rateLimitKey };
    next();
  };
}

const UNAUTHORIZED: Record<Exclude<Presented, { ok: true }>["reason"], string> = {
  missing: "Missing bearer token: send the header Authorization: Bearer <token>",
  malformed: "Malformed Authorization header: expected Bearer <token>",
  repeated: "Several Authorization headers: send exactly one",
  unknown: "Invalid token",
  revoked: "This token has been revoked",
  expired: "This token has expired",
};

const WWW_AUTHENTICATE: Record<keyof typeof UNAUTHORIZED, string> = {
  missing: "Bearer",
  malformed: 'Bearer error="invalid_token"',
  unknown: 'Bearer error="invalid_token"',
  revoked: 'Bearer error="invalid_token"',
  expired: 'Bearer error="invalid_token"',
  repeated: 'Bearer error="invalid_request"',
};

/**
 * §5.6: a missing, invalid, expired or revoked token is 401; then the organization's plan (§7, 403).
 * Both come before routing, so that nothing about a path, not even whether it exists, is told to a
 * caller without access (spec-gaps #26).
 */
export function authenticate(store: Store): RequestHandler {
  return (_req, res, next) => {
    const resolution = res.locals.identity?.resolution;
    if (resolution === undefined || !resolution.ok) {
      const reason = resolution?.reason ?? "missing";
      // RFC 6750 §3: a 401 for a bearer-protected resource names the scheme; §3.1 calls a repeated
      // credential an invalid_request (with 400, but §5.6 makes every unusable token a 401).
      res.setHeader("WWW-Authenticate", WWW_AUTHENTICATE[reason]);
      next(new ApiError("unauthorized", UNAUTHORIZED[reason]));
      return;
    }
    const organization = store.organization(resolution.token.organizationId);
    if (organization === undefined) {
      next(new ApiError("unauthorized", UNAUTHORIZED.unknown));
      return;
    }
    if (!planHasApiAccess(organization.plan)) {
      next(new ApiError("forbidden", "The organization's plan does not include API access"));
      return;
    }
    res.locals.auth = { token: resolution.token, organizationId: organization.id };
    next();
  };
}

/** §5.6: a valid token without the endpoint's scope is 403 forbidden. */
export function requireScope(scope: Scope): RequestHandler {
  return (_req: Request, res: Response, next: NextFunction) => {
    if (res.locals.auth?.token.scopes.includes(scope)) {
      next();
      return;
    }
    next(new ApiError("forbidden", `This token lacks the scope ${scope}`));
  };
}
