import type { ManifestToken } from "../manifest-schema.js";
import { failureKey } from "../failures.js";
import type { CheckContext, HttpExchange, HttpRequest } from "../types.js";
import { expectStatus, fail, is2xx, isRecord, type JsonObject } from "./assert.js";
import { productJsonText, type ProductDraft } from "./arbitraries.js";
import { memoSlot, valueSlot } from "./shared.js";
import { addedValues, type ListName } from "../spec/kit-spec.js";

/**
 * What several checks share: tokens, the first page of each list, the records a run creates (created
 * once, read by every check that needs one), locating a record in a list, and whether the target
 * supports `before`. Kept in `ctx.shared` (support/shared.ts), keyed by what was asked, so that a check run alone (with
 * --grep) fetches what it needs and a full run fetches it once.
 */

/** The full-access token of organization 0 or 1 (skips the check when the manifest has none). */
export const fullToken = (ctx: CheckContext, org: 0 | 1 = 0): ManifestToken =>
  ctx.tokens.get({ kind: "full", org });

/**
 * Among organization 0's tokens holding `scope`, the one that sent the fewest requests in the last
 * window (holding exactly that scope breaking ties): for requests whose answer depends only on holding
 * the scope (an invalid body is refused whoever sends it), so that their load goes where the per-token
 * budgets have room (spec-gaps #21) rather than wait on the full token's.
 */
export function tokenHolding(ctx: CheckContext, scope: string): ManifestToken {
  const full = fullToken(ctx);
  const holders = usableTokens(ctx).filter(
    (t) => t.organization === full.organization && t.scopes.some((s) => s === scope),
  );
  return leastUsed(ctx, holders) ?? full;
}

/** The token of `candidates` that sent the fewest requests in the last window; ties to the fewest scopes. */
export function leastUsed(
  ctx: CheckContext,
  candidates: readonly ManifestToken[],
): ManifestToken | undefined {
  const since = ctx.clock.now() - ctx.options.rateWindowMs;
  const used = new Map<string, number>();
  for (const ex of ctx.http.history()) {
    const auth = ex.request.auth;
    if (auth === null || auth === undefined || "header" in auth || (ex.sentAt ?? 0) < since) continue;
    used.set(auth.label, (used.get(auth.label) ?? 0) + 1);
  }
  return candidates.toSorted(
    (a, b) => (used.get(a.label) ?? 0) - (used.get(b.label) ?? 0) || a.scopes.length - b.scopes.length,
  )[0];
}

/**
 * The token organization 0's reads of `list` go out with: one holding exactly the list's read scope
 * when the manifest has one, else the full token. Always the same for a list, so that checks share
 * their reads (ctx.shared, by token); the full tokens' budgets are left to what needs them (§8).
 */
export const reader = (ctx: CheckContext, list: ListName): ManifestToken =>
  ctx.tokens.find({ kind: "scopes", scopes: [ctx.spec.LISTS[list].scope], exact: true }) ?? fullToken(ctx);

/**
 * Active, unexpired tokens of organizations with API access: what `tokens.find` calls usable; the token
 * the run keeps for the rate-limit burst (`ctx.tokens.reserved`) left out.
 */
export function usableTokens(ctx: CheckContext): ManifestToken[] {
  const { manifest, reserved } = ctx.tokens;
  const apiOrgs = new Set(manifest.organizations.filter((o) => o.apiAccess).map((o) => o.id));
  const now = ctx.clock.now();
  return manifest.tokens.filter(
    (t) =>
      t !== reserved &&
      t.state === "active" &&
      apiOrgs.has(t.organization) &&
      (t.expiresAt === null || Date.parse(t.expiresAt) > now),
  );
}

/** The last number `unique()` handed out: no two records of a run share a name or sku by chance. */
const SEQUENCE = valueSlot("the run's sequence", () => ({ last: 0 }));
/** The largest first page of each list, as each token sees it. */
const FIRST_PAGES = memoSlot<string, HttpExchange>("first pages");
/** One filtered read at the largest page, per list, filter value and token. */
const FILTERED_PAGES = memoSlot<string, HttpExchange>("filtered pages");
/** The run's reference records. */
const CREATED_CONTACTS = memoSlot<ContactVariant, Created>("reference contacts");
const CREATED_PRODUCTS = memoSlot<ProductVariant, CreatedProduct>("reference products");
/** Whether each list takes `before` (spec-gaps #8), per token. */
const BEFORE_SUPPORT = memoSlot<string, BeforeSupport>("before support");

/** `<marker>-<tag>-<n>`: unique within the run, so that no two records share a sku by accident. */
export function unique(ctx: CheckContext, tag: string): string {
  const sequence = ctx.shared.get(SEQUENCE);
  sequence.last += 1;
  return `${ctx.marker}-${tag}-${sequence.last}`;
}

