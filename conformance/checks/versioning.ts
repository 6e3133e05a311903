import type { Check } from "../types.js";
import { statusAndCode } from "./assert.js";
import { fullToken } from "./data.js";
import { SECTION } from "./spec.js";

/** §9: "the version is part of the path: all endpoints start with /api/v1". */
export const versioningChecks: readonly Check[] = [
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
