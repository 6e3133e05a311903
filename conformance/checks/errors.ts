import { RequestError, failureKey } from "../failures.js";
import type { Check, CheckContext, HttpExchange, HttpRequest } from "../types.js";
import {
  answer,
  expectErrorEnvelope,
  expectRejected,
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
import { fullToken, itemsOf, listRequest, tokenHolding, validContact } from "../support/data.js";
import { ruleCheck, type RuleRow } from "../support/rows.js";
import { onceSlot } from "../support/shared.js";
import { SECTION } from "../spec/clauses.js";

/** §7's error answers, and the answers to what §4 does not offer (spec-gaps #13–#15, #23, #24, #34, #36). */

const postContactRaw = (
  ctx: CheckContext,
  rawBody: string,
  headers: Record<string, string>,
): HttpRequest => ({
  method: "POST",
  path: ctx.spec.LISTS.contacts.path,
  auth: fullToken(ctx),
  headers,
  rawBody,
});

const JSON_TYPE = { "Content-Type": "application/json" };

interface NearPathAnswer {
  what: string;
  ex: HttpExchange;
}

/** errors.near-paths and errors.reference-near-paths. */
const NEAR_PATHS = onceSlot<readonly NearPathAnswer[]>("the near paths");

/** spec-gaps #34: what a path that is almost an endpoint gets; shared by the PROBE and the REFERENCE. */
function nearPaths(ctx: CheckContext): Promise<readonly NearPathAnswer[]> {
  const token = fullToken(ctx);
  return ctx.shared.get(NEAR_PATHS).get(async () => {
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
      {
        what: "HEAD /api/v1/contacts",
        request: { method: "HEAD", path: ctx.spec.LISTS.contacts.path, auth: token },
      },
    ];
    const out: NearPathAnswer[] = [];
    for (const c of cases) out.push({ what: c.what, ex: await ctx.http.send(c.request) });
    return out;
  });
}

/** A body sent as is, and the marked name or sku that would show it stored. */
interface RawBody {
  what: string;
  path: string;
  text: string;
  /** The name (or sku) a server that took the body would have stored; none for a body that names none. */
  trace?: string;
}

/** A contact body that is valid JSON but for one thing, named so that it can be looked for. */
function malformedBodies(ctx: CheckContext): RawBody[] {
  const name = (n: string): string => `${ctx.marker} malformed ${n}`;
  /** A contact type as JSON text: the bodies are otherwise valid. */
  const type = JSON.stringify(ctx.spec.SAMPLE.contactType);
  const contact = (what: string, text: (name: string) => string): RawBody => ({
    what,
    path: ctx.spec.LISTS.contacts.path,
    text: text(name(what)),
    trace: name(what),
  });
  const priced = (what: string, price: string): RawBody => ({
    what,
    path: ctx.spec.LISTS.products.path,
    text: `{"sku":"${ctx.marker}-malformed-${what.replace(/\W+/g, "-")}","name":"${name(what)}","unitPrice":${price}}`,
    trace: name(what),
  });
  return [
    {
      what: "Truncated JSON",
      path: ctx.spec.LISTS.contacts.path,
      text: `{"type": ${type}, "name": `,
    },
    { what: "Truncated JSON to products", path: ctx.spec.LISTS.products.path, text: '{"sku": ' },
    { what: "An empty body", path: ctx.spec.LISTS.contacts.path, text: "" },
    contact("single quotes", (n) => `{'type': 'CLIENT', 'name': '${n}'}`),
    contact("a trailing comma", (n) => `{"type": ${type}, "name": "${n}",}`),
    contact("a block comment", (n) => `{"type": ${type}, /* a comment */ "name": "${n}"}`),
    contact("a line comment", (n) => `{"type": ${type}, // a comment\n"name": "${n}"}`),
    contact("unquoted keys", (n) => `{type: ${type}, name: "${n}"}`),
    contact("a raw line break in a string", (n) => `{"type": ${type}, "name": "${n}\nx"}`),
    contact("an escape JSON has not", (n) => `{"type": ${type}, "name": "${n} \\x41"}`),
    contact("more after the object", (n) => `{"type": ${type}, "name": "${n}"} x`),
    contact("two objects", (n) => `{"type": ${type}, "name": "${n}"}{"type": ${type}, "name": "${n} 2"}`),
    priced("NaN", "NaN"),
    priced("Infinity", "Infinity"),
    priced("minus Infinity", "-Infinity"),
    priced("a leading zero", "010"),
    priced("a leading plus", "+10"),
    priced("a hexadecimal number", "0x10"),
    priced("a bare fraction", ".5"),
  ];
}

