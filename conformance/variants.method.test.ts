import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import type { TokenManifest } from "./manifest-schema.js";
import type { CheckResult } from "./types.js";
import { slot, TIMEOUT_MS } from "./test-support/describe-variants.js";
import {
  runVariant,
  SEED,
  startVariant,
  type Variant,
  type VariantRun,
} from "./test-support/variants/harness.js";
import { REFERENCE_AS_IS, VARIANTS } from "./test-support/variants/index.js";

/**
 * The kit's method (issue 16), class by class: each class's variants run against the checks that
 * must catch them (or pass them), with --grep so that each run stays small. The whole catalogue runs
 * against every variant in variants.*.test.ts.
 */

const variant = (id: string): Variant => {
  const found = VARIANTS.find((v) => v.id === id);
  if (found === undefined) throw new Error(`no variant ${id}`);
  return found;
};

const result = (run: VariantRun, id: string): CheckResult | undefined =>
  run.report.results.find((r) => r.id === id);

const failing = (run: VariantRun): string[] => run.failing.map((r) => r.id);

const referenceAsIs = REFERENCE_AS_IS;

/** One test per case: the variant, run with --grep, fails at the check named. */
function itCatches(cases: ReadonlyArray<readonly [id: string, grep: string, check: string]>): void {
  it.each(cases)(
    "fails %s (%s) at %s",
    async (id, grep, check) => {
      const run = await slot(() => runVariant(variant(id), { grep }));
      expect(failing(run)).toContain(check);
    },
    TIMEOUT_MS,
  );
}

/** Runs the curl lines of a failure against a fresh target, tokens from its manifest; each answer's body. */
async function replay(curl: string, from: string, to: string, manifest: TokenManifest): Promise<unknown[]> {
  const lines = curl.split("\n");
  const env: Record<string, string> = {};
  // The tokens' names: a comment line after a sequence, or the end of a single command's line.
  for (const [, name, label] of curl.matchAll(/\$(\w+) = manifest token "([^"]+)"/g)) {
    const token = manifest.tokens.find((t) => t.label === label);
    if (name !== undefined && token !== undefined) env[name] = token.token;
  }
  const bodies: unknown[] = [];
  for (const line of lines.filter((l) => !l.startsWith("#"))) {
    const { stdout } = await promisify(execFile)("sh", ["-c", line.split(from).join(to)], {
      env: { ...process.env, ...env },
      maxBuffer: 16 * 1024 * 1024,
    });
    const body = stdout.slice(stdout.indexOf("\r\n\r\n") + 4);
    bodies.push(body.trim() === "" ? undefined : (JSON.parse(body) as unknown));
  }
  return bodies;
}

const names = (body: unknown): string[] =>
  Array.isArray((body as { data?: unknown } | undefined)?.data)
    ? (body as { data: Array<{ name?: unknown }> }).data.map((i) => String(i.name))
    : [];

describe("class 1: the coverage phase, every legal form and its illegal neighbours", () => {
  itCatches(
    (
      [
        ["bearer-second-word", "coverage.authorization"],
        ["bearer-scheme-stripped", "coverage.authorization"],
        ["content-type-exact-match", "coverage.content-type"],
        ["accept-json-only", "coverage.accept"],
        ["filter-prefix-match", "coverage.filters"],
        ["email-prefix-regex", "coverage.contact-fields"],
        ["enum-prefix-match", "coverage.contact-fields"],
        ["length-ignores-spaces", "coverage.contact-fields"],
        ["text-html-escaped", "coverage.contact-fields"],
        ["astral-characters-dropped", "coverage.contact-fields"],
        ["unit-price-float32", "coverage.product-fields"],
      ] as const
    ).map(([id, check]) => [id, "^coverage\\.", check] as const),
  );

  it.each([
    "text-trimmed",
    "email-lower-cased",
    "before-lenient-forms",
    "before-ignores-offset",
    "before-date-in-local-time",
    "before-served-form-only",
    "before-unreadable-empty-page",
    "limit-parsed-leniently",
    "bearer-several-spaces",
    "accept-negotiated",
    "unsupported-media-type-415",
  ])(
    "passes %s, another legal answer to an open form",
    async (id) => {
      const run = await slot(() => runVariant(variant(id), { grep: "^coverage\\." }));
      expect(failing(run)).toEqual([]);
    },
    TIMEOUT_MS,
  );

  it(
    "shows what the target did with each open form, and judges a MUST form with its expectation",
    async () => {
      const run = await slot(() =>
        runVariant(referenceAsIs, { grep: "^coverage\\.(before|contact-fields)" }),
      );
      const open = result(run, "coverage.before-open")?.observations.map((o) => o.key) ?? [];
      expect(open).toContain("contacts?before=no seconds: filtered at its instant");
      expect(open).toContain("invoices?before=no zone: refused (400)");
      expect(result(run, "coverage.contact-fields")?.outcome).toBe("pass");
      expect(result(run, "coverage.contact-fields-open")?.observations.map((o) => o.key)).toContain(
        "contact name between spaces: accepted, read back as sent",
      );
    },
    TIMEOUT_MS,
  );
});

