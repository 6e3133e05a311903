import type { Check } from "../types.js";
import { expectErrorEnvelope, expectStatus, statusAndCode } from "./assert.js";
import { fullToken } from "./data.js";
import { SECTION } from "./spec.js";

/** §9: "the version is part of the path: all endpoints start with /api/v1". */
export const versioningChecks: readonly Check[] = [
  {
    id: "versioning.unversioned-path",
    section: SECTION.versioning,
    level: "MUST",
    rule: "A path without the version (/api/contacts) is no endpoint: 404 not_found (or 405) in the error envelope",
    gap: 23,
    async run(ctx) {
      const ex = await ctx.http.send({ method: "GET", path: "/api/contacts", auth: fullToken(ctx) });
      const rule = "GET /api/contacts names no endpoint: every endpoint starts with /api/v1 (§9)";
      expectStatus(ex, [404, 405], rule);
      expectErrorEnvelope(ex, ex.status === 404 ? "not_found" : undefined, rule);
    },
  },
  {
    id: "versioning.other-versions",
    section: SECTION.versioning,
    level: "PROBE",
    rule: "What another version of a path gets (/api/v2/contacts, /api/v0/contacts)",
    async run(ctx) {
      for (const path of ["/api/v2/contacts", "/api/v0/contacts"]) {
        const ex = await ctx.http.send({ method: "GET", path, auth: fullToken(ctx), query: { limit: "1" } });
        ctx.observe(`GET ${path}: ${statusAndCode(ex)}.`);
      }
    },
  },
];
