import { test as base } from "@playwright/test";
import { ControlClient, ControlError, type SandboxClient } from "./control.js";

/**
 * A Playwright fixture (`accounting-api-reference/playwright`): every test gets a sandbox of the
 * reference of its own, so that parallel workers never meet each other's records, clock, faults,
 * journal or rate-limit counters on one server. `@playwright/test` is an optional peer dependency:
 * only this entry needs it.
 *
 *   import { test, expect } from "accounting-api-reference/playwright";
 *   test("…", async ({ page, sandbox }) => { sandbox.tokens["lumiere-full"]; await sandbox.addFault(…); });
 */

/** Set in `use` of playwright.config.ts (or left to their environment variables). */
export interface ReferenceOptions {
  /** The reference's base URL; `REFERENCE_URL`, else http://127.0.0.1:4010. */
  referenceUrl: string;
  /** The control key the reference was started with (`--control-key`); `REFERENCE_CONTROL_KEY`. */
  controlKey: string;
  /**
   * `worker` (default): one sandbox per worker, reset to the fixtures (clock included) before each
   * test. `test`: a new sandbox for every test, deleted after it.
   */
  sandboxPer: "worker" | "test";
  /** Where a sandbox's clock starts (an ISO 8601 instant); the reference's start instant by default. */
  sandboxNow: string | undefined;
  /** The label of the token `token` hands to the test; `lumiere-full` by default. */
  tokenLabel: string;
}

export interface ReferenceFixtures {
  /** This test's sandbox: its tokens by label, and the control surface's operations on it alone. */
  sandbox: SandboxClient;
  /** The token of `tokenLabel` in this test's sandbox. */
  token: string;
  /** The whole control surface (the default state, every sandbox): rarely needed in a test. */
  control: ControlClient;
}

interface WorkerFixtures extends ReferenceOptions {
  /** The worker's sandbox, when `sandboxPer` is `worker`. */
  workerSandbox: SandboxClient | undefined;
}

const controlOf = (referenceUrl: string, controlKey: string): ControlClient => {
  if (controlKey === "") {
    throw new Error(
      "accounting-api-reference/playwright: no control key; set use.controlKey in playwright.config.ts or REFERENCE_CONTROL_KEY, and start the reference with the same --control-key",
    );
  }
  return new ControlClient({ baseUrl: referenceUrl, key: controlKey });
};

/** Deletes a sandbox, unless it has already gone (deleted by the test, or ended for being idle). */
async function remove(sandbox: SandboxClient): Promise<void> {
  try {
    await sandbox.delete();
  } catch (err) {
    if (!(err instanceof ControlError && err.status === 404)) throw err;
  }
}

const create = (control: ControlClient, now: string | undefined) =>
  control.createSandbox(now === undefined ? {} : { now });

export const test = base.extend<ReferenceFixtures, WorkerFixtures>({
  referenceUrl: [process.env.REFERENCE_URL ?? "http://127.0.0.1:4010", { option: true, scope: "worker" }],
  controlKey: [process.env.REFERENCE_CONTROL_KEY ?? "", { option: true, scope: "worker" }],
  sandboxPer: ["worker", { option: true, scope: "worker" }],
  sandboxNow: [undefined, { option: true, scope: "worker" }],
  tokenLabel: ["lumiere-full", { option: true, scope: "worker" }],
  workerSandbox: [
    async ({ referenceUrl, controlKey, sandboxPer, sandboxNow }, use) => {
      if (sandboxPer !== "worker") {
        await use(undefined);
        return;
      }
      const sandbox = await create(controlOf(referenceUrl, controlKey), sandboxNow);
      await use(sandbox);
      await remove(sandbox);
    },
    { scope: "worker" },
  ],
  control: async ({ referenceUrl, controlKey }, use) => {
    await use(controlOf(referenceUrl, controlKey));
  },
  sandbox: async ({ workerSandbox, control, sandboxNow }, use) => {
    if (workerSandbox !== undefined) {
      // What the test before left (records, a moved clock, armed faults) is gone.
      await workerSandbox.reset();
      await use(workerSandbox);
      return;
    }
    const sandbox = await create(control, sandboxNow);
    await use(sandbox);
    await remove(sandbox);
  },
  token: async ({ sandbox, tokenLabel }, use) => {
    const token = sandbox.tokens[tokenLabel];
    if (token === undefined) {
      throw new Error(`accounting-api-reference/playwright: no fixture token labelled ${tokenLabel}`);
    }
    await use(token);
  },
});

export { expect } from "@playwright/test";
export type { SandboxClient } from "./control.js";
