import { randomBytes } from "node:crypto";

/** Makes a new identifier for a record of one kind (spec-gaps #3: opaque, random, unique). */
export type IdGenerator = (prefix: string) => string;

export const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** 62 * 4: bytes at or above it are rejected, otherwise `byte % 62` would favour the first 8 chars. */
const UNBIASED_LIMIT = 248;

/** `length` base62 characters, each equally likely, from a source of random bytes. */
export function drawBase62(source: (n: number) => Uint8Array, length: number): string {
  let out = "";
  while (out.length < length) {
    // Ask for a few spare bytes: about 3% are rejected, and one call usually suffices.
    const bytes = source(length - out.length + 8);
    for (const byte of bytes) {
      if (byte >= UNBIASED_LIMIT) continue;
      out += BASE62.charAt(byte % 62);
      if (out.length === length) break;
    }
  }
  return out;
}

export const randomIds: IdGenerator = (prefix) => `${prefix}_${drawBase62(randomBytes, 16)}`;
