import type { HttpExchange } from "../types.js";
import type { ProductDraft } from "./arbitraries.js";
import type { JsonObject } from "./assert.js";
import type { FormOutcome } from "./coverage.js";
import type { BeforeSupport, ContactVariant, Created, CreatedProduct, ProductVariant } from "./data.js";

/**
 * What the checks of one run share, each field typed and filled by the first check that asks: reads
 * made once (the first page of a list), records created once and read by several checks, and the
 * experiments a PROBE and its REFERENCE judge together. A check run alone (--grep) fills what it needs;
 * a whole run fills each once. One per run (the runner makes it), so runs side by side share nothing.
 */
export class SharedData {
  /** The last number `unique()` handed out: no two records of a run share a name or sku by chance. */
  sequence = 0;

  // ---- reads (support/data.ts), keyed by list and token label ----
  /** The largest first page of each list, as each token sees it. */
  readonly firstPages = new Memo<string, HttpExchange>();
  /** One filtered read at the largest page, per list, filter value and token. */
  readonly filteredPages = new Memo<string, HttpExchange>();
  /** Whether each list takes `before` (spec-gaps #8), per token. */
  readonly beforeSupport = new Memo<string, BeforeSupport>();

  // ---- the run's reference records (support/data.ts, contacts.ts, products.ts) ----
  readonly createdContacts = new Memo<ContactVariant, Created>();
  readonly createdProducts = new Memo<ProductVariant, CreatedProduct>();
  /** Each reference contact as organization 0's list shows it. */
  readonly listedContacts = new Memo<ContactVariant, ListedContact>();
  /** Each reference product as organization 0's list shows it. */
  readonly listedProducts = new Memo<ProductVariant, ListedProduct>();

  // ---- the coverage phase: each input's forms, judged by its MUST check and shown by its PROBE ----
  readonly coverage = new Memo<string, FormOutcome[]>();

  // ---- experiments a PROBE and its REFERENCE both judge ----
  /** contacts.astral-length and contacts.reference-astral. */
  readonly astral = new Once<AstralExperiment>();
  /** contacts.blank-strings and contacts.reference-blank. */
  readonly contactBlank = new Once<ContactBlankExperiment>();
  /** contacts.unknown-field and contacts.reference-unknown-field. */
  readonly contactUnknownField = new Once<HttpExchange>();
  /** products.unit-price-precision and products.reference-decimals, by the unitPrice's JSON text. */
  readonly prices = new Memo<string, PriceExperiment>();
  /** products.blank-strings and products.reference-blank: each blank field's answer, by what it is. */
  readonly productBlank = new Once<Record<string, HttpExchange>>();
  /** errors.near-paths and errors.reference-near-paths. */
  readonly nearPaths = new Once<readonly NearPathAnswer[]>();
  /** cors.errors and cors.reference-errors: error answers to a request from another origin. */
  readonly corsErrors = new Once<readonly HttpExchange[]>();
  /** The rate-limit burst the final phase's checks read (ratelimit.ts). */
  readonly burst = new Once<Burst>();
  /** The burst of refused requests (ratelimit.counts-failures), with a token of its own. */
  readonly failureBurst = new Once<Burst>();
  /** What the rate limit reads as counting (ratelimit.scope), once it could be told. */
  rateScope: "token" | "organization" | "address" | undefined;
}

/**
 * Promises made once per key for the run. A rejected one is forgotten, so that the next check asking
 * tries again rather than inherit another check's skip or failure.
 */
export class Memo<K, V> {
  readonly #made = new Map<K, Promise<V>>();

  get(key: K, make: () => Promise<V>): Promise<V> {
    const hit = this.#made.get(key);
    if (hit !== undefined) return hit;
    const made = make();
    this.#made.set(key, made);
    made.catch(() => this.#made.delete(key));
    return made;
  }
}

/** A Memo of one value. */
export class Once<V> {
  readonly #memo = new Memo<null, V>();

  get(make: () => Promise<V>): Promise<V> {
    return this.#memo.get(null, make);
  }
}

// ---- the shapes of what is shared ------------------------------------------------------------------

export interface ListedContact {
  item: JsonObject;
  sent: JsonObject;
  /** The list read that found it. */
  exchange: HttpExchange;
  created: HttpExchange;
}

export interface ListedProduct {
  item: JsonObject;
  draft: ProductDraft;
  exchange: HttpExchange;
  created: HttpExchange;
}

export interface AstralExperiment {
  /** 200 code points, many astral: more than 200 UTF-16 units. */
  atMax: HttpExchange;
  atMaxName: string;
  /** 201 code points, many astral. */
  overMax: HttpExchange;
  /** Exactly 200 UTF-16 units (fewer code points): sent only when `atMax` is refused. */
  utf16Max?: HttpExchange;
}

export interface ContactBlankExperiment {
  empty: HttpExchange;
  spaces: HttpExchange;
}

export interface PriceExperiment {
  text: string;
  ex: HttpExchange;
  /** What the target stored, when it accepted: from the creation answer, else the list. */
  stored: unknown;
}

export interface NearPathAnswer {
  what: string;
  ex: HttpExchange;
}

export interface Burst {
  /** Requests sent up to the 429 (included), or in all when none came. */
  sent: number;
  first: HttpExchange | undefined;
  /** The 429, if one came. */
  limited: HttpExchange | undefined;
  /** An answer that was neither 200 nor 429: the burst stopped on it. */
  unexpected: HttpExchange | undefined;
  /** From the first request sent to the last answer read. */
  durationMs: number;
}
