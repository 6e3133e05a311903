import { failureKey } from "../failures.js";
import type { Check, CheckContext, HttpRequest } from "../types.js";
import {
  answer,
  expectErrorEnvelope,
  expectList,
  expectNot5xx,
  expectStatus,
  fail,
  is2xx,
  isRecord,
  isEnvelopeProblem,
  readErrorEnvelope,
  statusAndCode,
} from "../support/assert.js";
import { fullToken, listRequest, validContact } from "../support/data.js";
import { INVALID, ruleCheck, type RuleRow } from "../support/rows.js";
import type { NearPathAnswer } from "../support/shared.js";
import { ANNOUNCED_POSTS, LISTS } from "../spec/constants.js";
import { SECTION } from "../spec/clauses.js";

/** §7's error answers, and the answers to what §4 does not offer (spec-gaps #13–#15, #23, #24, #34, #36). */

const postContactRaw = (
  ctx: CheckContext,
  rawBody: string,
  headers: Record<string, string>,
): HttpRequest => ({
  method: "POST",
  path: LISTS.contacts.path,
  auth: fullToken(ctx),
  headers,
  rawBody,
});

const JSON_TYPE = { "Content-Type": "application/json" };

/** spec-gaps #34: what a path that is almost an endpoint gets; shared by the PROBE and the REFERENCE. */
function nearPaths(ctx: CheckContext): Promise<readonly NearPathAnswer[]> {
  const token = fullToken(ctx);
  return ctx.shared.nearPaths.get(async () => {
    const cases: Array<{ what: string; request: HttpRequest }> = [
      {
        what: "A trailing slash (GET /api/v1/contacts/)",
        request: { method: "GET", path: "/api/v1/contacts/", auth: token },
      },
      {
        what: "Another case (GET /api/v1/Contacts)",
        request: { method: "GET", path: "/api/v1/Contacts", auth: token },
      },
      {
        what: "Another case (GET /API/V1/contacts)",
        request: { method: "GET", path: "/API/V1/contacts", auth: token },
      },
      { what: "HEAD /api/v1/contacts", request: { method: "HEAD", path: LISTS.contacts.path, auth: token } },
    ];
    const out: NearPathAnswer[] = [];
    for (const c of cases) out.push({ what: c.what, ex: await ctx.http.send(c.request) });
    return out;
  });
}

