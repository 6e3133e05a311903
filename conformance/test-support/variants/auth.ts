import type { Organization } from "../../../src/model/records.js";
import type { ManifestToken, TokenManifest } from "../../../src/store/fixtures/manifest.js";
import type { Reference } from "../../../src/entry/reference.js";
import { FULL_SCOPES } from "../../engine/tokens.js";
import {
  CONTACTS,
  dropHeader,
  errorReply,
  type Incoming,
  INVOICES,
  isCreation,
  isList,
  isObject,
  mapError,
  parseJson,
  retarget,
  tokenByLabel,
  type Layer,
  useToken,
  variantsIn,
} from "./harness.js";

const { violation, benign } = variantsIn("auth");

/** Variants of authentication and authorization: token states, scopes, plans (§3, §5, §7). */

/** An active, never-expiring token of the organization holding every scope that has an endpoint. */
function fullTokenOf(reference: Reference, organization: string): ManifestToken {
  const token = reference.manifest.tokens.find((t) => {
    const held: readonly string[] = t.scopes;
    return (
      t.organization === organization &&
      t.state === "active" &&
      t.expiresAt === null &&
      FULL_SCOPES.every((s) => held.includes(s))
    );
  });
  if (token === undefined) throw new Error(`the fixtures have no full token in ${organization}`);
  return token;
}

// ---- violations: the kit must fail each one in the spec profile, naming the right check ---------------

// §7: error envelopes and codes.
export const unauthorizedAsForbidden = violation(
  "unauthorized-as-forbidden",
  "a missing, unknown, revoked or expired token gets 403 forbidden instead of 401",
  ["auth.missing-token", "auth.invalid-token", "auth.revoked-token", "auth.expired-token"],
  mapError(401, retarget(403, "forbidden")),
);

export const scopeAsNotFound = violation(
  "scope-as-not-found",
  "a token lacking the endpoint's scope gets 404 not_found instead of 403",
  ["auth.scope-matrix"], // The plan's 403 stays: only the scope's moves (auth.plan has its own variant).
  mapError(
    403,
    retarget(404, "not_found"),
    (req) => req.token !== undefined && req.token.organization !== "org_petitpas",
  ),
);

// §3 and §5: token states, scopes, plans.

/** Requests for which `when` holds are served as if they carried their organization's full token. */
const servedAsFull =
  (when: (req: Incoming, token: ManifestToken) => boolean) =>
  (reference: Reference): Layer => ({
    request(req) {
      const token = req.token;
      if (token !== undefined && when(req, token)) useToken(req, fullTokenOf(reference, token.organization));
      return undefined;
    },
  });

export const revokedTokenAccepted = violation(
  "revoked-token-accepted",
  "a revoked token is still accepted",
  ["auth.revoked-token"],
  servedAsFull((_req, token) => token.state === "revoked"),
);

// §5.6: a token holding the scope is served (issue 29: the preflight met this twice, and blamed nobody).
export const productsWriteRefused = violation(
  "products-write-refused",
  "a token holding products:write is refused (403 forbidden) on POST /api/v1/products, as if it lacked the scope (run with the preflight, as the CLI runs)",
  ["preflight", "auth.scope-grants-write"],
  {
    request: (req) =>
      req.method === "POST" && req.path === "/api/v1/products" && req.token !== undefined
        ? errorReply(403, "forbidden", "This token lacks the products:write scope")
        : undefined,
  },
  { preflight: true },
);

export const expiredTokenAccepted = violation(
  "expired-token-accepted",
  "an expired token is still accepted",
  ["auth.expired-token"],
  servedAsFull((_req, token) => token.state === "expired"),
);

export const revokedLowercaseScheme = violation(
  "revoked-lowercase-scheme",
  "a revoked token is accepted when the scheme is spelled otherwise than Bearer (bearer, BEARER): the case-insensitive path forgets the revocation",
  ["auth.revoked-token"],
  servedAsFull(
    (req, token) => token.state === "revoked" && !(req.headers.authorization ?? "").startsWith("Bearer "),
  ),
);

