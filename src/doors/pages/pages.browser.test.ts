import type { Browser, BrowserContext, Dialog, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { launchChromium, serve, type Served } from "../../test-support/browser.js";
import { testReference, type TestReference } from "../../test-support/reference.js";

/**
 * The journeys of §5's web interface in Chromium: one browser for the file, a fresh reference,
 * server and browser context (cookies) for each test. The reference's clock only moves when a test
 * moves it.
 */

const ATTACKER = "evil.example";
/**
 * Safety nets, not measures: a step takes well under a second here, but the whole suite shares two
 * cores with Chromium, so a slow step must not fail a journey.
 */
const ACTION_TIMEOUT_MS = 15_000;
const JOURNEY_TIMEOUT_MS = 90_000;
const XSS = "<img src=x onerror=alert(1)>";

let browser: Browser;
let ref: TestReference;
let server: Served;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  browser = await launchChromium({ resolve: [ATTACKER] });
  // One context (a browser profile) for the file, its cookies cleared before each test: a new
  // context costs about half a second on a busy machine.
  context = await browser.newContext();
  context.setDefaultTimeout(ACTION_TIMEOUT_MS);
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  page = await context.newPage();
}, JOURNEY_TIMEOUT_MS);
afterAll(async () => {
  await browser.close();
});

beforeEach(async () => {
  ref = await testReference();
  server = await serve(ref.app);
  await context.clearCookies();
  await page.setViewportSize({ width: 1280, height: 800 });
});
afterEach(async () => {
  page.removeAllListeners("dialog");
  await server.close();
});

/** A page of the reference under test. */
const at = (path: string): string => `${server.baseUrl}${path}`;

const api = (path: string, secret: string) =>
  fetch(`${server.baseUrl}${path}`, { headers: { Authorization: `Bearer ${secret}` } });

async function signIn(p: Page, organization = "Studio Lumière inc. (org_lumiere)"): Promise<void> {
  await p.goto(at("/settings/api-tokens"));
  await p.getByRole("combobox", { name: "Organization" }).selectOption({ label: organization });
  await p.getByRole("button", { name: "Sign in" }).click();
  await p.getByRole("heading", { name: /^Tokens of / }).waitFor();
}

/** Fills the new-token form from the keyboard: each control found by its label, as a screen reader would. */
async function createToken(
  p: Page,
  fields: { name: string; scopes: readonly string[]; expiresOn?: string },
): Promise<void> {
  await p.getByRole("link", { name: "New token" }).click();
  await p.getByRole("textbox", { name: "Name" }).fill(fields.name);
  for (const scope of fields.scopes) {
    await p.getByRole("checkbox", { name: scope, exact: true }).press("Space");
  }
  if (fields.expiresOn !== undefined) await p.getByLabel("Expiry date").fill(fields.expiresOn);
  await p.getByRole("button", { name: "Create token" }).press("Enter");
  await p.waitForURL("**/settings/api-tokens/created");
}

/** The text of a token's row in the list. */
const row = (p: Page, name: string) =>
  p.locator("tbody tr").filter({ has: p.locator(".token-name").getByText(name, { exact: true }) });

