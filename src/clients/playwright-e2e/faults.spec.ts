import { expect, test } from "../playwright.js";

// Each test starts from a working API at the sandbox's start instant, then leaves behind what would
// break every other worker's test on a shared state: a fault on the app's own read that holds until
// cleared, and a clock two days on (lumiere-expires-tomorrow expired).

test.describe.configure({ mode: "parallel" });

for (let i = 0; i < 8; i++) {
  test(`a fault and a clock move of test ${i} reach no other test`, async ({ page, sandbox }) => {
    await page.goto("/");
    await expect(page.locator("#contacts")).toHaveAttribute("data-loaded", /\d+/);
    await expect(page.getByRole("alert")).toBeHidden();
    expect((await sandbox.clock()).now).toMatch(/^2026-11-20T/);
    expect(await sandbox.faults()).toEqual([]);
    await sandbox.addFault({ method: "GET", path: "/api/v1/contacts", status: 500, untilCleared: true });
    await sandbox.advanceClock("P2D");
    await page.reload();
    await expect(page.getByRole("alert")).toContainText("Could not load contacts (500)");
  });
}
