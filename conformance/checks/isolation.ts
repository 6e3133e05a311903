import type { Check, CheckContext } from "../types.js";
import { expectErrorEnvelope, expectStatus, fail, snippet, type JsonObject } from "./assert.js";
import { createdContact, createdProduct, dataObject, fullToken, locate, requireCreated } from "./data.js";
import { LISTS, SECTION, type ListName } from "./spec.js";

/**
 * §1: "A token only reaches data of its own organization." Organization 0 creates; organization 1
 * must never see it. Ids are compared only with the records the run created: two organizations may
 * well number their own records alike.
 */

async function expectUnseen(
  ctx: CheckContext,
  list: ListName,
  what: string,
  match: (item: JsonObject) => boolean,
): Promise<void> {
  const other = fullToken(ctx, 1);
  const located = await locate(ctx, list, other, match);
  if (located.found !== undefined) {
    fail(`${what}, created by organization 0, is listed to organization 1 (§1)`, {
      expected: `${what} absent from organization 1's ${list}`,
      actual: snippet(JSON.stringify(located.found)),
      exchange: located.exchange,
    });
  }
  expectStatus(located.exchange, 200, `GET ${list} with organization 1's token must answer 200`);
  if (!located.exhaustive) {
    ctx.observe(
      `Organization 1's ${list} were searched for ${what} on ${located.pages} page(s), not to their end.`,
    );
  }
}

export const isolationChecks: readonly Check[] = [
  {
    id: "isolation.contacts",
    section: SECTION.service,
    level: "MUST",
    rule: "Contacts created with one organization's token never appear in another organization's list",
    writes: true,
    async run(ctx) {
      // Skips before creating anything when the manifest has no second organization.
      fullToken(ctx, 1);
      for (const variant of ["minimal", "full"] as const) {
        const { body, exchange } = await createdContact(ctx, variant);
        requireCreated(ctx, exchange, `the ${variant} contact`, "contacts.create-response");
        const id = dataObject(exchange)?.id;
        await expectUnseen(
          ctx,
          "contacts",
          `the contact "${String(body.name)}"`,
          (item) => item.name === body.name || (id !== undefined && item.id === id),
        );
      }
    },
  },
  {
    id: "isolation.products",
    section: SECTION.service,
    level: "MUST",
    rule: "Products created with one organization's token never appear in another organization's list",
    writes: true,
    async run(ctx) {
      // Skips before creating anything when the manifest has no second organization.
      fullToken(ctx, 1);
      const { draft, exchange } = await createdProduct(ctx, "full");
      requireCreated(ctx, exchange, "the product", "products.create");
      await expectUnseen(
        ctx,
        "products",
        `the product with sku "${draft.sku}"`,
        (item) => item.sku === draft.sku || item.name === draft.name,
      );
    },
  },
  {
    id: "isolation.foreign-id",
    section: SECTION.service,
    level: "MUST",
    rule: "Another organization's record, addressed by its id, is not found: 404 (or 405 where no such endpoint exists)",
    gap: 23,
    writes: true,
    async run(ctx) {
      const owner = fullToken(ctx, 0);
      const other = fullToken(ctx, 1);
      const { exchange } = await createdContact(ctx, "minimal");
      requireCreated(ctx, exchange, "the contact", "contacts.create-response");
      const id = dataObject(exchange)?.id;
      if (typeof id !== "string" || id === "") return ctx.skip("the contact creation answered no id");
      const path = `${LISTS.contacts.path}/${encodeURIComponent(id)}`;
      const own = await ctx.http.send({ method: "GET", path, auth: owner });
      ctx.observe(`GET ${LISTS.contacts.path}/<id> by the owning organization answers ${own.status}.`);
      const foreign = await ctx.http.send({ method: "GET", path, auth: other });
      const rule = "Another organization's contact must be reported as not found (§1)";
      expectStatus(foreign, [404, 405], rule);
      expectErrorEnvelope(foreign, foreign.status === 404 ? "not_found" : undefined, rule);
    },
  },
];
