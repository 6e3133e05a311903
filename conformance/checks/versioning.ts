import type { Check } from "../types.js";
import { statusAndCode } from "../support/assert.js";
import { fullToken } from "../support/data.js";
import { ruleCheck, type RuleRow } from "../support/rows.js";
import { SECTION } from "../spec/clauses.js";

/** §9: "the version is part of the path: all endpoints start with /api/v1". */
const checks: readonly Check[] = [
  {
    id: "versioning.other-versions",
    section: SECTION.versioning,
    clause: "§9.1",
    level: "PROBE",
    rule: "What another version of a path gets (/api/v2/contacts, /api/v0/contacts)",
    async run(ctx) {
      for (const path of ["/api/v2/contacts", "/api/v0/contacts"]) {
        const ex = await ctx.http.send({ method: "GET", path, auth: fullToken(ctx), query: { limit: "1" } });
        ctx.observe(`${path}: ${statusAndCode(ex)}`, `GET ${path}: ${statusAndCode(ex)}.`);
      }
    },
  },
];

const rows: readonly RuleRow[] = [
  {
    id: "versioning.unversioned-path",
    section: SECTION.versioning,
    clause: "§9.1",
    level: "MUST",
    rule: "A path without the version (/api/contacts) is no endpoint: 404 not_found (or 405) in the error envelope",
    gap: 23,
    requests: (ctx) => [
      {
        what: "A path without /v1 (every endpoint starts with /api/v1, §9)",
        request: { method: "GET", path: "/api/contacts", auth: fullToken(ctx) },
      },
    ],
    expect: "no endpoint",
  },
];

export const versioningChecks: readonly Check[] = [...checks, ...rows.map(ruleCheck)];
