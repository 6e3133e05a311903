import { test as base, type BrowserContext, type TestInfo } from "@playwright/test";
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

/**
 * How the app under test reads the API's address and its token at run time: the fixture writes them
 * into the page's storage before any script of the page runs, in every test of every spec file.
 */
export interface HandOff {
  /** The storage the app reads them from. */
  storage: "localStorage" | "sessionStorage";
  /** The key of the token (the sandbox's token of `tokenLabel`), e.g. `apiToken`. */
  tokenKey: string;
  /** The key of the API's base URL (`referenceUrl`), e.g. `apiUrl`; left out, none is written. */
  urlKey?: string;
}

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
  /** The label of the token `token` (and `handOff`) hands to the test; `lumiere-full` by default. */
  tokenLabel: string;
  /**
   * Hands the sandbox's token (and the reference's URL) to every page of every test, through the
   * page's storage, only on `baseURL`'s origin when there is one. Left out: the test hands them over.
   */
  handOff: HandOff | undefined;
  /**
   * Warn (a `warning` annotation and the test's stderr, not a failure) when a test's sandbox saw no
   * API request at all: the page talked to another address, or with a token not of its sandbox.
   * `true` by default; `test.use({ warnUnused: false })` for tests that make none on purpose.
   */
  warnUnused: boolean;
}

export interface ReferenceFixtures {
  /** This test's sandbox: its tokens by label, and the control surface's operations on it alone. */
  sandbox: SandboxClient;
  /** The token of `tokenLabel` in this test's sandbox. */
  token: string;
  /** The whole control surface (the default state, every sandbox): rarely needed in a test. */
  control: ControlClient;
}

interface TestFixtures
  extends ReferenceFixtures,
    Pick<ReferenceOptions, "tokenLabel" | "handOff" | "warnUnused"> {
  /** What the test's pages asked with fetch or XMLHttpRequest, for the warning. */
  pageRequests: PageRequest[];
}

interface WorkerFixtures extends Omit<ReferenceOptions, "tokenLabel" | "handOff" | "warnUnused"> {
  /** The worker's sandbox, when `sandboxPer` is `worker`. */
  workerSandbox: SandboxClient | undefined;
}

/** The page's globals the hand-off writes to (in the browser; the package's types have no DOM). */
interface PageGlobals {
  location: { origin: string };
  localStorage: { setItem(key: string, value: string): void };
  sessionStorage: { setItem(key: string, value: string): void };
}