/** JSON that is not the object §4 asks for, some of it holding one a lenient server might unwrap. */
function nonObjectBodies(ctx: CheckContext): RawBody[] {
  const name = (n: string): string => `${ctx.marker} not an object ${n}`;
  const contact = (n: string): string => JSON.stringify({ type: ctx.spec.SAMPLE.contactType, name: name(n) });
  const at = ctx.spec.LISTS.contacts.path;
  return [
    ...["[]", JSON.stringify(ctx.spec.SAMPLE.contactType), "null", "42", "true"].map((text) => ({
      what: `The body ${text}`,
      path: at,
      text,
    })),
    {
      what: "An array holding a valid contact",
      path: at,
      text: `[${contact("array")}]`,
      trace: name("array"),
    },
    {
      what: "A valid contact as a JSON string",
      path: at,
      text: JSON.stringify(contact("string")),
      trace: name("string"),
    },
    {
      what: "A valid contact in the success envelope",
      path: at,
      text: `{"data":${contact("envelope")}}`,
      trace: name("envelope"),
    },
  ];
}

/**
 * Each body gets 400 invalid_request (§7), then one read of each list shows that none was stored:
 * a server that validates after it writes answers 400 and keeps the record.
 */
async function expectRefusedUnstored(ctx: CheckContext, bodies: readonly RawBody[]): Promise<void> {
  const sent: HttpExchange[] = [];
  // Refused whoever sends it: the load falls on tokens holding just the scope, where there are such.
  const listOf = (path: string): "contacts" | "products" =>
    path === ctx.spec.LISTS.products.path ? "products" : "contacts";
  for (const body of bodies) {
    const ex = await ctx.http.send({
      method: "POST",
      path: body.path,
      auth: tokenHolding(ctx, `${listOf(body.path)}:write`),
      headers: JSON_TYPE,
      rawBody: body.text,
    });
    expectRejected(ctx.spec, ex, `${body.what} (POST ${body.path}) must get 400 invalid_request`);
    sent.push(ex);
  }
  for (const list of ["contacts", "products"] as const) {
    const traces = bodies.filter((b) => b.path === ctx.spec.LISTS[list].path && b.trace !== undefined);
    if (traces.length === 0) continue;
    const read = await ctx.http.send(
      listRequest(ctx, list, tokenHolding(ctx, ctx.spec.LISTS[list].scope), {
        limit: String(ctx.spec.MAX.pageMax),
      }),
    );
    const items = itemsOf(read) ?? [];
    const stored = traces.find((b) =>
      items.some((i) => typeof i.name === "string" && i.name.startsWith(b.trace ?? "")),
    );
    if (stored !== undefined) {
      fail(`${stored.what}, refused with 400, was stored all the same (§7)`, {
        key: failureKey("refused, yet stored", list),
        expected: "no record made of a refused body",
        actual: `${list} lists a record named ${JSON.stringify(stored.trace)}`,
        exchange: read,
        evidence: [...sent.filter((ex) => ex.request.rawBody === stored.text), read],
      });
    }
  }
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
      const writer = ctx.tokens.find({
        kind: "scopes",
        scopes: [ctx.spec.file.announced.createInvoice.scope],
      });
      const tokens = writer === undefined || writer.label === full.label ? [full] : [full, writer];
      // A body no invoice endpoint would take (no contact, no lines): nothing gets created even by mistake.
      const json = { description: `${ctx.marker} announced endpoint` };
      for (const token of tokens) {
        for (const path of ctx.spec.ANNOUNCED_POSTS) {
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
        expectErrorEnvelope(
          ex,
          ex.status === ctx.spec.ERRORS.invalidRequest.status
            ? ctx.spec.ERRORS.invalidRequest.code
            : undefined,
          rule,
        );
      }
    },
  },
  {
    id: "errors.body-size",
    section: SECTION.errors,
    clause: "§7.4",
    level: "MUST",
    rule: "A 2 MB body gets 400 or 413, never a 5xx, and the server answers normally afterwards; a target that answers before it has read the whole body and closes the connection (as HTTP allows) is judged on the answer when the kit could read it, and not failed when it could not",
    gap: 15,
    async run(ctx) {
      const head = `{"type":${JSON.stringify(ctx.spec.SAMPLE.contactType)},"name":"${ctx.marker} oversized","address":"`;
      const sent = postContactRaw(ctx, `${head}${"a".repeat(2 * 1024 * 1024)}"}`, JSON_TYPE);
      let ex: HttpExchange | undefined;
      try {
        ex = await ctx.http.send(sent);
      } catch (error) {
        // RFC 9112 §9.6: a server may answer early and close without reading the rest; the close can
        // overtake the answer on the way (a reset discards what the kit had not read yet).
        if (!(error instanceof RequestError) || error.kind !== "network") throw error;
        ctx.observe(
          "connection closed during the body",
          `The target closed the connection while the 2 MB body was being sent (${error.actual}), before the kit could read an answer: not counted against it.`,
        );
      }
      if (ex !== undefined) {
        const rule = "A 2 MB body must be refused with 400 or 413 (spec-gaps #15)";
        expectNot5xx(ex, rule);
        expectStatus(ex, [400, 413], rule);
        expectErrorEnvelope(
          ex,
          ex.status === ctx.spec.ERRORS.invalidRequest.status
            ? ctx.spec.ERRORS.invalidRequest.code
            : undefined,
          rule,
        );
      }
      const after = await ctx.http.send(listRequest(ctx, "contacts", fullToken(ctx), { limit: "1" }));
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
        path: ctx.spec.LISTS.contacts.path,
        auth: fullToken(ctx),
        json: { type: ctx.spec.SAMPLE.contactType },
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
          expectErrorEnvelope(ex, ctx.spec.ERRORS.notFound.code, `${what} must get 404 not_found`);
      }
    },
  },
  {
    id: "errors.malformed-json",
    section: SECTION.errors,
    clause: ["§7.4", "§4.2"],
    level: "MUST",
    rule: "A POST body that is not JSON (truncated, single quotes, trailing commas, comments, unquoted keys, NaN, Infinity, leading zeros or signs, raw control characters, JSON followed by more) gets 400 invalid_request, and nothing is stored",
    gap: 14,
    async run(ctx) {
      await expectRefusedUnstored(ctx, malformedBodies(ctx));
    },
  },
  {
    id: "errors.non-object-json",
    section: SECTION.errors,
    clause: ["§7.4", "§4.2"],
    level: "MUST",
    rule: "A POST body that is JSON but not an object ([], a string, null, a number, true, an array holding a valid object, a valid object as a JSON string) or wraps one in the success envelope gets 400 invalid_request, and nothing is stored",
    gap: 14,
    async run(ctx) {
      await expectRefusedUnstored(ctx, nonObjectBodies(ctx));
    },
  },
];

