import type { Organization } from "../../../src/model/records.js";
import type { ManifestToken, TokenManifest } from "../../../src/store/fixtures/manifest.js";
import type { Reference } from "../../../src/entry/reference.js";
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
  plain,
  retarget,
  tokenByLabel,
  useToken,
  type Variant,
  wrap,
} from "./harness.js";

/** Variants of authentication and authorization: token states, scopes, plans (§3, §5, §7). */

const ENDPOINT_SCOPES = [
  "contacts:read",
  "contacts:write",
  "products:read",
  "products:write",
  "invoices:read",
  "expenses:read",
];

/** An active, never-expiring token of the organization holding every scope that has an endpoint. */
function fullTokenOf(reference: Reference, organization: string): ManifestToken {
  const token = reference.manifest.tokens.find((t) => {
    const held: readonly string[] = t.scopes;
    return (
      t.organization === organization &&
      t.state === "active" &&
      t.expiresAt === null &&
      ENDPOINT_SCOPES.every((s) => held.includes(s))
    );
  });
  if (token === undefined) throw new Error(`the fixtures have no full token in ${organization}`);
  return token;
}

// ---- violations: the kit must fail each one in the spec profile, naming the right check ---------------

// §7: error envelopes and codes.
export const unauthorizedAsForbidden: Variant = {
  id: "unauthorized-as-forbidden",
  kind: "violation",
  area: "auth",
  description: "a missing, unknown, revoked or expired token gets 403 forbidden instead of 401",
  expectFailing: ["auth.missing-token", "auth.invalid-token", "auth.revoked-token", "auth.expired-token"],
  build: (env) => plain(env, mapError(401, retarget(403, "forbidden"))),
};

export const scopeAsNotFound: Variant = {
  id: "scope-as-not-found",
  kind: "violation",
  area: "auth",
  description: "a token lacking the endpoint's scope gets 404 not_found instead of 403",
  expectFailing: ["auth.scope-matrix"],
  build: (env) =>
    plain(
      env,
      // The plan's 403 stays: only the scope's moves (auth.plan has its own variant).
      mapError(
        403,
        retarget(404, "not_found"),
        (req) => req.token !== undefined && req.token.organization !== "org_petitpas",
      ),
    ),
};

// §3 and §5: token states, scopes, plans.
export const revokedTokenAccepted: Variant = {
  id: "revoked-token-accepted",
  kind: "violation",
  area: "auth",
  description: "a revoked token is still accepted",
  expectFailing: ["auth.revoked-token"],
  build: async (env) => {
    const reference = await env.reference();
    return wrap(reference, {
      request(req) {
        if (req.token?.state === "revoked") useToken(req, fullTokenOf(reference, req.token.organization));
        return undefined;
      },
    });
  },
};

export const expiredTokenAccepted: Variant = {
  id: "expired-token-accepted",
  kind: "violation",
  area: "auth",
  description: "an expired token is still accepted",
  expectFailing: ["auth.expired-token"],
  build: async (env) => {
    const reference = await env.reference();
    return wrap(reference, {
      request(req) {
        if (req.token?.state === "expired") useToken(req, fullTokenOf(reference, req.token.organization));
        return undefined;
      },
    });
  },
};

export const tokenWithSuffixAccepted: Variant = {
  id: "token-with-suffix-accepted",
  kind: "violation",
  area: "auth",
  description: "a valid token with characters appended is accepted (prefix comparison)",
  expectFailing: ["auth.invalid-token"],
  build: async (env) => {
    const reference = await env.reference();
    return wrap(reference, {
      request(req) {
        const value = /^bearer (.+)$/i.exec(req.headers.authorization ?? "")?.[1];
        const known = reference.manifest.tokens.find((t) => value?.startsWith(t.token) === true);
        if (value !== undefined && known !== undefined && value !== known.token) useToken(req, known);
        return undefined;
      },
    });
  },
};

/** The manifest token the Authorization header nearly names, by `same` (the header's value, a secret). */
const acceptNearly =
  (reference: Reference, same: (sent: string, secret: string) => boolean) =>
  (req: Incoming): undefined => {
    const value = /^bearer (.+)$/i.exec(req.headers.authorization ?? "")?.[1];
    if (value === undefined || req.token !== undefined) return undefined;
    const known = reference.manifest.tokens.find((t) => same(value, t.token));
    if (known !== undefined) useToken(req, known);
    return undefined;
  };

