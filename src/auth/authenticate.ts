import { planHasApiAccess, type Scope } from "../model/records.js";
import type { Store } from "../store/store.js";
import type { TokenDigest, TokenIdentity, TokenRegistry } from "../store/tokens.js";

/**
 * §5: from the credentials a request presents to the organization it acts for. Knows the bearer
 * scheme (RFC 6750) but not HTTP: the API door hands it the `Authorization` header's values and turns
 * its refusals into 401 and 403 answers.
 */

/** Why a request's credentials identify no usable token (each a 401, §5.6). */
export type Unusable = "missing" | "malformed" | "repeated" | "unknown" | "revoked" | "expired";

/**
 * What a request presented: an active token, or why not. `token` names a known token that is revoked
 * or expired: such a request is still that token's (rate limit, journal, faults).
 */
export type Presented =
  | { readonly ok: true; readonly token: TokenIdentity }
  | { readonly ok: false; readonly reason: Unusable; readonly token?: TokenIdentity };

/** The token a request is accepted with and the organization it reaches (§1, §5.4). */
export interface Principal {
  readonly token: TokenIdentity;
  readonly organizationId: string;
}

/** A world a token may belong to: the default state, or a sandbox (each issues its own tokens). */
export interface Issuer {
  readonly tokens: TokenRegistry;
}

/** The other worlds a token may belong to (the sandboxes), found by its digest. */
export interface OtherIssuers<S extends Issuer> {
  stateFor(digest: TokenDigest): S | undefined;
}

/** What a request's credentials came to, and the world that answers it. */
export interface Identified<S extends Issuer> {
  readonly state: S;
  readonly presented: Presented;
}

const MISSING: Presented = Object.freeze({ ok: false, reason: "missing" });
const MALFORMED: Presented = Object.freeze({ ok: false, reason: "malformed" });
const REPEATED: Presented = Object.freeze({ ok: false, reason: "repeated" });
const UNKNOWN: Presented = Object.freeze({ ok: false, reason: "unknown" });

/**
 * Reads the `Authorization` header's values, once: exactly one (RFC 9110 §11.6.2; Node would keep the
 * first of several without a word), of the form `Bearer <token>` with the scheme in any case (RFC 9110
 * §11.1, spec-gaps #35) and one space. The token's text is checked against this server's form and
 * hashed once (`TokenForm.digest`); the digest then finds the world that issued it (a sandbox, or
 * `home`) and the token in that world's registry.
 *
 * A well-formed header whose token cannot be one of this server's (another prefix, too short, other
 * characters) presents an unknown token: the header is not malformed, the token is invalid.
 */
export function identify<S extends Issuer>(
  authorization: readonly string[],
  home: S,
  others?: OtherIssuers<S>,
): Identified<S> {
  if (authorization.length > 1) return { state: home, presented: REPEATED };
  const value = authorization[0];
  if (value === undefined || value === "") return { state: home, presented: MISSING };
  const token = bearerToken(value);
  if (token === undefined) return { state: home, presented: MALFORMED };
  const digest = home.tokens.form.digest(token);
  if (digest === undefined) return { state: home, presented: UNKNOWN };
  const state = others?.stateFor(digest) ?? home;
  return { state, presented: state.tokens.find(digest) };
}

/** The token of `Bearer <token>` (the scheme in any case, one space), or undefined for anything else. */
function bearerToken(value: string): string | undefined {
  const space = value.indexOf(" ");
  if (space !== 6 || value.indexOf(" ", space + 1) !== -1) return undefined;
  const token = value.slice(space + 1);
  return token !== "" && value.slice(0, space).toLowerCase() === "bearer" ? token : undefined;
}

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
