import type { Express } from "express";
import { createApp, DEFAULT_BODY_LIMIT_BYTES, DEFAULT_RATE_LIMIT } from "./app.js";
import { TokenRegistry } from "./auth/tokens.js";
import { systemClock, type Clock } from "./clock.js";
import type { IdGenerator } from "./domain/ids.js";
import { loadFixtures, type FixtureSet } from "./fixtures/load.js";
import type { TokenManifest } from "./fixtures/manifest.js";
import { defaultFixturesDir } from "./fixtures/paths.js";
import type { RateLimitOptions } from "./routing/rate-limit.js";
import { Store } from "./store/store.js";

export const DEFAULT_TOKEN_PREFIX = "acct";

export interface ReferenceOptions {
  fixturesDir?: string;
  clock?: Clock;
  ids?: IdGenerator;
  /** §5.1 `<token_prefix>`, without its underscore (spec-gaps #1). */
  tokenPrefix?: string;
  rateLimit?: RateLimitOptions;
  bodyLimitBytes?: number;
  log?: (line: string) => void;
}

export interface Reference {
  app: Express;
  store: Store;
  tokens: TokenRegistry;
  /** The fixture tokens as this server accepts them (re-prefixed when `tokenPrefix` differs). */
  manifest: TokenManifest;
  clock: Clock;
}

/** The reference server, seeded from its fixtures: what `npm start` serves and the kit embeds. */
export async function createReference(options: ReferenceOptions = {}): Promise<Reference> {
  const clock = options.clock ?? systemClock;
  const prefix = options.tokenPrefix ?? DEFAULT_TOKEN_PREFIX;
  const fixtures = await loadFixtures(options.fixturesDir ?? defaultFixturesDir(), { now: clock.now() });
  const manifest = withPrefix(fixtures.manifest, prefix);
  const store = seedStore(fixtures);
  const tokens = new TokenRegistry({ prefix, clock });
  for (const t of manifest.tokens) {
    tokens.import({
      token: t.token,
      organizationId: t.organization,
      name: t.label,
      scopes: t.scopes,
      expiresAt: t.expiresAt === null ? null : new Date(t.expiresAt),
      revoked: t.state === "revoked",
    });
  }
  const app = createApp({
    store,
    tokens,
    clock,
    ...(options.ids === undefined ? {} : { ids: options.ids }),
    rateLimit: options.rateLimit ?? DEFAULT_RATE_LIMIT,
    bodyLimitBytes: options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES,
    ...(options.log === undefined ? {} : { log: options.log }),
  });
  return { app, store, tokens, manifest, clock };
}

export function seedStore(fixtures: FixtureSet): Store {
  const store = new Store();
  fixtures.organizations.forEach((o) => store.addOrganization(o));
  fixtures.accounts.forEach((a) => store.addAccount(a));
  fixtures.contacts.forEach((c) => store.addContact(c));
  fixtures.products.forEach((p) => store.addProduct(p));
  fixtures.invoices.forEach((i) => store.addInvoice(i));
  fixtures.expenses.forEach((e) => store.addExpense(e));
  return store;
}

/** The fixture tokens keep their random part under another prefix, so `--token-prefix` needs no new fixtures. */
function withPrefix(manifest: TokenManifest, prefix: string): TokenManifest {
  if (prefix === manifest.tokenPrefix) return manifest;
  const from = `${manifest.tokenPrefix}_`;
  return {
    ...manifest,
    tokenPrefix: prefix,
    tokens: manifest.tokens.map((t) => ({ ...t, token: `${prefix}_${t.token.slice(from.length)}` })),
  };
}
