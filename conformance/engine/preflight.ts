import { kitSpec, type KitSpec } from "../spec/kit-spec.js";
import type { ManifestToken, TokenManifest } from "../manifest-schema.js";
import type { HttpClient, HttpExchange, HttpRequest } from "../types.js";
import type { BurstReservation } from "./tokens.js";

/**
 * The manifest preflight: before any check, each token of the manifest is tried against the target, so
 * that a wrong manifest is said in one line per wrong token instead of as dozens of failures ("answered
 * 401") across the catalogue. An active token must be accepted on the endpoint of every scope it is
 * declared to hold that has one (a 401 or a 403 there is a mismatch); a token without any such scope
 * must be accepted (not 401); a revoked or expired token must get 401; an active token of an
 * organization whose plan has no API access must get 403 (§5.6, §7, spec-gaps #25). Nothing is
 * created: a write scope is tried with an empty body, which a target must refuse (400) once the token
 * and scope pass.
 *
 * The kit cannot tell a wrong manifest from a target that breaks the rule: each line says both, and
 * which check (and clause) would fail were the manifest right; when every token declared alike
 * disagrees alike, a wrong manifest is the less likely story, and a line says so.
 */

export interface PreflightProblem {
  label: string;
  /** What the manifest says of the token, and so what was expected. */
  declared: string;
  /** What the target answered, and to which request. */
  answered: string;
  /** How a manifest would have to be wrong for the target to be right. */
  ifManifestWrong: string;
  /** The check (and its clause) that fails if the manifest is right. */
  check: string;
  /** Tokens declared alike (a state, a scope), for the summary line. */
  group: string;
}

/** Every token of a group declared alike disagreed alike: the target is the likelier cause. */
export interface PreflightGroup {
  group: string;
  tokens: number;
  answered: string;
  check: string;
}

/** The manifest does not match the target; one line per wrong token and scope, one per group. */
export class ManifestMismatchError extends Error {
  readonly problems: readonly PreflightProblem[];
  readonly groups: readonly PreflightGroup[];

  constructor(problems: readonly PreflightProblem[], groups: readonly PreflightGroup[] = []) {
    super([...problems.map(problemLine), ...groups.map(groupLine)].join("\n"));
    this.name = "ManifestMismatchError";
    this.problems = problems;
    this.groups = groups;
  }

  /** One line per wrong token and scope, then one per group the target is likelier to blame for. */
  lines(): string[] {
    return [...this.problems.map(problemLine), ...this.groups.map(groupLine)];
  }
}

export const problemLine = (p: PreflightProblem): string =>
  `manifest token "${p.label}": declared ${p.declared}; the target answered ${p.answered}. Either the manifest is wrong (${p.ifManifestWrong}), or the target is: with the manifest right, ${p.check} fails`;

const groupLine = (g: PreflightGroup): string =>
  `every one of the ${g.tokens} tokens declared ${g.group} got ${g.answered}: the target is the likelier cause (${g.check})`;

export interface Trial {
  request: HttpRequest;
  /** What the manifest declares, as a reader checks it against the manifest. */
  declared: string;
  /** Whether the status agrees with what was declared. */
  agrees(status: number): boolean;
  ifManifestWrong: string;
  check: string;
  group: string;
}

/** The creations a write scope is tried on: §4's POST rows, their scopes the spec's. */
const writes = (spec: KitSpec) => [
  {
    scope: spec.file.endpoints.createContact.scope,
    path: spec.file.endpoints.createContact.path,
    check: "auth.scope-grants-write (§5 Scopes.2)",
  },
  {
    scope: spec.file.endpoints.createProduct.scope,
    path: spec.file.endpoints.createProduct.path,
    check: "auth.scope-grants-write (§5 Scopes.4)",
  },
];

/**
 * The requests that try a token, and what each answer must be: one per scope with an endpoint that the
 * token is declared to hold, else one. `now`: for expiry instants. The token goes as a raw header, so
 * that the pacer never swaps it for an equivalent one: this token is tried.
 */
