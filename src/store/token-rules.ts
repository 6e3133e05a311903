import { SCOPES, type Scope } from "../model/records.js";

/**
 * The rules a token's fields follow, whoever brings them: the token pages' form (every problem at
 * once, `creationProblems`), a creation, a fixture imported, a record restored from `--data`.
 */

export class TokenError extends Error {
  readonly reason: "not_found" | "invalid";
  readonly field?: string;

  constructor(reason: "not_found" | "invalid", message: string, field?: string) {
    super(message);
    this.name = "TokenError";
    this.reason = reason;
    if (field !== undefined) this.field = field;
  }
}

const NAME_MAX_CODE_POINTS = 100;
const SCOPE_ORDER: ReadonlyMap<string, number> = new Map(SCOPES.map((s, i) => [s, i]));

export function isValidDate(value: unknown): value is Date {
  return value instanceof Date && !Number.isNaN(value.getTime());
}

export function invalid(field: string, message: string): TokenError {
  return new TokenError("invalid", message, field);
}

export function checkOrganizationId(organizationId: unknown): string {
  if (typeof organizationId !== "string" || organizationId.trim() === "") {
    throw invalid("organizationId", "organizationId must be a non-blank string");
  }
  return organizationId;
}

export function checkName(name: unknown): string {
  if (typeof name !== "string" || name.trim() === "") {
    throw invalid("name", "name must not be blank");
  }
  // Code points, not UTF-16 units: an emoji is one character to the person typing the name.
  if ([...name].length > NAME_MAX_CODE_POINTS) {
    throw invalid("name", `name must be at most ${NAME_MAX_CODE_POINTS} characters`);
  }
  return name;
}

export function normalizeScopes(scopes: unknown, allowEmpty: boolean): Scope[] {
  if (!Array.isArray(scopes)) throw invalid("scopes", "scopes must be an array");
  const seen = new Set<Scope>();
  for (const scope of scopes as unknown[]) {
    if (typeof scope !== "string" || !SCOPE_ORDER.has(scope)) {
      throw invalid("scopes", `unknown scope: ${String(scope)}`);
    }
    seen.add(scope as Scope);
  }
  if (seen.size === 0 && !allowEmpty) throw invalid("scopes", "at least one scope is required");
  return [...seen].sort((a, b) => (SCOPE_ORDER.get(a) ?? 0) - (SCOPE_ORDER.get(b) ?? 0));
}

export function checkExpiry(expiresAt: unknown, now: number): number | null {
  if (expiresAt === undefined || expiresAt === null) return null;
  if (!isValidDate(expiresAt)) throw invalid("expiresAt", "expiresAt must be a valid date");
  // A token born expired is useless; at exactly now it would already be Expired (spec-gaps #27).
  if (expiresAt.getTime() <= now) throw invalid("expiresAt", "expiresAt must be in the future");
  return expiresAt.getTime();
}

export type TokenInputField = "name" | "scopes" | "expiresAt";

/**
 * Every reason `create` would refuse these fields, each field's first, by the same rules: for a
 * form that shows a message beside each field rather than only the first problem.
 */
export function creationProblems(
  input: { name: unknown; scopes: unknown; expiresAt?: unknown },
  now: Date,
): Partial<Record<TokenInputField, string>> {
  const problems: Partial<Record<TokenInputField, string>> = {};
  const check = (field: TokenInputField, run: () => unknown) => {
    try {
      run();
    } catch (err) {
      if (!(err instanceof TokenError)) throw err;
      problems[field] = err.message;
    }
  };
  check("name", () => checkName(input.name));
  check("scopes", () => normalizeScopes(input.scopes, false));
  check("expiresAt", () => checkExpiry(input.expiresAt, now.getTime()));
  return problems;
}