interface PageRequest {
  method: string;
  url: string;
  /** The status of its answer, or why it failed (`net::ERR_CONNECTION_REFUSED`); null while pending. */
  outcome: number | string | null;
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

/** The page's requests a test may have meant for the API: what its scripts fetched. */
function recordRequests(context: BrowserContext, into: PageRequest[]): void {
  const seen = new Map<object, PageRequest>();
  context.on("request", (request) => {
    if (!["fetch", "xhr"].includes(request.resourceType())) return;
    const entry: PageRequest = { method: request.method(), url: request.url(), outcome: null };
    seen.set(request, entry);
    into.push(entry);
  });
  context.on("response", (response) => {
    const entry = seen.get(response.request());
    if (entry !== undefined) entry.outcome = response.status();
  });
  context.on("requestfailed", (request) => {
    const entry = seen.get(request);
    if (entry !== undefined) entry.outcome = request.failure()?.errorText ?? "failed";
  });
}

/** The warning for a test whose sandbox saw no API request, with what its pages asked instead. */
function unusedSandboxWarning(
  sandboxId: string,
  referenceUrl: string,
  requests: readonly PageRequest[],
): string {
  const asked = requests
    .filter((r) => r.method !== "OPTIONS")
    .slice(0, 5)
    .map((r) => `${r.method} ${r.url} (${r.outcome ?? "no answer"})`);
  return [
    `accounting-api-reference/playwright: sandbox ${sandboxId} saw no API request during this test.`,
    `Its pages may talk to another address than ${referenceUrl}, or with a token that is not the sandbox's`,
    "(the default state's, or one kept from an earlier test): hand them over with the option handOff or",
    "from the token fixture in every test (an auto fixture, not a beforeEach of one file).",
    asked.length === 0
      ? "Its pages fetched nothing."
      : `What its pages fetched: ${asked.join("; ")}${requests.length > asked.length ? "; …" : ""}.`,
    "A test that makes no API request on purpose: test.use({ warnUnused: false }).",
  ].join(" ");
}

/** After a test: warns when its sandbox's journal is empty (a reset before each test empties it). */
async function warnIfUnused(
  sandbox: SandboxClient,
  referenceUrl: string,
  requests: readonly PageRequest[],
  testInfo: TestInfo,
): Promise<void> {
  if (testInfo.status === "skipped") return;
  let seen: number;
  try {
    seen = (await sandbox.journal({ limit: 1 })).length;
  } catch (err) {
    if (err instanceof ControlError && err.status === 404) return; // the test deleted it
    throw err;
  }
  if (seen > 0) return;
  const description = unusedSandboxWarning(sandbox.id, referenceUrl, requests);
  testInfo.annotations.push({ type: "warning", description });
  console.warn(description);
}

export const test = base.extend<TestFixtures, WorkerFixtures>({
  referenceUrl: [process.env.REFERENCE_URL ?? "http://127.0.0.1:4010", { option: true, scope: "worker" }],
  controlKey: [process.env.REFERENCE_CONTROL_KEY ?? "", { option: true, scope: "worker" }],
  sandboxPer: ["worker", { option: true, scope: "worker" }],
  sandboxNow: [undefined, { option: true, scope: "worker" }],
  // Test-scoped, so that test.use in a describe block changes them without a new worker.
  tokenLabel: ["lumiere-full", { option: true }],
  handOff: [undefined, { option: true }],
  warnUnused: [true, { option: true }],
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
  // Playwright reads a fixture's dependencies from its first parameter's pattern: none here.
  // eslint-disable-next-line no-empty-pattern
  pageRequests: async ({}, use) => {
    await use([]);
  },
  control: async ({ referenceUrl, controlKey }, use) => {
    await use(controlOf(referenceUrl, controlKey));
  },
  sandbox: async (
    { workerSandbox, control, sandboxNow, referenceUrl, warnUnused, pageRequests },
    use,
    testInfo,
  ) => {
    if (workerSandbox !== undefined) {
      // What the test before left (records, a moved clock, armed faults, its journal) is gone.
      await workerSandbox.reset();
      await use(workerSandbox);
      if (warnUnused) await warnIfUnused(workerSandbox, referenceUrl, pageRequests, testInfo);
      return;
    }
    const sandbox = await create(control, sandboxNow);
    await use(sandbox);
    if (warnUnused) await warnIfUnused(sandbox, referenceUrl, pageRequests, testInfo);
    await remove(sandbox);
  },
  token: async ({ sandbox, tokenLabel }, use) => {
    const token = sandbox.tokens[tokenLabel];
    if (token === undefined) {
      throw new Error(`accounting-api-reference/playwright: no fixture token labelled ${tokenLabel}`);
    }
    await use(token);
  },
  // Every page of the test is in this context: it gets the hand-off before its first script, and
  // its requests are noted for the warning. The context is closed before the sandbox's check.
  context: async ({ context, handOff, referenceUrl, token, baseURL, pageRequests }, use) => {
    recordRequests(context, pageRequests);
    if (handOff !== undefined) {
      await context.addInitScript(
        ({ storage, entries, origin }) => {
          const page = globalThis as unknown as PageGlobals;
          if (origin !== null && page.location.origin !== origin) return;
          try {
            for (const [key, value] of entries) page[storage].setItem(key, value);
          } catch {
            // A document without storage (about:blank, a sandboxed frame): nothing to hand over.
          }
        },
        {
          storage: handOff.storage,
          entries: [
            [handOff.tokenKey, token],
            ...(handOff.urlKey === undefined ? [] : [[handOff.urlKey, referenceUrl]]),
          ] as [string, string][],
          origin: baseURL === undefined ? null : new URL(baseURL).origin,
        },
      );
    }
    await use(context);
  },
});

export { expect } from "@playwright/test";
export type { SandboxClient } from "./control.js";