export function trialsOf(
  token: ManifestToken,
  manifest: TokenManifest,
  now: number,
  spec: KitSpec = kitSpec(),
): Trial[] {
  const { unauthorized, forbidden } = spec.ERRORS;
  const org = manifest.organizations.find((o) => o.id === token.organization);
  const expired = token.expiresAt !== null && Date.parse(token.expiresAt) <= now;
  const held: readonly string[] = token.scopes;
  const auth = { header: `Bearer ${token.token}` };
  const listOf = (path: string): HttpRequest => ({ method: "GET", path, query: { limit: "1" }, auth });
  const reads = Object.values(spec.LISTS).filter((l) => held.includes(l.scope));
  const any = listOf(reads[0]?.path ?? spec.LISTS.contacts.path);
  if (token.state === "revoked") {
    return [
      {
        request: any,
        declared: `revoked, so ${unauthorized.status} (§5.6)`,
        agrees: (s) => s === unauthorized.status,
        ifManifestWrong: "the token is not revoked on the target",
        check: "auth.revoked-token (§3 Token status.1, §5.6)",
        group: "revoked",
      },
    ];
  }
  if (token.state === "expired" || expired) {
    const state = token.state === "active" ? `active until ${token.expiresAt ?? ""} (past)` : "expired";
    return [
      {
        request: any,
        declared: `${state}, so ${unauthorized.status} (§5.6)`,
        agrees: (s) => s === unauthorized.status,
        ifManifestWrong: "the token has not expired on the target",
        check: "auth.expired-token (§3 Token status.2, §5.6)",
        group: "expired",
      },
    ];
  }
  if (org?.apiAccess === false) {
    return [
      {
        request: any,
        declared: `active in ${token.organization}, whose plan has no API access, so ${forbidden.status} (§7.6)`,
        agrees: (s) => s === forbidden.status,
        ifManifestWrong: `the plan of ${token.organization} has API access on the target`,
        check: "auth.plan (§7.6)",
        group: "in an organization whose plan has no API access",
      },
    ];
  }
  const trials: Trial[] = [
    ...reads.map(
      (read): Trial => ({
        request: listOf(read.path),
        declared: `active with ${read.scope}, so GET ${read.path} is accepted (200)`,
        agrees: (s) => s !== unauthorized.status && s !== forbidden.status,
        ifManifestWrong: `the token lacks ${read.scope} on the target`,
        check: "auth.scope-grants-read (§5.4)",
        group: `with ${read.scope}`,
      }),
    ),
    ...writes(spec)
      .filter((w) => held.includes(w.scope))
      .map(
        (write): Trial => ({
          request: { method: "POST", path: write.path, json: {}, auth },
          declared: `active with ${write.scope}, so POST ${write.path} is accepted (an empty body refused with 400)`,
          agrees: (s) => s !== unauthorized.status && s !== forbidden.status,
          ifManifestWrong: `the token lacks ${write.scope} on the target`,
          check: write.check,
          group: `with ${write.scope}`,
        }),
      ),
  ];
  if (trials.length > 0) return trials;
  return [
    {
      request: any,
      declared: `active${held.length === 0 ? " without any scope" : ` with only ${held.join(", ")}`}, so accepted (403 without the scope)`,
      agrees: (s) => s !== unauthorized.status,
      ifManifestWrong: "the token is no active token on the target",
      check: "auth.scope-matrix (§5.6: 403, not 401, for a valid token without the scope)",
      group: "active without a scope that has an endpoint",
    },
  ];
}

/** The first trial of a token (its state, or its first scope): what a reader checks first. */
export const trialOf = (
  token: ManifestToken,
  manifest: TokenManifest,
  now: number,
  spec: KitSpec = kitSpec(),
): Trial => {
  const [first] = trialsOf(token, manifest, now, spec);
  if (first === undefined) throw new Error(`no trial for ${token.label}`);
  return first;
};

/**
 * What the preflight sends, token by token in manifest order: every trial of a token, but for a token
 * declared exactly as one before it (same organization, state and scopes: the fixtures' full tokens),
 * its first only: its secret and state are its own, its scopes the class's, and every request the
 * preflight makes is one less for the run in that token's budget. The token kept for the rate-limit
 * burst is left out: its burst tries it, and a request now would spend its budget.
 */