describe("class 2: what must not be there", () => {
  itCatches([
    ["unsent-fields-as-none", "^contacts\\.created-listed$", "contacts.created-listed"],
    [
      "unsent-phone-from-last-contact",
      "^contacts\\.(create-response|valid-bodies)$",
      "contacts.valid-bodies",
    ],
    ["contacts-carry-status", "^resources\\.contacts$", "resources.contacts"],
    [
      "timestamps-local-time",
      "^(contacts\\.create-response|run\\.created-timestamps)$",
      "run.created-timestamps",
    ],
    [
      "duplicate-sku-names-other-org",
      "^(products\\.create|products\\.sku-other-org|run\\.no-foreign-data)$",
      "run.no-foreign-data",
    ],
  ] as const);
});

describe("class 3: a MUST on every answer of its kind", () => {
  itCatches([
    [
      "cors-missing-on-creations",
      "^(contacts\\.create-response|cors\\.success|run\\.cors-success)$",
      "run.cors-success",
    ],
    ["rate-limit-counts-successes-only", "^ratelimit\\.counts-failures$", "ratelimit.counts-failures"],
    [
      "rate-limit-counts-twice",
      "^ratelimit\\.(counts-failures|burst|scope|not-early)$",
      "ratelimit.not-early",
    ],
  ] as const);

  it.each(["rate-limit-per-organization", "rate-limit-per-address", "reference"])(
    "passes %s, which counts where it may",
    async (id) => {
      const run = await slot(() =>
        runVariant(id === "reference" ? referenceAsIs : variant(id), { grep: "^ratelimit\\." }),
      );
      expect(failing(run)).toEqual([]);
      expect(result(run, "ratelimit.not-early")?.outcome).toBe("pass");
    },
    TIMEOUT_MS,
  );

  it(
    "catches a 201 without CORS that a check of GETs alone cannot see",
    async () => {
      const run = await slot(() =>
        runVariant(variant("cors-missing-on-creations"), {
          grep: "^(contacts\\.create-response|cors\\.success|run\\.cors-success)$",
        }),
      );
      expect(result(run, "cors.success")?.outcome).toBe("pass");
      expect(result(run, "run.cors-success")?.failure?.key).toBe("POST 201 without allow-origin");
    },
    TIMEOUT_MS,
  );
});

describe("class 4: the page maximum, on a list the kit makes long enough", () => {
  it(
    "fails a server that serves a limit above 200 as asked, no fixture list being long enough to show it",
    async () => {
      const run = await slot(() =>
        runVariant(variant("limit-above-200-served"), { grep: "^lists\\.page-max$" }),
      );
      expect(result(run, "lists.page-max")?.outcome).toBe("fail");
    },
    TIMEOUT_MS,
  );

  it(
    "passes the reference, having added marked contacts until a list holds more than 200",
    async () => {
      const run = await slot(() => runVariant(referenceAsIs, { grep: "^lists\\.page-max$" }));
      const r = result(run, "lists.page-max");
      expect(r?.outcome).toBe("pass");
      expect(r?.observations.map((o) => o.key)).toEqual(["added contacts past 200"]);
    },
    TIMEOUT_MS,
  );

  it(
    "under --read-only says the MUST was not verified, in the result and in the report's list of such rules",
    async () => {
      const run = await slot(() => runVariant(referenceAsIs, { readOnly: true, grep: "^lists\\.page-max$" }));
      expect(result(run, "lists.page-max")?.skipReason).toMatch(/^MUST not verified/);
      expect(run.report.notVerified?.map((n) => n.id)).toEqual(["lists.page-max"]);
    },
    TIMEOUT_MS,
  );
});

