/**
 * Near misses of a real token (§5.6 "invalid" → 401): what a server comparing tokens loosely would
 * accept. Each differs from the token in one way a careless comparison ignores: letter case, one
 * character dropped, added or changed, the prefix's case.
 */
export interface NearMiss {
  /** How it differs from the real token, as a failure names it. */
  what: string;
  value: string;
}

const swapCase = (c: string): string => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase());
const isLetter = (c: string): boolean => c.toLowerCase() !== c.toUpperCase();

/** A character other than `c`, of the same kind (digit or letter), so that the shape stays plausible. */
const other = (c: string): string => (/\d/.test(c) ? String((Number(c) + 1) % 10) : c === "Q" ? "R" : "Q");

/**
 * The near misses of `token`, whose prefix is `prefix` (without its underscore). Each differs from
 * the token; a case change is left out when the secret has no letter.
 */
export function nearMisses(token: string, prefix: string): NearMiss[] {
  const head = `${prefix}_`;
  const secret = token.startsWith(head) ? token.slice(head.length) : token;
  const start = token.length - secret.length;
  const chars = [...token];
  const middle = start + Math.floor(secret.length / 2);
  const at = (i: number, replace: (c: string) => string[]): string =>
    chars.flatMap((c, j) => (j === i ? replace(c) : [c])).join("");
  const firstLetter = chars.findIndex((c, i) => i >= start && isLetter(c));
  const out: NearMiss[] = [
    {
      what: "every letter's case changed",
      value: token.slice(0, start) + [...secret].map(swapCase).join(""),
    },
    ...(firstLetter === -1
      ? []
      : [{ what: "one letter's case changed", value: at(firstLetter, (c) => [swapCase(c)]) }]),
    { what: "the prefix in another case", value: token.slice(0, start).toUpperCase() + secret },
    { what: "its last character dropped", value: token.slice(0, -1) },
    { what: "its first character after the prefix dropped", value: at(start, () => []) },
    { what: "one character dropped from the middle", value: at(middle, () => []) },
    { what: "one character added at the end", value: `${token}x` },
    { what: "one character added in the middle", value: at(middle, (c) => [c, other(c)]) },
    { what: "its last character changed", value: at(chars.length - 1, (c) => [other(c)]) },
  ];
  return out.filter((m) => m.value !== token);
}
