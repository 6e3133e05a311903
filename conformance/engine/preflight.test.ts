import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main, type CliIo } from "../cli.js";
import { FetchHttpClient } from "./client.js";
import type { TokenManifest } from "../manifest-schema.js";
import { RatePacer } from "./pacer.js";
import { ManifestMismatchError, preflight, preflightPlan, trialOf, trialsOf } from "./preflight.js";
import { requestLine } from "../support/assert.js";
import { plain, startVariant, type StartedVariant } from "../test-support/variants/harness.js";
import { productsWriteRefused, revokedTokenAccepted } from "../test-support/variants/auth.js";

let target: StartedVariant;
let requests = 0;
let dir: string;
beforeAll(async () => {
  // The reference with the fixtures' manifest, counting the requests it receives.
  target = await startVariant({
    build: async (env) => {
      const handler = await plain(env);
      return (req, res) => {
        requests += 1;
        handler(req, res);
      };
    },
  });
  dir = await mkdtemp(join(tmpdir(), "cfk-preflight-"));
});
afterAll(async () => {
  await target.close();
  await rm(dir, { recursive: true, force: true });
});

const clientFor = (t: StartedVariant, manifest: TokenManifest) =>
  new FetchHttpClient({
    baseUrl: t.baseUrl,
    pacer: new RatePacer({ rateLimit: 150, windowMs: 1000, per: "token", manifest, timer: t.clock }),
    tokens: manifest.tokens,
    sleep: t.clock.sleep,
    now: t.clock.now,
  });

/** The fixtures' manifest with four mistakes a team writing its own makes. */
function brokenManifest(manifest: TokenManifest): TokenManifest {
  return {
    ...manifest,
    organizations: manifest.organizations.map((o) =>
      o.id === "org_petitpas" ? { ...o, apiAccess: true } : o,
    ),
    tokens: manifest.tokens.map((t) => {
      switch (t.label) {
        case "lumiere-full":
          return { ...t, token: `${t.token.slice(0, -4)}XXXX` }; // copied wrong
        case "lumiere-revoked":
          return { ...t, state: "active" as const }; // revoked since the manifest was written
        case "lumiere-contacts-write":
          return { ...t, scopes: ["contacts:read" as const] }; // the wrong scope declared
        default:
          return t;
      }
    }),
  };
}