/** What has no endpoint: one answer expected for each request. */
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
        request: {
          method: "GET",
          path: `${ctx.spec.LISTS.contacts.path}/${ctx.marker}/deeper`,
          auth: fullToken(ctx),
        },
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
    // §1: the operations available are lists and creations; §4: "Other methods (PUT, PATCH, DELETE) have
    // no endpoint: not shown". Refused, then, but with which status is not said (issue 29's audit): 404
    // or 405 is HTTP's answer, and any other refusal passes too.
    level: "MUST",
    rule: "PUT, PATCH and DELETE, which have no endpoint (§1 lists the operations available), are refused in the error envelope, never served: which status is not shown (404 or 405 are HTTP's)",
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
        ...["PUT", "PATCH"].flatMap((m) => [
          to(m, ctx.spec.LISTS.contacts.path),
          to(m, ctx.spec.LISTS.products.path),
        ]),
        ...["PUT", "PATCH", "DELETE"].flatMap((m) => [
          to(m, `${ctx.spec.LISTS.contacts.path}/${absent}`),
          to(m, `${ctx.spec.LISTS.products.path}/${absent}`),
        ]),
        to("DELETE", `${ctx.spec.LISTS.invoices.path}/${absent}`),
        to("DELETE", `${ctx.spec.LISTS.expenses.path}/${absent}`),
      ];
    },
    expect: "refused",
  },
];

export const errorChecks: readonly Check[] = [...checks, ...rows.map(ruleCheck)];
