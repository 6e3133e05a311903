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

export const SCOPE_GROUPS: readonly ScopeGroup[] = [
  {
    resource: "Contacts",
    scopes: [
      { scope: "contacts:read", permission: "read contacts", comingSoon: false },
      { scope: "contacts:write", permission: "create / modify contacts", comingSoon: false },
    ],
  },
  {
    resource: "Products",
    scopes: [
      { scope: "products:read", permission: "read products", comingSoon: false },
      { scope: "products:write", permission: "create / modify products", comingSoon: false },
    ],
  },
  {
    resource: "Invoices",
    scopes: [
      { scope: "invoices:read", permission: "read invoices", comingSoon: false },
      { scope: "invoices:write", permission: "create / modify invoices", comingSoon: true },
    ],
  },
  {
    resource: "Expenses",
    scopes: [
      { scope: "expenses:read", permission: "read expenses", comingSoon: false },
      { scope: "expenses:write", permission: "create / modify expenses", comingSoon: true },
    ],
  },
];

/** An element id for a scope's checkbox: `scope-contacts-read`. */
export const scopeInputId = (scope: Scope): string => `scope-${scope.replace(":", "-")}`;