describe("the manifest preflight", () => {
  it("accepts the reference with its own manifest, trying each token on each scope it is declared to hold", async () => {
    const http = clientFor(target, target.manifest);
    await preflight(http, target.manifest, target.clock.now());
    // Each token itself, never an equivalent one the pacer would choose: once per declared scope with
    // an endpoint, or once; a token declared like one before it, on its first scope only.
    const now = target.clock.now();
    const plan = preflightPlan(target.manifest, now);
    expect(http.history().map((ex) => ex.request.auth)).toEqual(
      plan.flatMap(({ token, trials }) => trials.map(() => ({ header: `Bearer ${token.token}` }))),
    );
    expect(plan.map(({ token, trials }) => `${token.label} ${trials.length}`)).toEqual(
      expect.arrayContaining(["lumiere-full 6", "lumiere-full-2 1", "boreal-full 6", "boreal-full-2 1"]),
    );
    const full = target.manifest.tokens.find((t) => t.label === "lumiere-full");
    if (full === undefined) throw new Error("the fixtures have no lumiere-full token");
    expect(trialsOf(full, target.manifest, now).map((x) => requestLine(x.request))).toEqual([
      "GET /api/v1/contacts?limit=1",
      "GET /api/v1/products?limit=1",
      "GET /api/v1/invoices?limit=1",
      "GET /api/v1/expenses?limit=1",
      "POST /api/v1/contacts",
      "POST /api/v1/products",
    ]);
    // Nothing was created: a write scope is tried with an empty body, refused.
    const posts = http.history().filter((ex) => ex.request.method === "POST");
    expect(posts.map((ex) => ex.status)).toEqual(posts.map(() => 400));
  });

  it("names each wrong token, what was declared and answered, both possible causes and the check that fails if the manifest is right", async () => {
    const http = clientFor(target, target.manifest);
    const error = await preflight(http, brokenManifest(target.manifest), target.clock.now()).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ManifestMismatchError);
    expect((error as ManifestMismatchError).lines()).toEqual([
      'manifest token "lumiere-full": declared active with contacts:read, so GET /api/v1/contacts is accepted (200); the target answered 401 unauthorized to GET /api/v1/contacts. Either the manifest is wrong (the token is no active token on the target: copied wrong, or revoked or expired since), or the target is: with the manifest right, auth.scope-grants-read (§5.4) fails',
      'manifest token "lumiere-contacts-write": declared active with contacts:read, so GET /api/v1/contacts is accepted (200); the target answered 403 forbidden to GET /api/v1/contacts. Either the manifest is wrong (the token lacks contacts:read on the target), or the target is: with the manifest right, auth.scope-grants-read (§5.4) fails',
      'manifest token "lumiere-revoked": declared active with contacts:read, so GET /api/v1/contacts is accepted (200); the target answered 401 unauthorized to GET /api/v1/contacts. Either the manifest is wrong (the token is no active token on the target: copied wrong, or revoked or expired since), or the target is: with the manifest right, auth.scope-grants-read (§5.4) fails',
      'manifest token "petitpas-full": declared active with contacts:read, products:read, invoices:read, expenses:read, contacts:write, products:write, so accepted on the endpoint of each; the target answered 403 to each (the first: 403 forbidden to GET /api/v1/contacts). Either the manifest is wrong (the token holds none of them on the target, or its organization\'s plan has no API access), or the target is: with the manifest right, auth.scope-grants-read (§5.4) fails',
    ]);
  });

  it("catches a scope declared that the token lacks, which it did not try before (it surfaced as five MUST failures)", async () => {
    const manifest = {
      ...target.manifest,
      tokens: target.manifest.tokens.map((t) =>
        t.label === "lumiere-contacts-read" ? { ...t, scopes: [...t.scopes, "products:write" as const] } : t,
      ),
    };
    const error = await preflight(clientFor(target, manifest), manifest, target.clock.now()).catch(
      (e: unknown) => e,
    );
    expect((error as ManifestMismatchError).lines()).toEqual([
      'manifest token "lumiere-contacts-read": declared active with products:write, so POST /api/v1/products is accepted (an empty body refused with 400); the target answered 403 forbidden to POST /api/v1/products. Either the manifest is wrong (the token lacks products:write on the target), or the target is: with the manifest right, auth.scope-grants-write (§5 Scopes.4) fails',
    ]);
  });

  it("says the target is the likelier cause when every token declared with a scope is refused it", async () => {
    const broken = await startVariant(productsWriteRefused);
    try {
      const error = await preflight(
        clientFor(broken, broken.manifest),
        broken.manifest,
        broken.clock.now(),
      ).catch((e: unknown) => e);
      const lines = (error as ManifestMismatchError).lines();
      // The first full token of each organization (its equivalents are tried on their first scope
      // only) and lumiere-products-write: three.
      expect(lines.filter((l) => l.includes("403 forbidden to POST /api/v1/products"))).toHaveLength(3);
      expect(lines.at(-1)).toBe(
        "every one of the 3 tokens declared with products:write got 403: the target is the likelier cause (auth.scope-grants-write (§5 Scopes.4))",
      );
    } finally {
      await broken.close();
    }
  });

  it("expects 401 of a token past its expiry instant, whatever its declared state", () => {
    const token = target.manifest.tokens.find((t) => t.label === "lumiere-expiring");
    if (token === undefined) throw new Error("the fixtures have no lumiere-expiring token");
    const later = Date.parse(token.expiresAt ?? "") + 1;
    const trial = trialOf(token, target.manifest, later);
    expect(trial.declared).toMatch(/^active until .* \(past\), so 401 \(§5\.6\)$/);
    expect([401, 200, 403].map((s) => trial.agrees(s))).toEqual([true, false, false]);
    expect(trial.check).toBe("auth.expired-token (§3 Token status.2, §5.6)");
  });

  it("tells a target accepting a revoked token, as declared: a wrong manifest or a broken target, and the check that would fail", async () => {
    const broken = await startVariant(revokedTokenAccepted);
    try {
      const error = await preflight(
        clientFor(broken, broken.manifest),
        broken.manifest,
        broken.clock.now(),
      ).catch((e: unknown) => e);
      expect((error as ManifestMismatchError).lines()).toEqual([
        'manifest token "lumiere-revoked": declared revoked, so 401 (§5.6); the target answered 200 to GET /api/v1/contacts. Either the manifest is wrong (the token is not revoked on the target), or the target is: with the manifest right, auth.revoked-token (§3 Token status.1, §5.6) fails',
      ]);
    } finally {
      await broken.close();
    }
  });
});

describe("conformance with a broken manifest", () => {
  it("exits 2 with one line per wrong token and runs no check", async () => {
    const file = join(dir, "tokens.json");
    const broken = brokenManifest(target.manifest);
    await writeFile(file, JSON.stringify(broken));
    let stdout = "";
    let stderr = "";
    const io: CliIo = {
      stdout: (t) => void (stdout += t),
      stderr: (t) => void (stderr += t),
      setExitCode: () => {},
      clock: target.clock,
    };
    requests = 0;
    const code = await main(["node", "conformance", "--base-url", target.baseUrl, "--tokens", file], io);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    const lines = stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(4);
    for (const line of lines)
      expect(line).toMatch(/^conformance: manifest token "[a-z-]+": declared .*; the target answered \d{3}/);
    // The reachability probe, then the preflight's requests (a token the target does not know is tried
    // once): no check ran.
    const unknown = ["lumiere-full", "lumiere-revoked"];
    const trials = preflightPlan(broken, target.clock.now()).reduce(
      (n, { token, trials: each }) => n + (unknown.includes(token.label) ? 1 : each.length),
      0,
    );
    expect(requests).toBe(1 + trials);
  });
});