/** A generated draft with a sku no other record of the run has (`<marker>-p-<n>-<tail>`, at most 100). */
export function withUniqueSku(ctx: CheckContext, draft: ProductDraft): ProductDraft {
  const tail = draft.sku.startsWith(`${ctx.marker}-`) ? draft.sku.slice(ctx.marker.length + 1) : draft.sku;
  return { ...draft, sku: `${unique(ctx, "p")}-${tail}`.slice(0, ctx.spec.MAX.productSku) };
}

/** A contact body that any implementation must accept, named with the marker. */
export const validContact = (ctx: CheckContext, tag: string): JsonObject => ({
  type: ctx.spec.SAMPLE.contactType,
  name: `${ctx.marker} ${tag}`,
  ...addedValues(ctx.spec, "contact", "required"),
});

/** A product body that any implementation must accept, with a sku of its own. */
export const validProduct = (ctx: CheckContext, tag: string): JsonObject => ({
  sku: unique(ctx, tag),
  name: `${ctx.marker} ${tag}`,
  unitPrice: 10,
  ...addedValues(ctx.spec, "product", "required"),
});

export const listRequest = (
  ctx: Pick<CheckContext, "spec">,
  list: ListName,
  auth: HttpRequest["auth"],
  query: Record<string, string | readonly string[]> = {},
): HttpRequest => ({ method: "GET", path: ctx.spec.LISTS[list].path, query, auth });

/** The items of a list answer, or undefined when it is not `{ data: [objects] }` with status 200. */
export function itemsOf(ex: HttpExchange): JsonObject[] | undefined {
  if (ex.status !== 200 || !isRecord(ex.json) || !Array.isArray(ex.json.data)) return undefined;
  const data: unknown[] = ex.json.data;
  return data.every(isRecord) ? (data as JsonObject[]) : undefined;
}

/** `data` of a `{ data: {...} }` answer, if it is one. */
export const dataObject = (ex: HttpExchange): JsonObject | undefined =>
  isRecord(ex.json) && isRecord(ex.json.data) ? ex.json.data : undefined;

/** The first page, at the largest limit, as the token sees it; fetched once per run. */
export function firstPage(ctx: CheckContext, list: ListName, token: ManifestToken): Promise<HttpExchange> {
  return ctx.shared
    .get(FIRST_PAGES)
    .get(`${list}:${token.label}`, () =>
      ctx.http.send(listRequest(ctx, list, token, { limit: String(ctx.spec.MAX.pageMax) })),
    );
}

/**
 * The largest page as it stands now. Invoices and expenses have no creation endpoint (§1), so their
 * first page read once stands for the whole run; contacts and products are read again.
 */
export function currentPage(ctx: CheckContext, list: ListName, token: ManifestToken): Promise<HttpExchange> {
  if (list === "invoices" || list === "expenses") return firstPage(ctx, list, token);
  return ctx.http.send(listRequest(ctx, list, token, { limit: String(ctx.spec.MAX.pageMax) }));
}

/** One filtered read (`type` or `status` = value) at the largest page, as the token sees it; once per run. */
export function filteredPage(
  ctx: CheckContext,
  list: ListName,
  value: string,
  token: ManifestToken,
): Promise<HttpExchange> {
  const param = ctx.spec.LISTS[list].filter?.param ?? "type";
  return ctx.shared
    .get(FILTERED_PAGES)
    .get(`${list}:${value}:${token.label}`, () =>
      ctx.http.send(listRequest(ctx, list, token, { limit: String(ctx.spec.MAX.pageMax), [param]: value })),
    );
}

// ---- records the run creates ------------------------------------------------------------------------

export interface Created {
  /** What was sent. */
  body: JsonObject;
  exchange: HttpExchange;
}

export type ContactVariant = "minimal" | "full";

/** The bodies of the run's two reference contacts: one with the required fields, one with every field. */
export function contactBody(ctx: CheckContext, variant: ContactVariant): JsonObject {
  if (variant === "minimal")
    return {
      type: ctx.spec.SAMPLE.contactType,
      name: `${ctx.marker} minimal contact`,
      ...addedValues(ctx.spec, "contact", "required"),
    };
  return {
    type: ctx.spec.SAMPLE.otherContactType,
    // Non-ASCII on purpose: §1 "UTF-8 encoded" is read back through it.
    name: `${ctx.marker} Élodie Côté, Café 日本`,
    email: `${ctx.marker}.full@example.com`,
    phone: "+1 514-555-0199",
    address: "1234 rue Saint-Denis, Montréal (Québec) H2X 3K8",
    taxNumberTPS: "123456789RT0001",
    taxNumberTVQ: "1234567890TQ0001",
    ...addedValues(ctx.spec, "contact", "all"),
  };
}