// §5.6: a near miss of a real token is an invalid token.
export const tokenCaseInsensitive: Variant = {
  id: "token-case-insensitive",
  kind: "violation",
  area: "auth",
  description:
    "tokens are compared without regard to letter case (a token with its letters' case changed is accepted)",
  expectFailing: ["auth.invalid-token"],
  build: async (env) => {
    const reference = await env.reference();
    return wrap(reference, {
      request: acceptNearly(reference, (sent, secret) => sent.toLowerCase() === secret.toLowerCase()),
    });
  },
};

export const tokenMissingCharAccepted: Variant = {
  id: "token-missing-char-accepted",
  kind: "violation",
  area: "auth",
  description:
    "a token with one character dropped is accepted (the stored token is compared as far as the sent one goes)",
  expectFailing: ["auth.invalid-token"],
  build: async (env) => {
    const reference = await env.reference();
    return wrap(reference, {
      request: acceptNearly(
        reference,
        (sent, secret) => sent.length === secret.length - 1 && secret.startsWith(sent),
      ),
    });
  },
};

export const tokenOneCharOffAccepted: Variant = {
  id: "token-one-char-off-accepted",
  kind: "violation",
  area: "auth",
  description:
    "a token differing from a real one by one character (dropped, added or changed, anywhere) is accepted (a fuzzy match)",
  expectFailing: ["auth.invalid-token"],
  build: async (env) => {
    const reference = await env.reference();
    return wrap(reference, {
      request: acceptNearly(reference, (sent, secret) => editDistanceAtMostOne(sent, secret)),
    });
  },
};

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

export const missingTokenDefaultOrg: Variant = {
  id: "missing-token-default-org",
  kind: "violation",
  area: "auth",
  description: "a GET without a token is served as the first organization's (a default tenant)",
  expectFailing: ["auth.missing-token"],
  build: async (env) => {
    const reference = await env.reference();
    const full = tokenByLabel(reference, "lumiere-full");
    return wrap(reference, {
      request(req) {
        if (req.headers.authorization === undefined && isList(req)) useToken(req, full);
        return undefined;
      },
    });
  },
};

export const scopeNotEnforcedInvoices: Variant = {
  id: "scope-not-enforced-invoices",
  kind: "violation",
  area: "auth",
  description: "GET /api/v1/invoices does not check the invoices:read scope",
  expectFailing: ["auth.scope-matrix"],
  build: async (env) => {
    const reference = await env.reference();
    return wrap(reference, {
      request(req) {
        const token = req.token;
        if (isList(req) && req.path === INVOICES && token !== undefined && token.state === "active") {
          if (!token.scopes.includes("invoices:read") && token.organization !== "org_petitpas") {
            useToken(req, fullTokenOf(reference, token.organization));
          }
        }
        return undefined;
      },
    });
  },
};

export const planNotEnforced: Variant = {
  id: "plan-not-enforced",
  kind: "violation",
  area: "auth",
  description: "an organization whose plan has no API access is served (org_petitpas gets 200)",
  expectFailing: ["auth.plan"],
  build: async (env) => {
    const reference = await env.reference();
    const store = reference.store;
    const lookup = store.organization.bind(store);
    // The data behind the API changes, not the server: the organization now reads as on a paid plan.
    store.organization = (id: string): Organization | undefined => {
      const org = lookup(id);
      return org?.plan === "STARTER" ? { ...org, plan: "BUSINESS" } : org;
    };
    return wrap(reference);
  },
};

// Where the kit is likeliest to look away: one direction of isolation, a reversed filter, byte counts.
export const writeImpliesRead: Variant = {
  id: "write-implies-read",
  kind: "violation",
  area: "auth",
  description: "a token with contacts:write (products:write) may also read contacts (products)",
  expectFailing: ["auth.scope-matrix"],
  build: async (env) => {
    const reference = await env.reference();
    return wrap(reference, {
      request(req) {
        const token = req.token;
        if (!isList(req) || token === undefined || token.state !== "active") return undefined;
        const kind = req.path.slice("/api/v1/".length);
        const held: readonly string[] = token.scopes;
        if (held.includes(`${kind}:write`) && !held.includes(`${kind}:read`)) {
          useToken(req, fullTokenOf(reference, token.organization));
        }
        return undefined;
      },
    });
  },
};

// Authorization in forms that only begin or end like `Bearer <token>` (issue 16, class 1).

/** The Authorization header's value, split on white space. */
const words = (req: Incoming): string[] => (req.headers.authorization ?? "").trim().split(/\s+/);