/** The manifest token the Authorization header nearly names, by `same` (the header's value, a secret). */
const acceptNearly =
  (same: (sent: string, secret: string) => boolean) =>
  (reference: Reference): Layer => ({
    request(req) {
      const value = /^bearer (.+)$/i.exec(req.headers.authorization ?? "")?.[1];
      if (value === undefined || req.token !== undefined) return undefined;
      const known = reference.manifest.tokens.find((t) => same(value, t.token));
      if (known !== undefined) useToken(req, known);
      return undefined;
    },
  });

export const tokenWithSuffixAccepted = violation(
  "token-with-suffix-accepted",
  "a valid token with characters appended is accepted (prefix comparison)",
  ["auth.invalid-token"],
  acceptNearly((sent, secret) => sent.startsWith(secret)),
);

// §5.6: a near miss of a real token is an invalid token.
export const tokenCaseInsensitive = violation(
  "token-case-insensitive",
  "tokens are compared without regard to letter case (a token with its letters' case changed is accepted)",
  ["auth.invalid-token"],
  acceptNearly((sent, secret) => sent.toLowerCase() === secret.toLowerCase()),
);

export const tokenMissingCharAccepted = violation(
  "token-missing-char-accepted",
  "a token with one character dropped is accepted (the stored token is compared as far as the sent one goes)",
  ["auth.invalid-token"],
  acceptNearly((sent, secret) => sent.length === secret.length - 1 && secret.startsWith(sent)),
);

export const tokenOneCharOffAccepted = violation(
  "token-one-char-off-accepted",
  "a token differing from a real one by one character (dropped, added or changed, anywhere) is accepted (a fuzzy match)",
  ["auth.invalid-token"],
  acceptNearly((sent, secret) => editDistanceAtMostOne(sent, secret)),
);

/** Whether `a` becomes `b` by at most one character dropped, added or changed. */
function editDistanceAtMostOne(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  let j = 0;
  let edits = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      i += 1;
      j += 1;
      continue;
    }
    edits += 1;
    if (edits > 1) return false;
    if (a.length > b.length) i += 1;
    else if (a.length < b.length) j += 1;
    else {
      i += 1;
      j += 1;
    }
  }
  return edits + (a.length - i) + (b.length - j) <= 1;
}

export const missingTokenDefaultOrg = violation(
  "missing-token-default-org",
  "a GET without a token is served as the first organization's (a default tenant)",
  ["auth.missing-token"],
  (reference) => ({
    request(req) {
      if (req.headers.authorization === undefined && isList(req))
        useToken(req, tokenByLabel(reference, "lumiere-full"));
      return undefined;
    },
  }),
);

export const scopeNotEnforcedInvoices = violation(
  "scope-not-enforced-invoices",
  "GET /api/v1/invoices does not check the invoices:read scope",
  ["auth.scope-matrix"],
  servedAsFull(
    (req, token) =>
      isList(req) &&
      req.path === INVOICES &&
      token.state === "active" &&
      !token.scopes.includes("invoices:read") &&
      token.organization !== "org_petitpas",
  ),
);

export const planNotEnforced = violation(
  "plan-not-enforced",
  "an organization whose plan has no API access is served (org_petitpas gets 200)",
  ["auth.plan"],
  (reference) => {
    const store = reference.store;
    const lookup = store.organization.bind(store);
    // The data behind the API changes, not the server: the organization now reads as on a paid plan.
    store.organization = (id: string): Organization | undefined => {
      const org = lookup(id);
      return org?.plan === "STARTER" ? { ...org, plan: "BUSINESS" } : org;
    };
    return [];
  },
);

// Where the kit is likeliest to look away: one direction of isolation, a reversed filter, byte counts.
export const writeImpliesRead = violation(
  "write-implies-read",
  "a token with contacts:write (products:write) may also read contacts (products)",
  ["auth.scope-matrix"],
  servedAsFull((req, token) => {
    const kind = req.path.slice("/api/v1/".length);
    const held: readonly string[] = token.scopes;
    return (
      isList(req) &&
      token.state === "active" &&
      held.includes(`${kind}:write`) &&
      !held.includes(`${kind}:read`)
    );
  }),
);

// Authorization in forms that only begin or end like `Bearer <token>` (issue 16, class 1).

/** The Authorization header's value, split on white space. */
const words = (req: Incoming): string[] => (req.headers.authorization ?? "").trim().split(/\s+/);

