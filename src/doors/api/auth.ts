import type { Response } from "express";
import { admit, hasScope, type Principal, type Unusable } from "../../auth/authenticate.js";
import { ApiError } from "../../model/errors.js";
import type { Scope } from "../../model/records.js";
import type { Credentials } from "./credentials.js";

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

/**
 * The token (401), then the organization's plan (403): both before routing (spec-gaps #26). Who the
 * request acts for, or the refusal thrown.
 */
export function admitted(who: Credentials, res: Response): Principal {
  const admission = admit(who.presented, who.state.store);
  if (admission.ok) return admission.principal;
  if (admission.status === 401) {
    res.setHeader("WWW-Authenticate", WWW_AUTHENTICATE[admission.reason]);
    throw new ApiError("unauthorized", UNAUTHORIZED[admission.reason]);
  }
  throw new ApiError("forbidden", "The organization's plan does not include API access");
}

/** §5.6: a valid token without the endpoint's scope is 403. */
export function requireScope(principal: Principal, scope: Scope): void {
  if (!hasScope(principal, scope)) throw new ApiError("forbidden", `This token lacks the scope ${scope}`);
}
