/**
 * The spec text the kit's reading of it (clauses.ts, constants.ts) was written from: its file name
 * and the SHA-256 of its bytes. The spec is not shipped in the package, so the hash is kept here and
 * source.test.ts compares it with the spec file beside the project: when the spec changes, that test
 * fails until the clauses are read again against the new text and the hash is updated.
 */
export const SPEC_SOURCE = {
  file: "accounting-api.md",
  sha256: "c712cf8fc0cfdb1b31b826abe530039031121c41995319874438523ae0d5f956",
} as const;
