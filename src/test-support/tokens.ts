import fc from "fast-check";
import { ManualClock } from "../model/clock.js";
import { SCOPES, type Scope } from "../model/records.js";
import { TokenError } from "../store/token-rules.js";
import { TokenRegistry } from "../store/tokens.js";

// Shared by the token registry's tests and the authentication's: a registry on a manual clock, a
// reproducible random source, and the arbitraries their properties draw from.

// Fixed so that a failure replays as is; FC_SEED=<n> explores other runs. fast-check prints the seed
// and path of any counterexample.
export const FC_SEED = process.env.FC_SEED === undefined ? 20_250_115 : Number(process.env.FC_SEED);
export const fcParams = { seed: FC_SEED, numRuns: 100 } as const;

export const PREFIX = "acct";
export const T0 = new Date("2025-01-15T12:00:00.000Z");
export const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
export const TOKEN_RE = /^acct_[0-9A-Za-z]{40}$/;
export const ID_RE = /^tok_[0-9A-Za-z]{16}$/;
export const MINUTE = 60_000;

/** mulberry32: a reproducible byte source, so that properties replay with their seed. */
export function seededRandomBytes(seed: number): (n: number) => Uint8Array {
  let state = seed >>> 0;
  return (n) => {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      state = (state + 0x6d2b79f5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      out[i] = ((t ^ (t >>> 14)) >>> 0) & 0xff;
    }
    return out;
  };
}

export function setup(options: { randomBytes?: (n: number) => Uint8Array; prefix?: string } = {}) {
  const clock = new ManualClock(T0);
  const registry = new TokenRegistry({ prefix: options.prefix ?? PREFIX, clock, ...options });
  return { clock, registry };
}

export const base = {
  organizationId: "org_lumiere",
  name: "Integration",
  scopes: ["contacts:read"] as Scope[],
};

/** A well-formed token no registry issued. */
export const foreignToken = (): string => `${PREFIX}_${"Q".repeat(40)}`;

export function catchTokenError(fn: () => unknown): TokenError {
  try {
    fn();
  } catch (err) {
    if (err instanceof TokenError) return err;
    throw err;
  }
  throw new Error("expected a TokenError");
}

/** Every 5-char slice of the secret: finding any of them somewhere means more than the hint leaked. */
export function leakWindows(token: string): string[] {
  const secret = token.slice(PREFIX.length + 1);
  return Array.from({ length: secret.length - 4 }, (_, i) => secret.slice(i, i + 5));
}

// --- arbitraries -----------------------------------------------------------------------------------

/** Any non-empty choice of scopes, with repeats and in any order, as a careless form might send. */
export const scopeSetArb = fc.array(fc.constantFrom(...SCOPES), { minLength: 1, maxLength: 16 });
/** Valid names: 1 to 100 code points, astral ones included, not blank. */
export const nameArb = fc
  .string({ unit: "binary", minLength: 1, maxLength: 100 })
  .filter((s) => s.trim() !== "" && [...s].length <= 100);
export const randomSeedArb = fc.integer({ min: 0, max: 0xffffffff });
/** Expiry relative to creation: none, or 1 ms to a year ahead. */
/** "bearer" with each letter in either case. */
export const bearerCaseArb = fc
  .tuple(...[..."bearer"].map((c) => fc.constantFrom(c, c.toUpperCase())))
  .map((cs) => cs.join(""));
export const expiryOffsetArb = fc.option(fc.integer({ min: 1, max: 365 * 24 * 60 * MINUTE }), { nil: null });
