import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main, type CliIo } from "../cli.js";
import { FetchHttpClient } from "./client.js";
import type { TokenManifest } from "../manifest-schema.js";
import { RatePacer } from "./pacer.js";
import { ManifestMismatchError, preflight, trialOf } from "./preflight.js";
import { plain, startVariant, type StartedVariant } from "../test-support/variants/harness.js";
import { revokedTokenAccepted } from "../test-support/variants/auth.js";

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
  it("accepts the reference with its own manifest, trying each token once", async () => {
    const http = clientFor(target, target.manifest);
    await preflight(http, target.manifest, target.clock.now());
    // Each token itself, never an equivalent one the pacer would choose.
    expect(http.history().map((ex) => ex.request.auth)).toEqual(
      target.manifest.tokens.map((t) => ({ header: `Bearer ${t.token}` })),
    );
    // Nothing was created: a write-only token is tried with an empty body, refused.
    const posts = http.history().filter((ex) => ex.request.method === "POST");
    expect(posts.map((ex) => ex.status)).toEqual(posts.map(() => 400));
  });

  it("names each wrong token: its label, what was declared, what the target answered", async () => {
    const http = clientFor(target, target.manifest);
    const error = await preflight(http, brokenManifest(target.manifest), target.clock.now()).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ManifestMismatchError);
    expect((error as ManifestMismatchError).lines()).toEqual([
      'manifest token "lumiere-full": declared active with contacts:read, so accepted (200); the target answered 401 unauthorized to GET /api/v1/contacts',
      'manifest token "lumiere-contacts-write": declared active with contacts:read, so accepted (200); the target answered 403 forbidden to GET /api/v1/contacts',
      'manifest token "lumiere-revoked": declared active with contacts:read, so accepted (200); the target answered 401 unauthorized to GET /api/v1/contacts',
      'manifest token "petitpas-full": declared active with contacts:read, so accepted (200); the target answered 403 forbidden to GET /api/v1/contacts',
    ]);
  });

  it("expects 401 of a token past its expiry instant, whatever its declared state", () => {
    const token = target.manifest.tokens.find((t) => t.label === "lumiere-expiring");
    if (token === undefined) throw new Error("the fixtures have no lumiere-expiring token");
    const later = Date.parse(token.expiresAt ?? "") + 1;
    const trial = trialOf(token, target.manifest, later);
    expect(trial.declared).toMatch(/^active until .* \(past\), so 401 \(§5\.6\)$/);
    expect([401, 200, 403].map((s) => trial.agrees(s))).toEqual([true, false, false]);
  });

  it("tells a target accepting a revoked token, as declared: a wrong manifest or a broken target, the line says which token", async () => {
    const broken = await startVariant(revokedTokenAccepted);
    try {
      const error = await preflight(
        clientFor(broken, broken.manifest),
        broken.manifest,
        broken.clock.now(),
      ).catch((e: unknown) => e);
      expect((error as ManifestMismatchError).lines()).toEqual([
        'manifest token "lumiere-revoked": declared revoked, so 401 (§5.6); the target answered 200 to GET /api/v1/contacts',
      ]);
    } finally {
      await broken.close();
    }
  });
});

describe("conformance with a broken manifest", () => {
  it("exits 2 with one line per wrong token and runs no check", async () => {
    const file = join(dir, "tokens.json");
    await writeFile(file, JSON.stringify(brokenManifest(target.manifest)));
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
    // The reachability probe, then one request per token: no check ran.
    expect(requests).toBe(1 + target.manifest.tokens.length);
  });
});
