import { expect, test } from "../playwright.js";

// What the journal of a sandbox holds when a browser page uses the API, and what it cannot hold.

test.describe.configure({ mode: "parallel" });

test("the page's requests are in its sandbox's journal, their pre-flights in the default state's", async ({
  page,
  sandbox,
  control,
}) => {
  const [latest] = await control.journal({ limit: 1 });
  await page.goto("/");
  await page.getByLabel("Name").fill("Journal");
  await page.getByRole("button", { name: "Add" }).click();
  const sent = await sandbox.waitForRequest({ method: "POST", path: "/api/v1/contacts" });
  expect(sent).toMatchObject({ status: 201, token: "lumiere-full" });
  expect(JSON.parse(sent.requestBody?.text ?? "")).toEqual({ type: "CLIENT", name: "Journal" });
  // A pre-flight carries no token: no sandbox can be told from it, so the default state answers it.
  expect(await sandbox.journal({ method: "OPTIONS" })).toEqual([]);
  const preflight = await control.waitForRequest({
    method: "OPTIONS",
    path: "/api/v1/contacts",
    ...(latest === undefined ? {} : { after: latest.seq }),
  });
  expect(preflight).toMatchObject({ status: 204, token: null, organization: null });
});

test("records seeded under the fixture's organization id are the sandbox's", async ({ page, sandbox }) => {
  const none = { email: null, phone: null, address: null, taxNumberTPS: null, taxNumberTVQ: null };
  await sandbox.addRecords({
    contacts: [{ organizationId: "org_lumiere", type: "SUPPLIER", name: "Seeded supplier", ...none }],
  });
  await page.goto("/");
  await expect(page.getByRole("listitem").filter({ hasText: "Seeded supplier" })).toHaveCount(1);
  const [read] = await sandbox.journal({ method: "GET", path: "/api/v1/contacts" });
  expect(read?.organization).toBe(sandbox.organizations["org_lumiere"]);
});