const checks: readonly Check[] = [
  {
    id: "errors.announced-endpoints",
    section: SECTION.endpoints,
    clause: ["§4 Not available.1", "§1.4", "§5 Scopes.6", "§5 Scopes.8"],
    level: "MUST",
    rule: "POST /api/v1/invoices (announced) and POST /api/v1/expenses (not available) get a 4xx or 501, never a 2xx",
    gap: 24,
    async run(ctx) {
      const full = fullToken(ctx);
      // The coming-soon write scopes (§5) must not open the endpoints either.
      const writer = ctx.tokens.find({ kind: "scopes", scopes: ["invoices:write"] });
      const tokens = writer === undefined || writer.label === full.label ? [full] : [full, writer];
      // A body no invoice endpoint would take (no contact, no lines): nothing gets created even by mistake.
      const json = { description: `${ctx.marker} announced endpoint` };
      for (const token of tokens) {
        for (const path of ANNOUNCED_POSTS) {
          const ex = await ctx.http.send({ method: "POST", path, auth: token, json });
          if (!((ex.status >= 400 && ex.status < 500) || ex.status === 501)) {
            fail(
              `POST ${path} is not available (§1, §4 "Not available") with a token holding ${token.scopes.join(", ")}`,
              {
                key: failureKey(
                  `status ${ex.status}`,
                  `POST ${path}`,
                  token === full ? "full token" : "invoices:write token",
                ),
                cause: ex.status >= 500 ? "response.no-5xx" : "rule",
                expected: "a 4xx, or 501",
                actual: answer(ex),
                exchange: ex,
              },
            );
          }
        }
      }
    },
  },
  {
    id: "errors.content-type",
    section: SECTION.endpoints,
    clause: "§4.2",
    level: "MUST",
    rule: "A POST without Content-Type: application/json gets 400 or 415 (a 2xx is reported), never anything else",
    gap: 13,
    writes: true,
    async run(ctx) {
      const body = JSON.stringify(validContact(ctx, "content type"));
      for (const [what, headers] of [
        ["Content-Type: text/plain", { "Content-Type": "text/plain" }],
        ["no Content-Type", {}],
      ] as const) {
        const ex = await ctx.http.send(postContactRaw(ctx, body, headers));
        if (is2xx(ex)) {
          ctx.observe(
            `${what}: accepted (${ex.status})`,
            `A valid contact body sent with ${what} is accepted (${ex.status}).`,
          );
          continue;
        }
        const rule = `POST /api/v1/contacts with ${what} must be refused with 400 or 415 (§4)`;
        expectStatus(ex, [400, 415], rule);
        expectErrorEnvelope(ex, ex.status === 400 ? "invalid_request" : undefined, rule);
      }
    },
  },
  {
    id: "errors.body-size",
    section: SECTION.errors,
    clause: "§7.4",
    level: "MUST",
    rule: "A 2 MB body gets 400 or 413, never a 5xx, and the server answers normally afterwards",
    gap: 15,
    async run(ctx) {
      const head = `{"type":"CLIENT","name":"${ctx.marker} oversized","address":"`;
      const ex = await ctx.http.send(
        postContactRaw(ctx, `${head}${"a".repeat(2 * 1024 * 1024)}"}`, JSON_TYPE),
      );
      const rule = "A 2 MB body must be refused with 400 or 413 (spec-gaps #15)";
      expectNot5xx(ex, rule);
      expectStatus(ex, [400, 413], rule);
      expectErrorEnvelope(ex, ex.status === 400 ? "invalid_request" : undefined, rule);
      const after = await ctx.http.send(listRequest("contacts", fullToken(ctx), { limit: "1" }));
      expectList(after, "After an oversized body the server must still answer GET /api/v1/contacts with 200");
    },
  },
  {
    id: "errors.details-shape",
    section: SECTION.errors,
    clause: "§7.3",
    level: "PROBE",
    rule: "The shape of error.details on a validation error (a contact without a name)",
    gap: 36,
    async run(ctx) {
      const ex = await ctx.http.send({
        method: "POST",
        path: LISTS.contacts.path,
        auth: fullToken(ctx),
        json: { type: "CLIENT" },
      });
      const read = readErrorEnvelope(ex.json);
      if (isEnvelopeProblem(read)) {
        ctx.observe(
          `${ex.status}, no error envelope: ${read.problem}`,
          `A contact without a name gets ${ex.status} without the error envelope (${read.why}).`,
        );
        return;
      }
      if (read.details === undefined) {
        ctx.observe(
          `${statusAndCode(ex)}, no details`,
          `A contact without a name gets ${statusAndCode(ex)} without details.`,
        );
        return;
      }
      const values = Object.values(read.details);
      const lists = values.every((v) => Array.isArray(v) && v.every((m) => typeof m === "string"));
      const shape = lists
        ? "each a list of messages"
        : values.every((v) => typeof v === "string")
          ? "each a message"
          : "of mixed shape";
      const nested = values.some((v) => isRecord(v)) ? ", some nested" : "";
      const keyedBy = JSON.stringify(Object.keys(read.details));
      ctx.observe(
        `${statusAndCode(ex)}, details keyed by ${keyedBy}, ${shape}${nested}`,
        `A contact without a name gets ${statusAndCode(ex)} with details keyed by ${keyedBy}, ${shape}${nested}.`,
      );
    },
  },
  {
    id: "errors.near-paths",
    section: SECTION.endpoints,
    clause: ["§4.5", "§9.1"],
    level: "PROBE",
    rule: "What a trailing slash, another letter case and HEAD get",
    gap: 34,
    async run(ctx) {
      for (const { what, ex } of await nearPaths(ctx)) {
        const location = ex.headers.location === undefined ? "" : ` to ${ex.headers.location}`;
        ctx.observe(`${what}: ${statusAndCode(ex)}${location}`, `${what}: ${statusAndCode(ex)}${location}.`);
      }
    },
  },
  {
    id: "errors.reference-near-paths",
    section: SECTION.endpoints,
    clause: ["§4.5", "§9.1"],
    level: "REFERENCE",
    rule: "Paths are exact (trailing slash and other case get 404 not_found) and HEAD gets 404",
    gap: 34,
    async run(ctx) {
      for (const { what, ex } of await nearPaths(ctx)) {
        expectStatus(ex, 404, `${what} must get 404`);
        if (ex.request.method !== "HEAD")
          expectErrorEnvelope(ex, "not_found", `${what} must get 404 not_found`);
      }
    },
  },
];

