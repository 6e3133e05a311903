import { failureKey, routeOf } from "../failures.js";
import type { Check } from "../types.js";
import {
  charset,
  expectDataArray,
  expectDataObject,
  expectStatus,
  fail,
  snippet,
} from "../support/assert.js";
import { createdContact, createdProduct, firstPage, reader } from "../support/data.js";
import { LIST_NAMES } from "../spec/kit-spec.js";
import { SECTION } from "../spec/clauses.js";

/** §1: the success envelope, `{ "data": ... }`, an array for a list and an object for a POST. */
export const envelopeChecks: readonly Check[] = [
  {
    id: "envelope.list-data-array",
    section: SECTION.service,
    clause: ["§1.6", "§1.3"],
    level: "MUST",
    rule: 'A list answers 200 with a JSON object whose one key "data" is an array',
    async run(ctx) {
      for (const list of LIST_NAMES) {
        const ex = await firstPage(ctx, list, reader(ctx, list));
        const rule = `GET ${list} must answer 200 { "data": [...] }`;
        expectStatus(ex, 200, rule);
        expectDataArray(ex, rule);
      }
    },
  },
  {
    id: "envelope.create-data-object",
    section: SECTION.service,
    clause: ["§1.6", "§1.3", "§4.3"],
    level: "MUST",
    rule: 'A creation answers a JSON object whose one key "data" is an object (contacts and products)',
    gap: 6,
    writes: true,
    async run(ctx) {
      const contact = await createdContact(ctx, "minimal");
      expectStatus(contact.exchange, 201, "POST /api/v1/contacts must answer 201 (§4)");
      expectDataObject(contact.exchange, 'POST /api/v1/contacts must answer { "data": {...} }');
      const product = await createdProduct(ctx, "full");
      // spec-gaps #6: the status and body of a product creation are open; the envelope is not (§1).
      expectStatus(product.exchange, [200, 201], "POST /api/v1/products must succeed");
      expectDataObject(product.exchange, 'POST /api/v1/products must answer { "data": {...} }');
    },
  },
  {
    id: "envelope.utf-8",
    section: SECTION.service,
    clause: "§1.5",
    level: "MUST",
    rule: "Responses are UTF-8: non-ASCII text sent comes back unchanged, and a charset, if named, is utf-8",
    gap: 32,
    writes: true,
    async run(ctx) {
      const { body, exchange } = await createdContact(ctx, "full");
      expectStatus(exchange, 201, "POST /api/v1/contacts must answer 201 (§4)");
      const data = expectDataObject(exchange);
      if (data.name !== body.name) {
        fail("A non-ASCII name must read back unchanged (§1 UTF-8)", {
          key: "non-ASCII name changed",
          expected: JSON.stringify(body.name),
          actual: snippet(JSON.stringify(data.name) ?? "undefined"),
          exchange,
        });
      }
      const cs = charset(exchange);
      if (cs !== undefined && cs !== "utf-8" && cs !== "utf8") {
        fail("The response must be UTF-8 (§1)", {
          key: failureKey(`charset ${cs}`, routeOf(exchange.request, ctx.spec)),
          cause: "response.utf-8",
          expected: "charset=utf-8 or none",
          actual: cs,
          exchange,
        });
      }
    },
  },
];
