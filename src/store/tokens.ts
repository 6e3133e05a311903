import { hash as hashOnce, randomBytes as cryptoRandomBytes, timingSafeEqual } from "node:crypto";
import type { Clock } from "../model/clock.js";
import { drawBase62 } from "./ids.js";
import type { Scope, TokenData } from "../model/records.js";
import {
  TokenError,
  checkExpiry,
  checkName,
  checkOrganizationId,
  invalid,
  isValidDate,
  normalizeScopes,
} from "./token-rules.js";

/**
 * API tokens (§5, §3 Token status): creation, revocation, lookup of a token given in clear and
 * usage counting. Knows nothing of HTTP: src/auth reads the `Authorization` header and maps a
 * `Lookup` to 401/403; the token pages (§5.2, §5.3, §5.5, §5.7) drive `create`, `revoke` and `list`.
 *
 * Only a SHA-256 hash of each token is kept (spec-gaps #2): the clear token leaves `create` once and
 * cannot be shown again (§5.3).
 */

export type TokenStatus = "Active" | "Expired" | "Revoked";

/** What a usage view may show: never the secret, never the hash. */
export type TokenView = Omit<TokenData, "hash"> & {
  /** Computed at the clock's now. */
  status: TokenStatus;
};

/**
 * What a request presenting a token acts as: the parts of a token that never change while it lives.
 * Made once per token and frozen, so that looking a token up on every request builds nothing.
 */
export interface TokenIdentity {
  readonly id: string;
  readonly name: string;
  readonly organizationId: string;
  /** Sorted in SCOPES order, no duplicates. */
  readonly scopes: readonly Scope[];
}

/**
 * A token presented in clear that has this server's form, hashed: what a request's token is looked
 * up by, in the registries of the default state and of every sandbox alike, without hashing again.
 */
export interface TokenDigest {
  // Not Buffer: this type reaches the package's declarations, which a project without @types/node reads.
  readonly hash: Uint8Array;
  /** Hex of `hash`: the key the registries and the sandboxes find a token by. */
  readonly hex: string;
}

/**
 * What `find` finds for a digest: an active token, or why it cannot be used; `token` then names a
 * known token that is revoked or expired (such a request is still that token's: rate limit, journal).
 */
export type Found =
  | { readonly ok: true; readonly token: TokenIdentity }
  | {
      readonly ok: false;
      readonly reason: "unknown" | "revoked" | "expired";
      readonly token?: TokenIdentity;
    };

/** What `lookup` finds for a token given in clear; `tokenId` names a known token that is unusable. */
export type Lookup =
  | { ok: true; token: TokenView }
  | { ok: false; reason: "malformed" | "unknown" | "revoked" | "expired"; tokenId?: string };

/**
 * What the registry tells its observer: a token created or revoked (`stored`, the whole record), or
 * a use counted (`used`, only the id: usage is written lazily, see DECISIONS.md "Persistence").
 * Seeding (`import`, `remove`, `restore`) is not told: a reset or a load is covered by a snapshot.
 */
export type TokenChange = { type: "stored"; data: TokenData } | { type: "used"; id: string };

export interface TokenRegistryOptions {
  prefix: string;
  clock: Clock;
  randomBytes?: (n: number) => Uint8Array;
  onChange?: (change: TokenChange) => void;
}

/** 40 * log2(62) ≈ 238 bits, well above the ≥ 190 of spec-gaps #2. */
const SECRET_LENGTH = 40;
/** What `import` and `resolve` accept: 32 chars is the ≥ 190-bit floor of spec-gaps #2. */
const MIN_SECRET_LENGTH = 32;
const ID_PREFIX = "tok_";
const ID_LENGTH = 16;
const HINT_TAIL = 4;
/** A random source that keeps repeating itself is broken; failing beats looping forever. */
const MAX_DRAWS = 8;

const PREFIX_RE = /^[A-Za-z][A-Za-z0-9]*$/;

/** The form of a server's tokens: its prefix, an underscore, then 32 or more base62 characters. */
export class TokenForm {
  readonly prefix: string;
  readonly #re: RegExp;

  constructor(prefix: string) {
    if (typeof prefix !== "string" || !PREFIX_RE.test(prefix)) {
      throw invalid("prefix", "prefix must be a letter followed by letters or digits");
    }
    this.prefix = prefix;
    this.#re = new RegExp(`^${prefix}_[0-9A-Za-z]{${MIN_SECRET_LENGTH},}$`);
  }

  /** Whether `token` has this form. */
  test(token: string): boolean {
    return this.#re.test(token);
  }