/** A malformed body to the contacts endpoint, declared as JSON. */
const rawContact = (ctx: CheckContext, what: string, rawBody: string) => ({
  what,
  request: postContactRaw(ctx, rawBody, JSON_TYPE),
});

/** What has no endpoint, and bodies that are not a JSON object: one answer expected for each request. */
const rows: readonly RuleRow[] = [
  {
    id: "errors.unknown-paths",
    section: SECTION.errors,
    clause: "§7.7",
    level: "MUST",
    rule: "A path that is no endpoint gets 404 not_found (or 405) in the error envelope",
    gap: 23,
    requests: (ctx) => [
      {
        what: "An unknown path",
        request: { method: "GET", path: `/api/v1/${ctx.marker}-nowhere`, auth: fullToken(ctx) },
      },
      {
        what: "A path below an endpoint",
        request: { method: "GET", path: `${LISTS.contacts.path}/${ctx.marker}/deeper`, auth: fullToken(ctx) },
      },
      {
        what: "A POST to an unknown path",
        request: { method: "POST", path: `/api/v1/${ctx.marker}-nowhere`, auth: fullToken(ctx), json: {} },
      },
    ],
    expect: "no endpoint",
  },
  {
    id: "errors.other-methods",
    section: SECTION.endpoints,
    clause: "§4.4",
    level: "MUST",
    rule: "PUT, PATCH and DELETE, which have no endpoint, get 404 or 405 in the error envelope",
    gap: 23,
    requests: (ctx) => {
      const token = fullToken(ctx);
      const absent = `${ctx.marker}-absent`;
      const to = (method: string, path: string): { what: string; request: HttpRequest } => ({
        what: `${method} without an endpoint`,
        // DELETE only on an id that does not exist: never risk a collection on a server that has one.
        request: { method, path, auth: token, ...(method === "DELETE" ? {} : { json: {} }) },
      });
      return [
        ...["PUT", "PATCH"].flatMap((m) => [to(m, LISTS.contacts.path), to(m, LISTS.products.path)]),
        ...["PUT", "PATCH", "DELETE"].flatMap((m) => [
          to(m, `${LISTS.contacts.path}/${absent}`),
          to(m, `${LISTS.products.path}/${absent}`),
        ]),
        to("DELETE", `${LISTS.invoices.path}/${absent}`),
        to("DELETE", `${LISTS.expenses.path}/${absent}`),
      ];
    },
    expect: "no endpoint",
  },
  {
    id: "errors.malformed-json",
    section: SECTION.errors,
    clause: ["§7.4", "§4.2"],
    level: "MUST",
    rule: "A POST body that is not well-formed JSON gets 400 invalid_request",
    gap: 14,
    requests: (ctx) => [
      rawContact(ctx, "Truncated JSON", '{"type": "CLIENT", "name": '),
      rawContact(ctx, "JSON with single quotes", "{'type': 'CLIENT', 'name': 'x'}"),
      rawContact(ctx, "JSON with a trailing comma", '{"type": "CLIENT", "name": "x",}'),
      rawContact(ctx, "An empty body", ""),
      {
        what: "Truncated JSON to products",
        request: {
          method: "POST",
          path: LISTS.products.path,
          auth: fullToken(ctx),
          headers: JSON_TYPE,
          rawBody: '{"sku": ',
        },
      },
    ],
    expect: INVALID,
  },
  {
    id: "errors.non-object-json",
    section: SECTION.errors,
    clause: "§7.4",
    level: "MUST",
    rule: "A POST body that is JSON but not an object ([], a string, null, a number) gets 400 invalid_request",
    gap: 14,
    requests: (ctx) =>
      ["[]", '"CLIENT"', "null", "42"].map((body) => rawContact(ctx, `The body ${body}`, body)),
    expect: INVALID,
  },
];

export const errorChecks: readonly Check[] = [...checks, ...rows.map(ruleCheck)];
