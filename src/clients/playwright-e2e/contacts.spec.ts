import { expect, test } from "../playwright.js";

// The package's own suite, run by playwright.test.ts with 4 workers on one reference through the
// guide's playwright.config.ts: no spec file hands the token to the page itself, the config's
// `handOff` does it for every test of every file. Each test here adds a contact through the app and
// leaves it behind: on a shared state, every other test would see it in its list.

test.describe.configure({ mode: "parallel" });

for (let i = 0; i < 8; i++) {
  test(`a contact added by test ${i} is seen by it alone`, async ({ page, sandbox }) => {
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
  });
}
