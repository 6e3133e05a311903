import { defaultSpec, type Spec } from "../../../spec/index.js";
import type { Scope } from "../../model/records.js";

/** §5's scope table as the new-token form shows it: grouped by resource, each with its permission. */
export interface ScopeChoice {
  scope: Scope;
  permission: string;
  /** §1, §5: the scope exists, but what it allows does not yet. */
  comingSoon: boolean;
}

export interface ScopeGroup {
  resource: string;
  scopes: ScopeChoice[];
}

/**
 * The default spec's scopes (spec/accounting-api.json), grouped by the resource before their colon,
 * in the file's order. A scope no endpoint requires (invoices:write, expenses:write: only announced
 * endpoints name them) exists but allows nothing yet. The pages do not vary with a variant.
 */
function scopeGroups(spec: Spec): ScopeGroup[] {
  const required = new Set(Object.values(spec.endpoints).map((e) => e.scope));
  const groups = new Map<string, ScopeGroup>();
  for (const scope of spec.enums.scopes) {
    const [resource = scope, action = ""] = scope.split(":");
    const label = `${resource.charAt(0).toUpperCase()}${resource.slice(1)}`;
    const group = groups.get(resource) ?? { resource: label, scopes: [] };
    groups.set(resource, group);
    const permission = action === "read" ? `read ${resource}` : `create / modify ${resource}`;
    group.scopes.push({ scope, permission, comingSoon: !required.has(scope) });
  }
  return [...groups.values()];
}

export const SCOPE_GROUPS: readonly ScopeGroup[] = scopeGroups(defaultSpec());

/** An element id for a scope's checkbox: `scope-contacts-read`. */
export const scopeInputId = (scope: Scope): string => `scope-${scope.replace(":", "-")}`;
