import { hash as hashOnce, randomBytes as cryptoRandomBytes, timingSafeEqual } from "node:crypto";
import type { Clock } from "../model/clock.js";
import { drawBase62 } from "./ids.js";
import type { Scope } from "../model/records.js";
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
export interface TokenView {
  id: string;
  name: string;
  organizationId: string;
  /** Sorted in SCOPES order, no duplicates. */
  scopes: Scope[];
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  requestCount: number;
  /** Computed at the clock's now. */
  status: TokenStatus;
  /** prefix + "_…" + the last 4 chars: enough to recognise a token, far too little to guess it. */
  hint: string;
}

/** What `lookup` finds for a token given in clear; `tokenId` names a known token that is unusable. */
export type Lookup =
  | { ok: true; token: TokenView }
  | { ok: false; reason: "malformed" | "unknown" | "revoked" | "expired"; tokenId?: string };

/**
 * A token's whole record as persistence keeps it: the SHA-256 of the token in hex, never the token.
 * What `export` gives and `restore` takes.
 */
export type TokenData = Omit<TokenView, "status"> & {
  /** Hex of the SHA-256 of the token. */
  hash: string;
};

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
}

/** One-shot `crypto.hash` (Node 20.12+): every API request hashes its token, and it skips a Hash object. */
function sha256(token: string): Buffer {
  return hashOnce("sha256", token, "buffer");
}

/** The hex SHA-256 a registry keeps of a token: which registry (which sandbox) issued it. */
export const tokenDigest = (token: string): string => hashOnce("sha256", token, "hex");

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
  return {
    ...common(record),
    hash: record.hash.toString("hex"),
    hint: record.hint,
  };
}

export class TokenRegistry {
  readonly #prefix: string;
  readonly #clock: Clock;
  readonly #randomBytes: (n: number) => Uint8Array;
  readonly #byId = new Map<string, TokenRecord>();
  /** Keyed by the hex of the hash; the match is then confirmed in constant time. */
  readonly #byHash = new Map<string, TokenRecord>();
  readonly #tokenRe: RegExp;
  readonly #onChange: (change: TokenChange) => void;

  constructor(options: TokenRegistryOptions) {
    if (typeof options.prefix !== "string" || !PREFIX_RE.test(options.prefix)) {
      throw invalid("prefix", "prefix must be a letter followed by letters or digits");
    }
    this.#prefix = options.prefix;
    this.#clock = options.clock;
    this.#randomBytes = options.randomBytes ?? ((n) => cryptoRandomBytes(n));
    this.#tokenRe = new RegExp(`^${options.prefix}_[0-9A-Za-z]{${MIN_SECRET_LENGTH},}$`);
    this.#onChange = options.onChange ?? (() => {});
  }

  get prefix(): string {
    return this.#prefix;
  }

  /** Whether `token` has this registry's form (its prefix, then 32 or more base62 characters). */
  isWellFormed(token: string): boolean {
    return this.#tokenRe.test(token);
  }

  /** Whether this registry holds the token of this `tokenDigest`, whatever its state. */
  holds(digest: string): boolean {
    return this.#byHash.has(digest);
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
    if (typeof input.token !== "string" || !this.#tokenRe.test(input.token)) {
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
   * Finds the token presented in clear. Never counts a use: the caller does, once it has decided to.
   * Text that cannot be one of this registry's tokens (another prefix, too short, other characters)
   * is `malformed`, told apart from a well-formed token nobody issued (`unknown`).
   */
  lookup(token: string): Lookup {
    if (!this.#tokenRe.test(token)) return { ok: false, reason: "malformed" };
    const hash = sha256(token);
    const record = this.#byHash.get(hash.toString("hex"));
    // The Map lookup only narrows the candidate; equality is confirmed without an early exit (spec-gaps #2).
    if (record === undefined || !timingSafeEqual(record.hash, hash)) return { ok: false, reason: "unknown" };
    const view = this.#view(record, this.#clock.now().getTime());
    if (view.status === "Revoked") return { ok: false, reason: "revoked", tokenId: record.id };
    if (view.status === "Expired") return { ok: false, reason: "expired", tokenId: record.id };
    return { ok: true, token: view };
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
    const record: TokenRecord = {
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
    };
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
    const record: TokenRecord = {
      ...fields,
      id,
      lastUsedAt: null,
      requestCount: 0,
      hash,
      hint: `${this.#prefix}_…${token.slice(-HINT_TAIL)}`,
    };
    this.#byId.set(record.id, record);
    this.#byHash.set(hash.toString("hex"), record);
    return record;
  }

  #view(record: TokenRecord, now: number): TokenView {
    // A literal and Object.assign, not a spread: every request builds a view (DECISIONS.md, "Performance").
    // Revoked wins over Expired: revocation is a deliberate act, expiry only the passing of time.
    const status: TokenStatus =
      record.revokedAt !== null
        ? "Revoked"
        : record.expiresAt !== null && record.expiresAt <= now
          ? "Expired"
          : "Active";
    return Object.assign(common(record), { status, hint: record.hint });
  }
}
