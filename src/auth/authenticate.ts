import { planHasApiAccess, type Scope } from "../model/records.js";
import type { Store } from "../store/store.js";
import type { TokenRegistry, TokenView } from "../store/tokens.js";

/**
 * §5: from the credentials a request presents to the organization it acts for. Knows the bearer
 * scheme (RFC 6750) but not HTTP: the API door hands it the `Authorization` header's values and turns
 * its refusals into 401 and 403 answers.
 */

/** Why a request's credentials identify no usable token (each a 401, §5.6). */
export type Unusable = "missing" | "malformed" | "repeated" | "unknown" | "revoked" | "expired";

/**
 * What a request presented: an active token, or why not. `tokenId` names a known token that is
 * revoked or expired: such a request is still that token's (rate limit, journal, faults).
 */
export type Presented = { ok: true; token: TokenView } | { ok: false; reason: Unusable; tokenId?: string };

/** The token a request is accepted with and the organization it reaches (§1, §5.4). */
export interface Principal {
  token: TokenView;
  organizationId: string;
}

/**
 * Reads the `Authorization` header's values: exactly one (RFC 9110 §11.6.2; Node would keep the first
 * of several without a word), of the form `Bearer <token>` with the scheme in any case (RFC 9110
 * §11.1, spec-gaps #35) and one space.
 */
export function present(tokens: TokenRegistry, authorization: readonly string[]): Presented {
  if (authorization.length > 1) return { ok: false, reason: "repeated" };
  const value = authorization[0];
  if (value === undefined || value === "") return { ok: false, reason: "missing" };
  const token = bearerToken(value);
  if (token === undefined) return { ok: false, reason: "malformed" };
  return tokens.lookup(token);
}

/** The token of `Bearer <token>` (the scheme in any case, one space), or undefined for anything else. */
export function bearerToken(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const parts = value.split(" ");
  if (parts.length !== 2) return undefined;
  const [scheme, token] = parts as [string, string];
  return scheme.toLowerCase() === "bearer" ? token : undefined;
}

/** The id of the token a request presented, usable or not: what its use is counted against. */
export const presentedTokenId = (presented: Presented): string | undefined =>
  presented.ok ? presented.token.id : presented.tokenId;

export type Admission =
  | { ok: true; principal: Principal }
  | { ok: false; status: 401; reason: Unusable }
  | { ok: false; status: 403; reason: "plan" };

/**
 * §5.6 and §7: a missing, invalid, expired or revoked token is refused (401); then the organization's
 * plan (403). Both come before routing (spec-gaps #26), so nothing about a path, not even whether it
 * exists, is told to a caller without access.
 */
export function admit(presented: Presented, store: Store): Admission {
  if (!presented.ok) return { ok: false, status: 401, reason: presented.reason };
  const organization = store.organization(presented.token.organizationId);
  if (organization === undefined) return { ok: false, status: 401, reason: "unknown" };
  if (!planHasApiAccess(organization.plan)) return { ok: false, status: 403, reason: "plan" };
  return { ok: true, principal: { token: presented.token, organizationId: organization.id } };
}

/** §5.6: a valid token without the endpoint's scope is refused (403). */
export const hasScope = (principal: Principal, scope: Scope): boolean =>
  principal.token.scopes.includes(scope);
