import { mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { ManualClock } from "../model/clock.js";
import { defaultFixturesDir } from "../store/fixtures/paths.js";
import { launchChromium, serve } from "./browser.js";
import { testReference, TEST_NOW } from "./reference.js";

/**
 * The README's picture of the token page, taken by Chromium from a reference on a fixed clock:
 * `npm run screenshot` writes docs/token-page.png. A few tokens of Plomberie Boréal are created and
 * used first, so that the page shows each status and some usage.
 */

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const out = join(dirname(defaultFixturesDir()), "docs", "token-page.png");

const clock = new ManualClock(TEST_NOW);
const ref = await testReference({ clock });
const org = "org_boreal";
const use = (id: string, times: number) => {
  for (let i = 0; i < times; i++) {
    clock.advance(7 * MINUTE);
    ref.tokens.recordUse(id);
  }
};

clock.set(new Date(Date.parse(TEST_NOW) - 40 * DAY));
const old = ref.tokens.create({
  organizationId: org,
  name: "Old reporting script",
  scopes: ["invoices:read"],
});
use(old.view.id, 3);
ref.tokens.revoke(old.view.id);
clock.set(new Date(Date.parse(TEST_NOW) - 12 * DAY));
const trial = ref.tokens.create({
  organizationId: org,
  name: "Partner trial",
  scopes: ["contacts:read", "products:read"],
  expiresAt: new Date(Date.parse(TEST_NOW) - 2 * DAY),
});
use(trial.view.id, 18);
clock.set(new Date(Date.parse(TEST_NOW) - 3 * DAY));
const sync = ref.tokens.create({
  organizationId: org,
  name: "Invoice sync (staging)",
  scopes: ["contacts:read", "invoices:read", "expenses:read"],
  expiresAt: new Date("2027-05-31T00:00:00.000Z"),
});
use(sync.view.id, 42);
clock.set(TEST_NOW);

const server = await serve(ref.app);
const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  await page.goto(`${server.baseUrl}/settings/api-tokens`);
  await page.getByRole("combobox", { name: "Organization" }).selectOption(org);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: /^Tokens of / }).waitFor();
  await mkdir(dirname(out), { recursive: true });
  await page.screenshot({ path: out, fullPage: true });
  console.log(`wrote ${out}`);
} finally {
  await browser.close();
  await server.close();
}
