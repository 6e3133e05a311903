import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, serve, type Served } from "../../test-support/browser.js";
import { testReference } from "../../test-support/reference.js";

/**
 * The docs page and the other pages in a real browser (Debian's Chromium, driven by playwright-core),
 * with every request that is not to the test server aborted and recorded: the pages must load, and
 * "try it" must work, without one. CI installs Chromium (.ci/run).
 */

describe("the docs page and the pages in Chromium, offline", () => {
  let server: Served;
  let browser: Browser;

  beforeAll(async () => {
    const ref = await testReference();
    server = await serve(ref.app);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  /** A page that may ask only the test server, with what it asked elsewhere and its console errors. */
  async function open(viewport = { width: 1280, height: 800 }) {
    const context: BrowserContext = await browser.newContext({ viewport });
    const page: Page = await context.newPage();
    const outside: string[] = [];
    const problems: string[] = [];
    await page.route("**/*", async (route) => {
      const url = route.request().url();
      if (new URL(url).origin === server.baseUrl) {
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
    return { context, page, outside, problems };
  }

  async function openDocs(viewport?: { width: number; height: number }) {
    const opened = await open(viewport);
    await opened.page.goto(`${server.baseUrl}/docs`);
    await opened.page.locator(".info .title", { hasText: "Accounting API" }).waitFor({ timeout: 20_000 });
    return opened;
  }

  it("runs Execute on every operation with the document's example and gets the documented answer", async () => {
    const { context, page, outside, problems } = await openDocs();
    const blocks = page.locator(".opblock");
    expect(await blocks.count()).toBe(8);
    const answers: Record<string, string> = {};
    for (const block of await blocks.all()) {
      const id = (await block.getAttribute("id")) ?? "";
      await block.locator(".opblock-summary").first().click();
      await block.locator("button.execute").click();
      const response = block.locator(".live-responses-table tbody .response").first();
      await response.waitFor({ timeout: 15_000 });
      answers[id.replace(/^operations-\w+-/, "")] = (
        await response.locator(".response-col_status").innerText()
      ).trim();
    }
    expect(answers).toEqual({
      listContacts: "200",
      createContact: "201",
      listProducts: "200",
      createProduct: "201",
      listInvoices: "200",
      createInvoice: "404",
      listExpenses: "200",
      createExpense: "404",
    });
    await context.close();
    expect(outside, "requests to anywhere but the test server").toEqual([]);
    // Chromium logs every 4xx a script fetches: the two announced operations' documented 404s.
    expect(problems, "console errors and page errors").toEqual([
      "Failed to load resource: the server responded with a status of 404 (Not Found)",
      "Failed to load resource: the server responded with a status of 404 (Not Found)",
    ]);
  }, 90_000);

  it("fits 360 px with every operation expanded, and links back to the other pages", async () => {
    const { context, page, problems } = await openDocs({ width: 360, height: 740 });
    for (const summary of await page.locator(".opblock-summary").all()) await summary.click();
    await page.locator(".opblock-body").nth(7).waitFor();
    const width = await page.evaluate<number>("document.documentElement.scrollWidth");
    expect(width, "the page's width, every operation open").toBeLessThanOrEqual(360);
    await page.getByRole("link", { name: "API tokens" }).click();
    await page.getByRole("heading", { name: "API tokens" }).waitFor();
    await context.close();
    expect(problems).toEqual([]);
  }, 60_000);

  it.each(["/", "/settings/api-tokens", "/settings/api-tokens/new", "/docs"])(
    "logs no error in the console on %s (its favicon included)",
    async (path) => {
      const { context, page, outside, problems } = await open();
      await page.goto(`${server.baseUrl}${path}`, { waitUntil: "networkidle" });
      await context.close();
      expect(outside).toEqual([]);
      expect(problems).toEqual([]);
    },
    60_000,
  );
});
