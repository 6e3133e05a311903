import { expect, test } from "../playwright.js";

// Run by playwright.test.ts with 4 workers on one reference: each test adds a contact through the
// app, counts the list, then leaves behind what would break every other worker on a shared state (a
// fault that holds until cleared on the app's own read, a clock two days on). With sandboxes, no
// other test ever sees any of it.

test.describe.configure({ mode: "parallel" });

/** The page's, in the browser (the project's types have no DOM). */
declare const localStorage: { setItem(key: string, value: string): void };

test.beforeEach(async ({ page, referenceUrl, token }) => {
  await page.addInitScript(
    ({ apiUrl, apiToken }) => {
      localStorage.setItem("apiUrl", apiUrl);
      localStorage.setItem("apiToken", apiToken);
    },
    { apiUrl: referenceUrl, apiToken: token },
  );
});

for (let i = 0; i < 16; i++) {
  test(`isolation ${i}`, async ({ page, sandbox }) => {
    await page.goto("/");
    const list = page.locator("#contacts");
    await expect(list).toHaveAttribute("data-loaded", /\d+/);
    const before = Number(await list.getAttribute("data-loaded"));
    const name = `Isolation ${i} ${sandbox.id}`;
    await page.getByLabel("Name").fill(name);
    await page.getByRole("button", { name: "Add" }).click();
    await expect(list).toHaveAttribute("data-loaded", String(before + 1));
    await expect(page.getByRole("listitem").filter({ hasText: "Isolation" })).toHaveText([name]);
    await expect(page.getByRole("alert")).toBeHidden();
    expect((await sandbox.clock()).now).toMatch(/^2026-11-20T/);
    // What would break the others, were they sharing this state.
    await sandbox.addFault({ method: "GET", path: "/api/v1/contacts", status: 500, untilCleared: true });
    await sandbox.advanceClock("P2D");
    await page.reload();
    await expect(page.getByRole("alert")).toContainText("Could not load contacts (500)");
  });
}