/** Created once per run, by organization 0's full token. */
export function createdContact(ctx: CheckContext, variant: ContactVariant): Promise<Created> {
  const token = fullToken(ctx, 0);
  const body = contactBody(ctx, variant);
  return ctx.shared.get(CREATED_CONTACTS).get(variant, async () => ({
    body,
    exchange: await ctx.http.send({
      method: "POST",
      path: ctx.spec.LISTS.contacts.path,
      auth: token,
      json: body,
    }),
  }));
}

export type ProductVariant = "minimal" | "full";

export function productDraft(ctx: CheckContext, variant: ProductVariant): ProductDraft {
  if (variant === "minimal") {
    // Defaults (type PRODUCT, taxable true) and the lower bound of unitPrice (>= 0).
    return {
      sku: `${ctx.marker}-minimal`,
      name: `${ctx.marker} minimal product`,
      unitPrice: "0",
      ...addedValues(ctx.spec, "product", "required"),
    };
  }
  return {
    sku: `${ctx.marker}-full`,
    name: `${ctx.marker} Consultation`,
    description: "One hour of consulting, billed by the hour.",
    type: ctx.spec.SAMPLE.otherProductType,
    // Written exactly: 1234.5 must read back as "1234.5000" (spec-gaps #19).
    unitPrice: "1234.5",
    taxable: false,
    ...addedValues(ctx.spec, "product", "all"),
  };
}

export interface CreatedProduct {
  draft: ProductDraft;
  exchange: HttpExchange;
}

export const postProduct = (
  ctx: CheckContext,
  token: ManifestToken,
  draft: ProductDraft,
): Promise<HttpExchange> =>
  ctx.http.send({
    method: "POST",
    path: ctx.spec.LISTS.products.path,
    auth: token,
    headers: { "Content-Type": "application/json" },
    rawBody: productJsonText(draft),
  });

export function createdProduct(ctx: CheckContext, variant: ProductVariant): Promise<CreatedProduct> {
  const token = fullToken(ctx, 0);
  const draft = productDraft(ctx, variant);
  return ctx.shared.get(CREATED_PRODUCTS).get(variant, async () => ({
    draft,
    exchange: await postProduct(ctx, token, draft),
  }));
}

/** Skips a check that needs a record the target would not create (the creation check reports why). */
export function requireCreated(
  ctx: CheckContext,
  exchange: HttpExchange,
  what: string,
  checkId: string,
): void {
  if (!is2xx(exchange)) {
    ctx.skip(`${what} could not be created (status ${exchange.status}); ${checkId} reports why`);
  }
}

// ---- `before` (spec-gaps #8) ------------------------------------------------------------------------

export type BeforeSupport =
  | { kind: "supported"; plain: HttpExchange; probe: HttpExchange }
  | { kind: "ignored"; plain: HttpExchange; probe: HttpExchange }
  | { kind: "undecided"; reason: string }
  | { kind: "broken"; reason: string; plain: HttpExchange; probe: HttpExchange };

/**
 * The oldest item's own timestamp, as served (byte for byte): the one form of `before` a target that
 * supports it must read (§4: before is set "from the date of the last result"; its format is not
 * shown, spec-gaps #8). Undefined when no item has a readable one.
 */
export function oldestServed(items: readonly JsonObject[], field: string): string | undefined {
  let oldest: string | undefined;
  for (const item of items) {
    const value = item[field];
    if (typeof value !== "string" || Number.isNaN(Date.parse(value))) continue;
    if (oldest === undefined || Date.parse(value) < Date.parse(oldest)) oldest = value;
  }
  return oldest;
}

const ids = (items: readonly JsonObject[]): string => JSON.stringify(items.map((i) => i.id));

/**
 * spec-gaps #8, exactly: a `before` at the oldest item of the list's largest page, in the form the
 * target serves it. Supported: what comes back is strictly before it (nothing, when the page held the
 * whole list); ignored: the unfiltered page back; anything else is broken.
 */
export function beforeSupport(
  ctx: CheckContext,
  list: ListName,
  token: ManifestToken,
): Promise<BeforeSupport> {
  return ctx.shared.get(BEFORE_SUPPORT).get(`${list}:${token.label}`, async (): Promise<BeforeSupport> => {
    const limit = String(ctx.spec.MAX.pageMax);
    const plain = await currentPage(ctx, list, token);
    const items = itemsOf(plain);
    if (items === undefined) return { kind: "undecided", reason: `the list itself answered ${plain.status}` };
    if (items.length === 0) {
      return { kind: "undecided", reason: "the list is empty, so a filter cannot show" };
    }
    const field = ctx.spec.LISTS[list].orderField;
    const before = oldestServed(items, field);
    if (before === undefined) {
      return { kind: "undecided", reason: `no item has a readable ${field} to send as before` };
    }
    const probe = await ctx.http.send(listRequest(ctx, list, token, { limit, before }));
    const filtered = itemsOf(probe);
    if (filtered === undefined) {
      return { kind: "broken", reason: `before=${before} answered ${probe.status}`, plain, probe };
    }
    const strictlyBefore = filtered.every(
      (i) => typeof i[field] === "string" && Date.parse(i[field]) < Date.parse(before),
    );
    const whole = items.length < ctx.spec.MAX.pageMax;
    if (strictlyBefore && (!whole || filtered.length === 0)) return { kind: "supported", plain, probe };
    if (ids(filtered) === ids(items)) return { kind: "ignored", plain, probe };
    return {
      kind: "broken",
      reason: `before=${before}, the oldest item's own ${field}, gave ${filtered.length} items that are neither all strictly before it nor the unfiltered list`,
      plain,
      probe,
    };
  });
}