describe("class 5: a near miss is never a token the manifest lists", () => {
  it.each([1, 2, SEED])(
    "passes a correct server whose test tokens are numbered in sequence, at seed %i",
    async (seed) => {
      const run = await slot(() =>
        runVariant(variant("sequential-tokens"), {
          seed,
          grep: "^(auth\\.invalid-token|coverage\\.authorization)$",
        }),
      );
      expect(failing(run)).toEqual([]);
      expect(result(run, "auth.invalid-token")?.outcome).toBe("pass");
    },
    TIMEOUT_MS,
  );

  it(
    "shows the near miss a server accepted masked in part, and its curl rebuilds it from $TOKEN",
    async () => {
      const v = variant("token-one-char-off-accepted");
      const run = await slot(() => runVariant(v, { grep: "^auth\\.invalid-token$" }));
      const failure = result(run, "auth.invalid-token")?.failure;
      expect(failure?.message).toMatch(/Bearer acct_\w{3}…\(\d+ hidden\)…\w{3}/);
      const fresh = await startVariant(v);
      try {
        const secret = fresh.manifest.tokens.find((t) => t.label === "lumiere-full")?.token ?? "";
        expect(`${failure?.message ?? ""}${failure?.curl ?? ""}`).not.toContain(secret.slice(5, -1));
        const [answer] = await replay(failure?.curl ?? "", run.report.target, fresh.baseUrl, fresh.manifest);
        // The bug shows again: the near miss, rebuilt by the shell from the real token, is accepted.
        expect(names(answer).length).toBeGreaterThan(0);
      } finally {
        await fresh.close();
      }
    },
    TIMEOUT_MS,
  );
});

describe("class 6: stateful bugs, caught in every run and replayed whole", () => {
  it.each([
    ["list-cache-without-org", "isolation.cache"],
    ["filter-after-limit", "lists.filter-before-limit"],
  ])(
    "fails %s at %s, at every seed",
    async (id, check) => {
      for (const seed of [1, 2, 3]) {
        const run = await slot(() =>
          runVariant(variant(id), { seed, grep: `^${check.replace(".", "\\.")}$` }),
        );
        expect(result(run, check)?.outcome, `seed ${seed}`).toBe("fail");
      }
    },
    TIMEOUT_MS,
  );

  it(
    "replays isolation.cache's counterexample by its curl lines on a fresh target: the second organization is served the first one's contacts",
    async () => {
      const v = variant("list-cache-without-org");
      const run = await slot(() => runVariant(v, { grep: "^isolation\\.cache$" }));
      const curl = result(run, "isolation.cache")?.failure?.curl ?? "";
      expect(curl.split("\n").filter((l) => l.startsWith("curl"))).toHaveLength(2);
      const fresh = await startVariant(v);
      try {
        const [first, second] = await replay(curl, run.report.target, fresh.baseUrl, fresh.manifest);
        expect(names(second).length).toBeGreaterThan(0);
        expect(names(second)).toEqual(names(first));
      } finally {
        await fresh.close();
      }
    },
    TIMEOUT_MS,
  );

  it(
    "gives the model check's counterexample as every request the check sent, the read that filled the cache included, and fails again with --seed on a fresh target",
    async () => {
      const v = variant("list-cache-without-org");
      const first = await slot(() => runVariant(v, { grep: "^lists\\.model$" }));
      const r = result(first, "lists.model");
      expect(r?.outcome).toBe("fail");
      const lines = (r?.failure?.curl ?? "").split("\n").filter((l) => l.startsWith("curl"));
      expect(lines).toHaveLength(r?.requests ?? -1);
      // The run's replay line: the same seed, against a fresh instance of the same server.
      const again = await slot(() =>
        runVariant(v, { grep: "^lists\\.model$", seed: first.report.options.seed }),
      );
      expect(result(again, "lists.model")?.failure?.key).toBe(r?.failure?.key);
    },
    TIMEOUT_MS,
  );
});

describe("class 7: malformed bodies beyond syntax errors", () => {
  itCatches(
    (
      [
        ["json-parsed-leniently", "errors.malformed-json"],
        ["json-nan-accepted", "errors.malformed-json"],
        ["json-first-value-only", "errors.malformed-json"],
        ["json-stored-then-refused", "errors.malformed-json"],
        ["json-unwrapped", "errors.non-object-json"],
      ] as const
    ).map(([id, check]) => [id, "^errors\\.(malformed|non-object)-json$", check] as const),
  );

  it(
    "says a body refused with 400 was stored all the same, replaying the POST and the read that lists it",
    async () => {
      const run = await slot(() =>
        runVariant(variant("json-stored-then-refused"), { grep: "^errors\\.malformed-json$" }),
      );
      const failure = result(run, "errors.malformed-json")?.failure;
      expect(failure?.key).toBe("refused, yet stored | contacts");
      const lines = (failure?.curl ?? "").split("\n");
      expect(lines[0]).toMatch(/-X POST .*\/api\/v1\/contacts/);
      expect(lines[1]).toMatch(/\/api\/v1\/contacts\?limit=200/);
    },
    TIMEOUT_MS,
  );
});
