import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testReference, type TestReference } from "../../test-support/reference.js";
import { docsRouter } from "./docs.js";

/**
 * The docs page in a real browser (Debian's Chromium, driven by playwright-core), with every request
 * that is not to the test server aborted and recorded: the page must load and "try it" must work
 * without one. CI installs Chromium (.ci/run); elsewhere the test is skipped when it is missing.
 */

const CHROMIUM = "/usr/bin/chromium";
const available = existsSync(CHROMIUM) || process.env.CI !== undefined;

describe.skipIf(!available)("the docs page in Chromium, offline", () => {
  let ref: TestReference;
  let server: Server;
  let origin: string;
  let browser: Browser;

  beforeAll(async () => {
    ref = await testReference();
    // The docs beside the API, as the pages door and the API door will share one origin.
    const app = express()
      .use(docsRouter({ tryItToken: ref.token("lumiere-full") }))
      .use(ref.app);
    server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        "--no-sandbox",
        "--headless",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  it("loads, lists every operation and runs GET /api/v1/contacts with the fixture token", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const outside: string[] = [];
    const problems: string[] = [];
    await page.route("**/*", async (route) => {
      const url = route.request().url();
      if (new URL(url).origin === origin) {
        await route.continue();
      } else {
        outside.push(url);
        await route.abort("blockedbyclient");
      }
    });
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(message.text());
    });
    page.on("pageerror", (error) => problems.push(error.message));

    await page.goto(`${origin}/docs`);
    await page.locator(".info .title", { hasText: "Accounting API" }).waitFor({ timeout: 20_000 });
    expect(await page.locator(".opblock").count()).toBe(8);
    expect(await page.locator(".opblock-summary-path").allInnerTexts()).toContain("/api/v1/contacts");

    const listContacts = page.locator("#operations-Contacts-listContacts");
    await listContacts.locator(".opblock-summary").click();
    await listContacts.locator("button.execute").click();
    const response = listContacts.locator(".live-responses-table tbody .response").first();
    await response.waitFor({ timeout: 10_000 });
    expect((await response.locator(".response-col_status").innerText()).trim()).toBe("200");
    const body = await response.locator(".response-col_description").innerText();
    expect(body).toContain('"data"');
    expect(body).toContain('"type"');

    await page.screenshot({ path: "/tmp/docs-page.png", fullPage: false });
    await context.close();
    expect(outside, "requests to anywhere but the test server").toEqual([]);
    expect(problems, "console errors and page errors").toEqual([]);
  }, 60_000);
});
