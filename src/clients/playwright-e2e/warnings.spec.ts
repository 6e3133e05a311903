import { expect, test } from "../playwright.js";

// The fixture's warning when a test's sandbox saw no API request: playwright.test.ts reads the report
// and finds it on these two tests (and on no other test of the run), with what their pages asked.

test.describe("a page that reads its token under another key", () => {
  test.use({ handOff: { storage: "localStorage", urlKey: "apiUrl", tokenKey: "someOtherKey" } });

  test("warns: the page asked the default state, without the sandbox's token", async ({ page }) => {
    await page.goto("/");
    await expect(page.getByRole("alert")).toContainText("Your session has expired");
  });
});

test.describe("a page that reads the API's address under another key", () => {
  test.use({ handOff: { storage: "localStorage", urlKey: "someOtherKey", tokenKey: "apiToken" } });

  test("warns: the page asked another address", async ({ page }) => {
    await page.goto("/");
    await expect(page.getByRole("alert")).toContainText("Could not load contacts (404)");
  });

  test.describe("with warnUnused: false", () => {
    test.use({ warnUnused: false });

    test("does not warn", async ({ page }) => {
      await page.goto("/");
      await expect(page.getByRole("alert")).toContainText("Could not load contacts (404)");
    });
  });
});