/** Serves the request as the manifest token `pick` reads out of its Authorization header, if any. */
const readToken =
  (pick: (header: string, req: Incoming) => string | undefined) =>
  (reference: Reference): Layer => ({
    request(req) {
      const value = pick(req.headers.authorization ?? "", req);
      const known = reference.manifest.tokens.find((t) => t.token === value);
      if (known !== undefined) useToken(req, known);
      return undefined;
    },
  });

export const bearerSecondWord = violation(
  "bearer-second-word",
  "the token is read as the second word of Authorization, whatever follows it: Bearer <token> junk is accepted",
  ["coverage.authorization"],
  readToken((_header, req) => {
    const [scheme, token] = words(req);
    return scheme?.toLowerCase() === "bearer" ? token : undefined;
  }),
);

export const bearerSchemeStripped = violation(
  "bearer-scheme-stripped",
  'the token is what is left once "Bearer " is taken off the front of Authorization, if it is there: a bare token is accepted',
  ["coverage.authorization"],
  readToken((header) => header.replace(/^Bearer /, "")),
);

/**
 * Test tokens numbered in sequence (`acct_000…001`, `acct_000…002`): one character changed in one is
 * another. The kit is given them, and a layer maps each to the reference's own token.
 */
const sequential = (manifest: TokenManifest): Map<string, string> =>
  new Map(
    manifest.tokens.map((t, i) => [`${manifest.tokenPrefix}_${String(i + 1).padStart(40, "0")}`, t.token]),
  );

// ---- benign variants: other legal answers to open points; the kit must pass each one -------------------

export const bearerCaseSensitive = benign(
  "bearer-case-sensitive",
  "the scheme must be spelled Bearer: bearer and BEARER get 401 (and no WWW-Authenticate anywhere)",
  [
    {
      request: (req) =>
        /^bearer /i.test(req.headers.authorization ?? "") && !/^Bearer /.test(req.headers.authorization ?? "")
          ? errorReply(401, "unauthorized", "The scheme is Bearer")
          : undefined,
    },
    dropHeader("www-authenticate"),
  ],
);

export const bearerSeveralSpaces = benign(
  "bearer-several-spaces",
  "Bearer and the token may be apart by several spaces or a tab (RFC 6750 allows 1*SP)",
  {
    request(req) {
      const [scheme, token, ...rest] = words(req);
      if (scheme?.toLowerCase() === "bearer" && token !== undefined && rest.length === 0)
        req.headers.authorization = `Bearer ${token}`;
      return undefined;
    },
  },
);

export const sequentialTokens = benign(
  "sequential-tokens",
  "the manifest's tokens are numbered in sequence, so that a token with its last character changed is another valid token (a near miss must not be sent as invalid)",
  (reference) => {
    const real = sequential(reference.manifest);
    return {
      request(req) {
        const [scheme, token, ...rest] = (req.headers.authorization ?? "").split(" ");
        const mapped = token === undefined ? undefined : real.get(token);
        if (scheme !== undefined && mapped !== undefined)
          req.headers.authorization = [scheme, mapped, ...rest].join(" ");
        return undefined;
      },
    };
  },
  {
    manifest: (m) => {
      const numbered = [...sequential(m).keys()];
      return { ...m, tokens: m.tokens.map((t, i) => ({ ...t, token: numbered[i] ?? t.token })) };
    },
  },
);

export const validationBeforeScope = benign(
  "validation-before-scope",
  "an invalid body is refused (400) before the scope is judged (403), spec-gaps #26",
  {
    readBody: true,
    request(req) {
      const token = req.token;
      if (!isCreation(req) || token === undefined || req.body === undefined) return undefined;
      const held: readonly string[] = token.scopes;
      const body = parseJson(req.body);
      const required = req.path === CONTACTS ? ["type", "name"] : ["sku", "name", "unitPrice"];
      const missing = isObject(body) ? required.filter((f) => !(f in body)) : required;
      if (held.includes(req.path === CONTACTS ? "contacts:write" : "products:write") || missing.length === 0)
        return undefined;
      return errorReply(
        400,
        "invalid_request",
        "Invalid body",
        Object.fromEntries(missing.map((f) => [f, ["is required"]])),
      );
    },
  },
);
