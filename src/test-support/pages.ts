import request from "supertest";
import { expect } from "vitest";
import type { TestReference } from "./reference.js";

/** The pages through supertest: a browser's cookies (an agent), and what a test reads off the HTML. */

export const TOKENS_PATH = "/settings/api-tokens";
export const NEW_TOKEN_PATH = "/settings/api-tokens/new";
export const CREATED_PATH = "/settings/api-tokens/created";
export const ORGANIZATION_PATH = "/settings/organization";

/** The CSRF token of the first form of a page. */
export function csrfOf(html: string): string {
  const token = /name="_csrf" value="([^"]+)"/.exec(html)?.[1];
  if (token === undefined) throw new Error("no CSRF field on the page");
  return token;
}

/** The clear token a created page shows, if it shows one. */
export const shownSecret = (html: string): string | undefined =>
  /id="new-token"[^>]*>([^<]+)</.exec(html)?.[1];

export interface Browser {
  agent: request.Agent;
  csrf: string;
}

/** A browser that has opened the token page and chosen an organization (or none). */
export async function openBrowser(ref: TestReference, organization?: string): Promise<Browser> {
  const agent = request.agent(ref.app);
  const page = await agent.get(TOKENS_PATH);
  expect(page.status).toBe(200);
  const csrf = csrfOf(page.text);
  if (organization !== undefined) {
    const res = await agent.post(ORGANIZATION_PATH).type("form").send({ _csrf: csrf, organization });
    expect(res.status).toBe(303);
  }
  return { agent, csrf };
}

export interface NewTokenFields {
  name?: string | string[];
  scopes?: string | string[];
  expiresOn?: string;
}

/** Submits the new-token form; on success follows the redirect and returns the token shown. */
export async function createThroughPage(
  browser: Browser,
  fields: NewTokenFields,
): Promise<{ secret: string; page: request.Response }> {
  const res = await browser.agent
    .post(TOKENS_PATH)
    .type("form")
    .send({ _csrf: browser.csrf, ...fields });
  expect(res.status, res.text.slice(0, 500)).toBe(303);
  expect(res.headers.location).toBe(CREATED_PATH);
  const page = await browser.agent.get(CREATED_PATH);
  expect(page.status).toBe(200);
  const secret = shownSecret(page.text);
  if (secret === undefined) throw new Error("the created page shows no token");
  return { secret, page };
}

/** The `<tr>` of a token in the list, by its id. */
export function rowOf(html: string, tokenId: string): string {
  const row = new RegExp(`<tr data-token-id="${tokenId}">.*?</tr>`, "s").exec(html)?.[0];
  if (row === undefined) throw new Error(`no row for ${tokenId}`);
  return row;
}