describe("the token pages in Chromium", { timeout: JOURNEY_TIMEOUT_MS }, () => {
  it("create with two scopes, use, reload, revoke: the whole life of a token", async () => {
    await signIn(page);
    await createToken(page, { name: "CI export", scopes: ["contacts:read", "products:read"] });

    const secret = (await page.locator("#new-token").textContent())?.trim() ?? "";
    expect(secret).toMatch(/^acct_[0-9A-Za-z]{40}$/);
    expect(await page.getByText("it will not be shown again").isVisible()).toBe(true);
    await page.getByRole("button", { name: "Copy token" }).click();
    await page.getByText("Copied to the clipboard.").waitFor();
    expect(await page.evaluate<string>("navigator.clipboard.readText()")).toBe(secret);

    expect((await api("/api/v1/contacts", secret)).status).toBe(200);
    expect((await api("/api/v1/invoices", secret)).status).toBe(403);

    // The back button, from the list to the page that showed the token: it is not shown again.
    await page.getByRole("link", { name: "Back to API tokens" }).click();
    await page.goBack();
    expect(page.url()).toBe(at("/settings/api-tokens"));
    expect(await page.content()).not.toContain(secret);

    const created = row(page, "CI export");
    expect(await created.locator('[data-label="Requests"]').textContent()).toBe("2");
    expect(await created.locator('[data-label="Last used"]').textContent()).toBe("2026-11-20 12:00 UTC");
    expect(await created.locator('[data-label="Status"]').textContent()).toBe("Active");

    // Dismissed (Playwright dismisses a dialog nobody accepts): nothing changes.
    await created.getByRole("link", { name: "Revoke CI export" }).click();
    expect(page.url()).toBe(at("/settings/api-tokens"));
    expect((await api("/api/v1/contacts", secret)).status).toBe(200);

    const asked: string[] = [];
    page.once("dialog", (dialog: Dialog) => {
      asked.push(dialog.message());
      void dialog.accept();
    });
    await created.getByRole("link", { name: "Revoke CI export" }).click();
    await page.getByText("“CI export” is revoked").waitFor();
    expect(asked[0]).toContain("Revoke the token “CI export”?");
    const answer = await api("/api/v1/contacts", secret);
    expect(answer.status).toBe(401);
    expect(((await answer.json()) as { error: { code: string } }).error.code).toBe("unauthorized");
    expect(await row(page, "CI export").locator('[data-label="Status"]').textContent()).toBe("Revoked");
    expect(
      await row(page, "CI export")
        .getByRole("link", { name: /Revoke/ })
        .count(),
    ).toBe(0);
  });

  it("shows Expired once the reference's clock passes the expiry date, and the API says 401", async () => {
    await signIn(page);
    await createToken(page, { name: "Short-lived", scopes: ["contacts:read"], expiresOn: "2026-11-21" });
    const secret = (await page.locator("#new-token").textContent())?.trim() ?? "";
    // A reload of the page that showed the token: the list, without it.
    await page.reload();
    expect(page.url()).toBe(at("/settings/api-tokens"));
    expect(await page.content()).not.toContain(secret);
    const status = row(page, "Short-lived").locator('[data-label="Status"]');
    expect(await status.textContent()).toBe("Active");
    expect(await row(page, "Short-lived").locator('[data-label="Expires"]').textContent()).toBe(
      "2026-11-21 00:00 UTC",
    );

    ref.control.setClock({ advance: "P2D" });
    await page.reload();
    expect(await status.textContent()).toBe("Expired");
    expect((await api("/api/v1/contacts", secret)).status).toBe(401);
  });

  it("shows a name made of HTML as text, and runs none of it", async () => {
    const alerts: string[] = [];
    page.on("dialog", (dialog: Dialog) => {
      alerts.push(`${dialog.type()}: ${dialog.message()}`);
      void dialog.dismiss();
    });
    await signIn(page);
    await createToken(page, { name: XSS, scopes: ["contacts:read"] });
    expect(await page.getByRole("heading", { name: `Your new token “${XSS}”` }).isVisible()).toBe(true);
    await page.getByRole("link", { name: "Back to API tokens" }).click();
    expect(await row(page, XSS).count()).toBe(1);
    expect(await page.locator("main img").count()).toBe(0);
    await row(page, XSS)
      .getByRole("link", { name: `Revoke ${XSS}` })
      .click();
    expect(alerts).toEqual([expect.stringContaining(`confirm: Revoke the token “${XSS}”?`)]);
  });

  it("refuses a form sent by another site's page, and creates nothing", async () => {
    await signIn(page);
    const before = ref.tokens.list("org_lumiere").length;
    const attacker = await serve((_req, res) => {
      res.setHeader("Content-Type", "text/html; charset=utf-8");
      res.end(`<!doctype html><title>Free prizes</title>
        <form method="post" action="${server.baseUrl}/settings/api-tokens">
          <input name="name" value="pwned"><input name="scopes" value="contacts:write">
        </form>
        <script>document.forms[0].submit()</script>`);
    });
    try {
      const answer = page.waitForResponse(`${server.baseUrl}/settings/api-tokens`);
      await page.goto(`http://${ATTACKER}:${attacker.port}/`);
      expect((await answer).status()).toBe(403);
      await page.getByRole("heading", { name: "Refused" }).waitFor();
    } finally {
      await attacker.close();
    }
    expect(ref.tokens.list("org_lumiere")).toHaveLength(before);
    expect(ref.tokens.list("org_lumiere").some((t) => t.name === "pwned")).toBe(false);
  });

  it("refuses the pages under another site's name (DNS rebinding)", async () => {
    const res = await page.goto(`http://${ATTACKER}:${server.port}/settings/api-tokens`);
    expect(res?.status()).toBe(403);
    expect(await page.getByRole("heading", { name: "Refused" }).isVisible()).toBe(true);
  });

  it("works without JavaScript: create, then revoke through the confirmation page", async () => {
    const plain = await browser.newContext({ javaScriptEnabled: false });
    plain.setDefaultTimeout(ACTION_TIMEOUT_MS);
    try {
      const p = await plain.newPage();
      await signIn(p);
      await createToken(p, { name: "No script", scopes: ["expenses:read"] });
      expect(await p.locator("#new-token").textContent()).toMatch(/^acct_/);
      expect(await p.getByRole("button", { name: "Copy token" }).isVisible()).toBe(false);
      await p.getByRole("link", { name: "Back to API tokens" }).click();
      await row(p, "No script").getByRole("link", { name: "Revoke No script" }).click();
      await p.getByRole("heading", { name: "Revoke “No script”?" }).waitFor();
      await p.getByRole("button", { name: "Revoke token" }).click();
      await p.getByText("“No script” is revoked").waitFor();
      expect(await row(p, "No script").locator('[data-label="Status"]').textContent()).toBe("Revoked");
    } finally {
      await plain.close();
    }
  });

  it("reads at 360 px wide without sideways scrolling, every control labelled", async () => {
    await page.setViewportSize({ width: 360, height: 740 });
    await signIn(page);
    for (const path of ["/", "/settings/api-tokens", "/settings/api-tokens/new"]) {
      await page.goto(at(path));
      const width = await page.evaluate<number>("document.documentElement.scrollWidth");
      expect(width, path).toBeLessThanOrEqual(360);
      // Chromium's accessibility tree: a control without a computed name shows as a bare role.
      const tree = await page.locator("body").ariaSnapshot();
      expect(tree, path).not.toMatch(/^\s*- (textbox|checkbox|combobox|button|link)(:|\s*\[|\s*$)/m);
    }
    const scopes = ["contacts", "products", "invoices", "expenses"].flatMap((r) => [
      `${r}:read`,
      `${r}:write`,
    ]);
    for (const scope of scopes) {
      expect(await page.getByRole("checkbox", { name: scope, exact: true }).count(), scope).toBe(1);
    }
  });
});