  /** The digest of `token`, or undefined when it cannot be a token of this form: checked once, hashed once. */
  digest(token: string): TokenDigest | undefined {
    if (!this.#re.test(token)) return undefined;
    const hash = sha256(token);
    return { hash, hex: hash.toString("hex") };
  }
}

const UNKNOWN: Found = Object.freeze({ ok: false, reason: "unknown" });

/** The record behind a view. `hash` is the only trace of the secret besides the 4-char hint. */
interface TokenRecord {
  readonly id: string;
  readonly name: string;
  readonly organizationId: string;
  readonly scopes: readonly Scope[];
  readonly createdAt: number;
  readonly expiresAt: number | null;
  revokedAt: number | null;
  lastUsedAt: number | null;
  requestCount: number;
  readonly hash: Buffer;
  readonly hint: string;
  /**
   * The unchanging part, and what `find` answers while the token is active: made once, frozen, where
   * every request used to build a view of its token (six objects, DECISIONS.md, "The request path
   * (issue #28)").
   */
  readonly identity: TokenIdentity;
  readonly active: Found;
}

/** The record of a token, its identity and `find`'s answer for it made once. */
function recordOf(
  fields: Omit<TokenRecord, "identity" | "active" | "scopes"> & { scopes: readonly Scope[] },
): TokenRecord {
  const identity: TokenIdentity = Object.freeze({
    id: fields.id,
    name: fields.name,
    organizationId: fields.organizationId,
    scopes: Object.freeze([...fields.scopes]),
  });
  return {
    id: fields.id,
    name: fields.name,
    organizationId: fields.organizationId,
    scopes: identity.scopes,
    createdAt: fields.createdAt,
    expiresAt: fields.expiresAt,
    revokedAt: fields.revokedAt,
    lastUsedAt: fields.lastUsedAt,
    requestCount: fields.requestCount,
    hash: fields.hash,
    hint: fields.hint,
    identity,
    active: Object.freeze({ ok: true, token: identity }),
  };
}

/** One-shot `crypto.hash` (Node 20.12+): every API request hashes its token, and it skips a Hash object. */
function sha256(token: string): Buffer {
  return hashOnce("sha256", token, "buffer");
}

function toDate(ms: number | null): Date | null {
  return ms === null ? null : new Date(ms);
}

/** What a view and the kept data share: the record with its instants as dates. */
function common(record: TokenRecord) {
  return {
    id: record.id,
    name: record.name,
    organizationId: record.organizationId,
    scopes: [...record.scopes],
    createdAt: new Date(record.createdAt),
    expiresAt: toDate(record.expiresAt),
    revokedAt: toDate(record.revokedAt),
    lastUsedAt: toDate(record.lastUsedAt),
    requestCount: record.requestCount,
  };
}

function toData(record: TokenRecord): TokenData {
  return Object.assign(common(record), { hash: record.hash.toString("hex"), hint: record.hint });
}

export class TokenRegistry {
  readonly #prefix: string;
  readonly #clock: Clock;
  readonly #randomBytes: (n: number) => Uint8Array;
  readonly #byId = new Map<string, TokenRecord>();
  /** Keyed by the hex of the hash; the match is then confirmed in constant time. */
  readonly #byHash = new Map<string, TokenRecord>();
  readonly #onChange: (change: TokenChange) => void;
  /** The form of this registry's tokens: a request's token is checked and hashed with it once. */
  readonly form: TokenForm;

  constructor(options: TokenRegistryOptions) {
    this.form = new TokenForm(options.prefix);
    this.#prefix = options.prefix;
    this.#clock = options.clock;
    this.#randomBytes = options.randomBytes ?? ((n) => cryptoRandomBytes(n));
    this.#onChange = options.onChange ?? (() => {});
  }

  get prefix(): string {
    return this.#prefix;
  }

  /** Whether this registry holds the token of this digest (hex), whatever its state. */
  holds(hex: string): boolean {
    return this.#byHash.has(hex);
  }