export const bearerSecondWord: Variant = {
  id: "bearer-second-word",
  kind: "violation",
  area: "auth",
  description:
    "the token is read as the second word of Authorization, whatever follows it: Bearer <token> junk is accepted",
  expectFailing: ["coverage.authorization"],
  build: async (env) => {
    const reference = await env.reference();
    return wrap(reference, {
      request(req) {
        const [scheme, token] = words(req);
        const known = reference.manifest.tokens.find((t) => t.token === token);
        if (scheme?.toLowerCase() === "bearer" && known !== undefined) useToken(req, known);
        return undefined;
      },
    });
  },
};

export const bearerSchemeStripped: Variant = {
  id: "bearer-scheme-stripped",
  kind: "violation",
  area: "auth",
  description:
    'the token is what is left once "Bearer " is taken off the front of Authorization, if it is there: a bare token is accepted',
  expectFailing: ["coverage.authorization"],
  build: async (env) => {
    const reference = await env.reference();
    return wrap(reference, {
      request(req) {
        const known = reference.manifest.tokens.find(
          (t) => t.token === (req.headers.authorization ?? "").replace(/^Bearer /, ""),
        );
        if (known !== undefined) useToken(req, known);
        return undefined;
      },
    });
  },
};

/**
 * Test tokens numbered in sequence (`acct_000…001`, `acct_000…002`): one character changed in one is
 * another. The kit is given them, and a layer maps each to the reference's own token.
 */
const sequential = (manifest: TokenManifest): Map<string, string> =>
  new Map(
    manifest.tokens.map((t, i) => [`${manifest.tokenPrefix}_${String(i + 1).padStart(40, "0")}`, t.token]),
  );

// ---- benign variants: other legal answers to open points; the kit must pass each one -------------------

export const bearerCaseSensitive: Variant = {
  id: "bearer-case-sensitive",
  kind: "benign",
  area: "auth",
  description:
    "the scheme must be spelled Bearer: bearer and BEARER get 401 (and no WWW-Authenticate anywhere)",
  build: (env) =>
    plain(
      env,
      {
        request: (req) =>
          /^bearer /i.test(req.headers.authorization ?? "") &&
          !/^Bearer /.test(req.headers.authorization ?? "")
            ? errorReply(401, "unauthorized", "The scheme is Bearer")
            : undefined,
      },
      dropHeader("www-authenticate"),
    ),
};

export const bearerSeveralSpaces: Variant = {
  id: "bearer-several-spaces",
  kind: "benign",
  area: "auth",
  description: "Bearer and the token may be apart by several spaces or a tab (RFC 6750 allows 1*SP)",
  build: (env) =>
    plain(env, {
      request(req) {
        const [scheme, token, ...rest] = words(req);
        if (scheme?.toLowerCase() === "bearer" && token !== undefined && rest.length === 0)
          req.headers.authorization = `Bearer ${token}`;
        return undefined;
      },
    }),
};

export const sequentialTokens: Variant = {
  id: "sequential-tokens",
  kind: "benign",
  area: "auth",
  description:
    "the manifest's tokens are numbered in sequence, so that a token with its last character changed is another valid token (a near miss must not be sent as invalid)",
  manifest: (m) => {
    const numbered = [...sequential(m).keys()];
    return { ...m, tokens: m.tokens.map((t, i) => ({ ...t, token: numbered[i] ?? t.token })) };
  },
  build: async (env) => {
    const reference = await env.reference();
    const real = sequential(reference.manifest);
    return wrap(reference, {
      request(req) {
        const [scheme, token, ...rest] = (req.headers.authorization ?? "").split(" ");
        const mapped = token === undefined ? undefined : real.get(token);
        if (scheme !== undefined && mapped !== undefined)
          req.headers.authorization = [scheme, mapped, ...rest].join(" ");
        return undefined;
      },
    });
  },
};

export const validationBeforeScope: Variant = {
  id: "validation-before-scope",
  kind: "benign",
  area: "auth",
  description: "an invalid body is refused (400) before the scope is judged (403), spec-gaps #26",
  build: (env) =>
    plain(env, {
      readBody: true,
      request(req) {
        const token = req.token;
        if (!isCreation(req) || token === undefined || req.body === undefined) return undefined;
        const held: readonly string[] = token.scopes;
        const body = parseJson(req.body);
        const required = req.path === CONTACTS ? ["type", "name"] : ["sku", "name", "unitPrice"];
        const missing = isObject(body) ? required.filter((f) => !(f in body)) : required;
        if (
          held.includes(req.path === CONTACTS ? "contacts:write" : "products:write") ||
          missing.length === 0
        )
          return undefined;
        return errorReply(
          400,
          "invalid_request",
          "Invalid body",
          Object.fromEntries(missing.map((f) => [f, ["is required"]])),
        );
      },
    }),
};
