import type { ManifestToken, TokenManifest } from "../manifest-schema.js";
import { LISTS } from "../spec/constants.js";
import type { BurstReservation } from "./tokens.js";
import type { HttpClient, HttpExchange, HttpRequest } from "../types.js";

/**
 * The manifest preflight: before any check, each token of the manifest is tried once against the
 * target, so that a wrong manifest is said in one line per wrong token instead of as dozens of
 * failures ("answered 401") across the catalogue. An active token must be accepted on an endpoint its
 * scopes open (a 401 or a 403 there is a mismatch); a token without any scope that has an endpoint must
 * be accepted (not 401); a revoked or expired token must get 401; an active token of an organization
 * whose plan has no API access must get 403 (§5.6, §7, spec-gaps #25). Nothing is created: a write-only
 * token is tried with an empty body, which a target must refuse (400) once the token and scope pass.
 */

export interface PreflightProblem {
  label: string;
  /** What the manifest says of the token, and so what was expected. */
  declared: string;
  /** What the target answered, and to which request. */
  answered: string;
}

/** The manifest does not match the target; one line per wrong token. */
export class ManifestMismatchError extends Error {
  readonly problems: readonly PreflightProblem[];

  constructor(problems: readonly PreflightProblem[]) {
    super(problems.map(problemLine).join("\n"));
    this.name = "ManifestMismatchError";
    this.problems = problems;
  }

  /** One line per wrong token, as the CLI prints them. */
  lines(): string[] {
    return this.problems.map(problemLine);
  }
}

export const problemLine = (p: PreflightProblem): string =>
  `manifest token "${p.label}": declared ${p.declared}; the target answered ${p.answered}`;

interface Trial {
  request: HttpRequest;
  /** What the manifest declares, as a reader checks it against the manifest. */
  declared: string;
  /** Whether the status agrees with what was declared. */
  agrees(status: number): boolean;
}

const READ_SCOPES = Object.values(LISTS).map((l) => ({ scope: l.scope, path: l.path }));
const WRITES = [
  { scope: "contacts:write", path: LISTS.contacts.path },
  { scope: "products:write", path: LISTS.products.path },
];

/**
 * The request that tries a token, and what its answer must be. `now`: for expiry instants. The token
 * goes as a raw header, so that the pacer never swaps it for an equivalent one: this token is tried.
 */
export function trialOf(token: ManifestToken, manifest: TokenManifest, now: number): Trial {
  const org = manifest.organizations.find((o) => o.id === token.organization);
  const expired = token.expiresAt !== null && Date.parse(token.expiresAt) <= now;
  const held: readonly string[] = token.scopes;
  const read = READ_SCOPES.find((r) => held.includes(r.scope));
  const path = read?.path ?? LISTS.contacts.path;
  const auth = { header: `Bearer ${token.token}` };
  const list: HttpRequest = { method: "GET", path, query: { limit: "1" }, auth };
  if (token.state !== "active" || expired) {
    const state = token.state === "active" ? `active until ${token.expiresAt ?? ""} (past)` : token.state;
    return { request: list, declared: `${state}, so 401 (§5.6)`, agrees: (s) => s === 401 };
  }
  if (org?.apiAccess === false) {
    return {
      request: list,
      declared: `active in ${token.organization}, whose plan has no API access, so 403 (§7.6)`,
      agrees: (s) => s === 403,
    };
  }
  if (read !== undefined) {
    return {
      request: list,
      declared: `active with ${read.scope}, so accepted (200)`,
      agrees: (s) => s !== 401 && s !== 403,
    };
  }
  const write = WRITES.find((w) => held.includes(w.scope));
  if (write !== undefined) {
    return {
      request: { method: "POST", path: write.path, json: {}, auth },
      declared: `active with ${write.scope}, so accepted (an empty body refused with 400)`,
      agrees: (s) => s !== 401 && s !== 403,
    };
  }
  return {
    request: list,
    declared: `active${held.length === 0 ? " without any scope" : ` with only ${held.join(", ")}`}, so accepted (403 without the scope)`,
    agrees: (s) => s !== 401,
  };
}

/** `401 unauthorized to GET /api/v1/contacts`. */
function answerOf(ex: HttpExchange): string {
  const error = (ex.json as { error?: { code?: unknown } } | undefined)?.error;
  const code = typeof error?.code === "string" ? ` ${error.code}` : "";
  return `${ex.status}${code} to ${ex.request.method} ${ex.request.path}`;
}

/**
 * Tries every token of the manifest, in its order; throws ManifestMismatchError naming each token the
 * target does not treat as declared. A request that gets no answer is left to the checks to report.
 */
export async function preflight(
  http: HttpClient,
  manifest: TokenManifest,
  now: number,
  options: { reservation?: BurstReservation | undefined } = {},
): Promise<void> {
  const problems: PreflightProblem[] = [];
  // The token kept for the rate-limit burst is tried by the burst: a request now would spend its budget.
  for (const token of manifest.tokens.filter((t) => t !== options.reservation?.token)) {
    const trial = trialOf(token, manifest, now);
    const ex = await http.send(trial.request);
    if (!trial.agrees(ex.status)) {
      problems.push({ label: token.label, declared: trial.declared, answered: answerOf(ex) });
    }
  }
  if (problems.length > 0) throw new ManifestMismatchError(problems);
}
