import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../../src/test-support/browser.js";
import { runVariant } from "../test-support/variants/harness.js";
import { limit200Refused } from "../test-support/variants/lists.js";
import type { RunReport } from "../types.js";
import { renderHtmlReport } from "./html.js";

/**
 * The HTML report as a person reads it, in Debian's Chromium (playwright-core, no browser download):
 * a run with exactly one failure (a target refusing limit=200, with --grep keeping four checks that
 * pass or observe beside lists.page-max) shows that failure above the first passing check, with its
 * clauses, the spec's words for them, the exchange and the curl command; a full-width digit the kit
 * sent draws with the report's own font, on a machine that has no CJK font of its own.
 */

const GREP =
  "^(coverage\\.limit-open|auth\\.revoked-token|auth\\.missing-token|errors\\.unknown-paths|lists\\.page-max)$";

describe("the HTML report of a run with one failure, in Chromium", () => {
  let browser: Browser;
  let page: Page;
  let report: RunReport;

  beforeAll(async () => {
    ({ report } = await runVariant(limit200Refused, { grep: GREP }));
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.setContent(renderHtmlReport([{ file: "one-failure.json", report }]));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
  });

  it("is a run with exactly one failure, and passing checks", () => {
    expect(report.results.filter((r) => r.outcome === "fail").map((r) => r.id)).toEqual(["lists.page-max"]);
    expect(report.results.filter((r) => r.outcome === "pass").length).toBeGreaterThanOrEqual(3);
  });

  it("shows the failure above the first passing check", async () => {
    const failure = page.locator("section.failure");
    await expect(failure.count()).resolves.toBe(1);
    const firstPass = page.locator("table.checks td.pass").first();
    const [f, p] = await Promise.all([failure.boundingBox(), firstPass.boundingBox()]);
    expect(f).not.toBeNull();
    expect(p).not.toBeNull();
    expect((f?.y ?? 0) + (f?.height ?? 0)).toBeLessThan(p?.y ?? 0);
    // The first screen a reader sees holds the failure's heading.
    expect(f?.y ?? Number.POSITIVE_INFINITY).toBeLessThan(900);
  });

  it("shows the clause, the spec's sentence, the rule, the exchange and the curl command, as text", async () => {
    const failure = page.locator("section.failure");
    const text = await failure.innerText();
    expect(text).toContain("lists.page-max");
    expect(text).toContain("§8.2");
    expect(text).toContain("Page size (limit) · default 50, min 1, max 200");
    expect(text).toContain("§4 Pagination.1");
    expect(text).toContain("A list returns at most `limit` items (default 50, max 200).");
    expect(text).toContain("Rule: A list holding more than 200 items answers limit=200 with 200");
    const exchange = await failure.locator("pre.exchange").innerText();
    expect(exchange).toMatch(/^GET \/api\/v1\/contacts\?limit=200\n/);
    expect(exchange).toContain("HTTP 400");
    expect(exchange).toContain("limit must be below 200");
    expect(exchange).not.toMatch(/acct_[A-Za-z0-9]{20}/);
    const curl = await failure.locator("pre.curl").innerText();
    expect(curl).toMatch(/^curl -sS -i '?http:\/\/127\.0\.0\.1:\d+\/api\/v1\/contacts\?limit=200/);
    expect(curl).toContain("${TOKEN}");
    for (const part of [failure.locator("blockquote.spec").first(), failure.locator("pre.curl")])
      await expect(part.isVisible()).resolves.toBe(true);
  });

  it("gives every skipped or observed check's row its reason and rule as text, not a tooltip", async () => {
    await expect(page.locator("[title]").count()).resolves.toBe(0);
    const row = page.locator("table.checks tr", { hasText: "lists.page-max" });
    await expect(row.innerText()).resolves.toContain("A list holding more than 200 items");
  });

  it("draws the full-width digit the kit sent (limit=９) with the report's own font", async () => {
    // A string, evaluated in the page: this project's TypeScript has no DOM library.
    const marked = await page.evaluate<boolean>(`(() => {
      const cell = [...document.querySelectorAll("td")].find((td) => td.textContent.includes("\\uFF19"));
      cell?.setAttribute("data-fullwidth", "");
      return cell !== undefined;
    })()`);
    expect(marked).toBe(true);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("DOM.enable");
    await cdp.send("CSS.enable");
    const { root } = await cdp.send("DOM.getDocument", { depth: -1 });
    const { nodeId } = await cdp.send("DOM.querySelector", {
      nodeId: root.nodeId,
      selector: "[data-fullwidth]",
    });
    const { fonts } = await cdp.send("CSS.getPlatformFontsForNode", { nodeId });
    // The embedded subset drew it: a custom (web) font, glyphs counted; no system font here has U+FF19.
    expect(fonts.filter((f) => f.isCustomFont && f.glyphCount > 0)).toHaveLength(1);
    await cdp.detach();
  });
});