// ---- finding a record in a list ---------------------------------------------------------------------

export type Located =
  | { found: JsonObject; exchange: HttpExchange }
  /** exhaustive: every item of the list was read, so the record is not there. */
  | { found: undefined; exhaustive: boolean; pages: number; exchange: HttpExchange };

/**
 * Looks for an item in a list that may hold more than one page: the largest page first, then, if the
 * target supports `before`, older pages (at most `maxPages`). A list whose page is not in newest-first
 * order cannot be walked, so it is searched no further than its first page.
 */
export async function locate(
  ctx: CheckContext,
  list: ListName,
  token: ManifestToken,
  match: (item: JsonObject) => boolean,
  maxPages = 5,
): Promise<Located> {
  const limit = String(ctx.spec.MAX.pageMax);
  const field = ctx.spec.LISTS[list].orderField;
  let exchange = await ctx.http.send(listRequest(ctx, list, token, { limit }));
  for (let page = 1; ; page += 1) {
    const items = itemsOf(exchange);
    if (items === undefined) return { found: undefined, exhaustive: false, pages: page, exchange };
    const found = items.find(match);
    if (found !== undefined) return { found, exchange };
    // A short page ends the list, as §4's pagination reads it (a walk may still skip items sharing
    // the last item's instant: spec-gaps #9).
    if (items.length < ctx.spec.MAX.pageMax)
      return { found: undefined, exhaustive: true, pages: page, exchange };
    const times = items.map((i) => (typeof i[field] === "string" ? Date.parse(i[field]) : Number.NaN));
    const ordered = times.every((t, i) => !Number.isNaN(t) && (i === 0 || t <= (times[i - 1] ?? t)));
    if (page >= maxPages || !ordered) return { found: undefined, exhaustive: false, pages: page, exchange };
    if ((await beforeSupport(ctx, list, token)).kind !== "supported") {
      return { found: undefined, exhaustive: false, pages: page, exchange };
    }
    const last = items[items.length - 1]?.[field];
    exchange = await ctx.http.send(listRequest(ctx, list, token, { limit, before: String(last) }));
  }
}

export interface WholeList {
  items: JsonObject[];
  /** Every item of the list was read (a short page ended it). */
  complete: boolean;
  /** The last page read. */
  exchange: HttpExchange;
}

/**
 * A list read to its end: the largest page, then older pages through `before` where the target
 * supports it (at most `maxPages`). Not complete when a page could not be walked past.
 */
export async function readWhole(
  ctx: CheckContext,
  list: ListName,
  token: ManifestToken,
  maxPages = 5,
): Promise<WholeList> {
  const items: JsonObject[] = [];
  let complete = false;
  const located = await locate(
    ctx,
    list,
    token,
    (item) => {
      items.push(item);
      return false;
    },
    maxPages,
  );
  if (located.found === undefined) complete = located.exhaustive;
  return { items, complete, exchange: located.exchange };
}

/**
 * A record the run created, as organization 0's list shows it. Not found: a failure when the list was
 * read to its end, a skip when it could not be (more than a page, and no `before` to walk it).
 */
export async function requireListed(
  ctx: CheckContext,
  list: ListName,
  match: (item: JsonObject) => boolean,
  what: string,
  /** The creation: a failure replays it before the list read. */
  created?: HttpExchange,
): Promise<{ item: JsonObject; exchange: HttpExchange }> {
  const located = await locate(ctx, list, fullToken(ctx), match);
  if (located.found !== undefined) return { item: located.found, exchange: located.exchange };
  expectStatus(located.exchange, 200, `GET ${ctx.spec.LISTS[list].path} must answer 200`);
  if (!located.exhaustive) {
    return ctx.skip(`${what} is not on the pages read, and the list could not be read to its end`);
  }
  return fail(`${what}, just created, is not in the organization's list (§4)`, {
    key: failureKey("created, not listed", ctx.spec.LISTS[list].path),
    expected: `${what} listed`,
    actual: "no such item in the whole list",
    exchange: located.exchange,
    evidence: [created, located.exchange],
  });
}