  create(input: {
    organizationId: string;
    name: string;
    scopes: readonly Scope[];
    expiresAt?: Date | null;
  }): { token: string; view: TokenView } {
    const now = this.#clock.now().getTime();
    const organizationId = checkOrganizationId(input.organizationId);
    const name = checkName(input.name);
    const scopes = normalizeScopes(input.scopes, false);
    const expiresAt = checkExpiry(input.expiresAt, now);

    for (let attempt = 0; attempt < MAX_DRAWS; attempt++) {
      const token = `${this.#prefix}_${drawBase62(this.#randomBytes, SECRET_LENGTH)}`;
      const hash = sha256(token);
      if (this.#byHash.has(hash.toString("hex"))) continue;
      const record = this.#store(
        { organizationId, name, scopes, createdAt: now, expiresAt, revokedAt: null },
        token,
        hash,
      );
      this.#onChange({ type: "stored", data: toData(record) });
      return { token, view: this.#view(record, now) };
    }
    throw new Error("the random source keeps producing tokens that already exist");
  }

  /** Seeds a token given in clear (fixtures). Expired or revoked fixtures are allowed on purpose. */
  import(input: {
    token: string;
    organizationId: string;
    name: string;
    scopes: readonly Scope[];
    expiresAt: Date | null;
    revoked?: boolean;
    createdAt?: Date | undefined;
    /** A fixed id, so that a fixture token keeps its id across resets. */
    id?: string | undefined;
  }): TokenView {
    const now = this.#clock.now().getTime();
    if (typeof input.token !== "string" || !this.form.test(input.token)) {
      throw invalid(
        "token",
        `token must be "${this.#prefix}_" followed by at least ${MIN_SECRET_LENGTH} base62 characters`,
      );
    }
    const organizationId = checkOrganizationId(input.organizationId);
    const name = checkName(input.name);
    // A fixture token without scopes is legitimate: it is how a client sees 403 on every endpoint.
    const scopes = normalizeScopes(input.scopes, true);
    if (input.expiresAt !== null && !isValidDate(input.expiresAt)) {
      throw invalid("expiresAt", "expiresAt must be a valid date or null");
    }
    if (input.createdAt !== undefined && !isValidDate(input.createdAt)) {
      throw invalid("createdAt", "createdAt must be a valid date");
    }
    const hash = sha256(input.token);
    if (this.#byHash.has(hash.toString("hex"))) throw invalid("token", "token already exists");
    if (input.id !== undefined && this.#byId.has(input.id)) throw invalid("id", "id already exists");
    const createdAt = input.createdAt?.getTime() ?? now;
    const record = this.#store(
      {
        organizationId,
        name,
        scopes,
        createdAt,
        expiresAt: input.expiresAt?.getTime() ?? null,
        revokedAt: input.revoked === true ? createdAt : null,
      },
      input.token,
      hash,
      input.id,
    );
    return this.#view(record, now);
  }

  /** Forgets the tokens of one organization, or every token: a reset to the fixtures re-imports them. */
  remove(organizationId?: string): void {
    for (const record of [...this.#byId.values()]) {
      if (organizationId !== undefined && record.organizationId !== organizationId) continue;
      this.#byId.delete(record.id);
      this.#byHash.delete(record.hash.toString("hex"));
    }
  }

  revoke(id: string): TokenView {
    const record = this.#require(id);
    const now = this.#clock.now().getTime();
    // Irreversible (§3): the first revocation instant stands, a second revoke is a no-op.
    if (record.revokedAt === null) {
      record.revokedAt = now;
      this.#onChange({ type: "stored", data: toData(record) });
    }
    return this.#view(record, now);
  }

  get(id: string): TokenView | undefined {
    const record = this.#byId.get(id);
    return record === undefined ? undefined : this.#view(record, this.#clock.now().getTime());
  }

  list(organizationId: string): TokenView[] {
    const now = this.#clock.now().getTime();
    return [...this.#byId.values()]
      .filter((r) => r.organizationId === organizationId)
      .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
      .map((r) => this.#view(r, now));
  }

  /**
   * Finds the token of a digest (`form.digest`): what every API request does, so an active token's
   * answer is made once per token, not per request. Never counts a use: the caller does, once it has
   * decided to.
   */
  find(digest: TokenDigest): Found {
    const record = this.#byHash.get(digest.hex);
    // The Map lookup only narrows the candidate; equality is confirmed without an early exit (spec-gaps #2).
    if (record === undefined || !timingSafeEqual(record.hash, digest.hash)) return UNKNOWN;
    const status = statusOf(record, this.#clock.now().getTime());
    if (status === "Revoked") return { ok: false, reason: "revoked", token: record.identity };
    if (status === "Expired") return { ok: false, reason: "expired", token: record.identity };
    return record.active;
  }

  /**
   * Finds the token presented in clear, as a view. Text that cannot be one of this registry's tokens
   * (another prefix, too short, other characters) is `malformed`, told apart from a well-formed token
   * nobody issued (`unknown`).
   */
  lookup(token: string): Lookup {
    const digest = this.form.digest(token);
    if (digest === undefined) return { ok: false, reason: "malformed" };
    const found = this.find(digest);
    if (found.ok)
      return { ok: true, token: this.#view(this.#require(found.token.id), this.#clock.now().getTime()) };
    return found.token === undefined
      ? { ok: false, reason: found.reason }
      : { ok: false, reason: found.reason, tokenId: found.token.id };
  }

  /** The unchanging part of a token (its label, organization and scopes), by id. */
  identity(id: string): TokenIdentity | undefined {
    return this.#byId.get(id)?.identity;
  }

  /**
   * Counts one request (spec-gaps #28). Not refused for a token revoked meanwhile: the request being
   * counted was accepted while the token was active.
   */
  recordUse(id: string): void {
    const record = this.#require(id);
    record.requestCount += 1;
    record.lastUsedAt = this.#clock.now().getTime();
    this.#onChange({ type: "used", id });
  }

  /** Every token's record, hash included, in creation order of the registry: for a snapshot. */
  export(): TokenData[] {
    return [...this.#byId.values()].map(toData);
  }

  /** One token's record, for persistence to write after a change. */
  exportOne(id: string): TokenData | undefined {
    const record = this.#byId.get(id);
    return record === undefined ? undefined : toData(record);
  }

  /**
   * Puts back a record read from a data directory, or replaces the one with the same id (a later
   * revocation or usage count). The hash is checked against the id's: a token never changes secret.
   */
  restore(data: TokenData): void {
    if (!/^[0-9a-f]{64}$/.test(data.hash)) throw invalid("hash", "hash must be a SHA-256 in hex");
    const existing = this.#byId.get(data.id);
    if (existing !== undefined && existing.hash.toString("hex") !== data.hash) {
      throw invalid("hash", `token ${data.id} is already known with another hash`);
    }
    const other = this.#byHash.get(data.hash);
    if (other !== undefined && other.id !== data.id) {
      throw invalid("hash", `token ${data.id} has the hash of token ${other.id}`);
    }
    const record = recordOf({
      id: data.id,
      name: checkName(data.name),
      organizationId: checkOrganizationId(data.organizationId),
      scopes: normalizeScopes(data.scopes, true),
      createdAt: data.createdAt.getTime(),
      expiresAt: data.expiresAt?.getTime() ?? null,
      revokedAt: data.revokedAt?.getTime() ?? null,
      lastUsedAt: data.lastUsedAt?.getTime() ?? null,
      requestCount: data.requestCount,
      hash: Buffer.from(data.hash, "hex"),
      hint: data.hint,
    });
    this.#byId.set(record.id, record);
    this.#byHash.set(data.hash, record);
  }

  #require(id: string): TokenRecord {
    const record = this.#byId.get(id);
    if (record === undefined) throw new TokenError("not_found", `no token with id ${String(id)}`);
    return record;
  }

  #newId(): string {
    for (let attempt = 0; attempt < MAX_DRAWS; attempt++) {
      const id = ID_PREFIX + drawBase62(this.#randomBytes, ID_LENGTH);
      if (!this.#byId.has(id)) return id;
    }
    throw new Error("the random source keeps producing token ids that already exist");
  }

  /** `token` is only read here for its last chars; it is not kept. */
  #store(
    fields: Pick<TokenRecord, "organizationId" | "name" | "scopes" | "createdAt" | "expiresAt" | "revokedAt">,
    token: string,
    hash: Buffer,
    id: string = this.#newId(),
  ): TokenRecord {
    const record = recordOf({
      id,
      organizationId: fields.organizationId,
      name: fields.name,
      scopes: fields.scopes,
      createdAt: fields.createdAt,
      expiresAt: fields.expiresAt,
      revokedAt: fields.revokedAt,
      lastUsedAt: null,
      requestCount: 0,
      hash,
      hint: `${this.#prefix}_…${token.slice(-HINT_TAIL)}`,
    });
    this.#byId.set(record.id, record);
    this.#byHash.set(hash.toString("hex"), record);
    return record;
  }

  #view(record: TokenRecord, now: number): TokenView {
    return Object.assign(common(record), { status: statusOf(record, now), hint: record.hint });
  }
}

/** Revoked wins over Expired: revocation is a deliberate act, expiry only the passing of time. */
function statusOf(record: TokenRecord, now: number): TokenStatus {
  if (record.revokedAt !== null) return "Revoked";
  if (record.expiresAt !== null && record.expiresAt <= now) return "Expired";
  return "Active";
}