export function preflightPlan(
  manifest: TokenManifest,
  now: number,
  reserved?: ManifestToken | undefined,
  spec: KitSpec = kitSpec(),
): Array<{ token: ManifestToken; trials: Trial[] }> {
  const declarations = new Set<string>();
  return manifest.tokens
    .filter((t) => t !== reserved)
    .map((token) => {
      const all = trialsOf(token, manifest, now, spec);
      const declaration = `${token.organization} ${token.state} ${[...token.scopes].sort().join(" ")}`;
      const trials = declarations.has(declaration) ? all.slice(0, 1) : all;
      declarations.add(declaration);
      return { token, trials };
    });
}

/** `401 unauthorized to GET /api/v1/contacts`. */
function answerOf(ex: HttpExchange): string {
  const error = (ex.json as { error?: { code?: unknown } } | undefined)?.error;
  const code = typeof error?.code === "string" ? ` ${error.code}` : "";
  return `${ex.status}${code} to ${ex.request.method} ${ex.request.path}`;
}

/**
 * Tries every token of the manifest, in its order, on every scope it is declared to hold; throws
 * ManifestMismatchError naming each token and scope the target does not treat as declared. A request
 * that gets no answer is left to the checks to report.
 */
export async function preflight(
  http: HttpClient,
  manifest: TokenManifest,
  now: number,
  options: { reservation?: BurstReservation | undefined; spec?: KitSpec | undefined } = {},
): Promise<void> {
  const spec = options.spec ?? kitSpec();
  const problems: PreflightProblem[] = [];
  /** Per group: how many tokens were tried in it, and the statuses of those that disagreed. */
  const tried = new Map<string, { tokens: Set<string>; disagreed: Map<string, string>; check: string }>();
  for (const { token, trials } of preflightPlan(manifest, now, options.reservation?.token, spec)) {
    const wrong: Array<{ trial: Trial; ex: HttpExchange }> = [];
    for (const trial of trials) {
      // A 429 tells nothing of the token (an earlier run's requests may still fill its budget): the
      // checks will meet it again, with an equivalent token or after the wait; the preflight goes on.
      const ex = await (http.sendOnce ?? http.send).call(http, trial.request);
      if (ex.status === 429) break;
      const entry = tried.get(trial.group) ?? {
        tokens: new Set<string>(),
        disagreed: new Map<string, string>(),
        check: trial.check,
      };
      entry.tokens.add(token.label);
      tried.set(trial.group, entry);
      if (trial.agrees(ex.status)) continue;
      entry.disagreed.set(token.label, String(ex.status));
      wrong.push({ trial, ex });
      // A 401 where a token was declared active: the target does not know the token; its other
      // scopes would say the same.
      if (ex.status === spec.ERRORS.unauthorized.status && trial.agrees(200)) break;
    }
    const [first] = wrong;
    if (first === undefined) continue;
    const statuses = new Set(wrong.map((w) => w.ex.status));
    if (wrong.length > 1 && wrong.length === trials.length && statuses.size === 1) {
      // Refused on every scope it is declared to hold, the same way: one line for the token.
      problems.push({
        label: token.label,
        declared: `active with ${trials.map((x) => x.group.replace(/^with /, "")).join(", ")}, so accepted on the endpoint of each`,
        answered: `${first.ex.status} to each (the first: ${answerOf(first.ex)})`,
        ifManifestWrong:
          "the token holds none of them on the target, or its organization's plan has no API access",
        check: first.trial.check,
        group: first.trial.group,
      });
      continue;
    }
    for (const { trial, ex } of wrong) {
      const unknown = ex.status === 401 && trial.agrees(200);
      problems.push({
        label: token.label,
        declared: trial.declared,
        answered: answerOf(ex),
        ifManifestWrong: unknown
          ? "the token is no active token on the target: copied wrong, or revoked or expired since"
          : trial.ifManifestWrong,
        check: trial.check,
        group: trial.group,
      });
    }
  }
  const groups: PreflightGroup[] = [];
  for (const [group, { tokens, disagreed, check }] of tried) {
    const statuses = new Set(disagreed.values());
    const [status] = statuses;
    if (tokens.size < 2 || disagreed.size < tokens.size || statuses.size !== 1 || status === undefined)
      continue;
    groups.push({ group, tokens: tokens.size, answered: status, check });
  }
  if (problems.length > 0) throw new ManifestMismatchError(problems, groups);
}
