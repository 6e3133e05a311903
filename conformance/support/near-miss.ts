/**
 * Near misses of a real token (§5.6 "invalid" → 401): what a server comparing tokens loosely would
 * accept. Each differs from the token in one way a careless comparison ignores: letter case, one
 * character dropped, added or changed, the prefix's case. Each comes with the shell form that rebuilds
 * it from the token's variable, so that a report replays it without spelling the secret out.
 */
export interface NearMiss {
  /** How it differs from the real token, as a failure names it. */
  what: string;
  value: string;
  /** The value as a fragment of a double-quoted shell word, `$T` standing for the token. */
  shell: string;
}

const swapCase = (c: string): string => (/[a-z]/.test(c) ? c.toUpperCase() : c.toLowerCase());
const isLetter = (c: string): boolean => /[A-Za-z]/.test(c);

/** A character other than `c`, of the same kind (digit or letter), so that the shape stays plausible. */
const other = (c: string): string => (/\d/.test(c) ? String((Number(c) + 1) % 10) : c === "Q" ? "R" : "Q");

/** Literal text inside double quotes. */
const quoted = (text: string): string => text.replace(/["\\$`]/g, "\\$&");

/** Bytes `from` to `to` of the token (1-based, inclusive; to the end without `to`), as `cut` counts them. */
const cut = (from: number, to?: number): string => `$(printf %s "$T" | cut -c${from}-${to ?? ""})`;

/**
 * The near misses of `token`, whose prefix is `prefix` (without its underscore). Each differs from
 * the token; a case change is left out when the secret has no letter (only ASCII letters change case,
 * as `tr` changes them).
 */
export function nearMisses(token: string, prefix: string): NearMiss[] {
  const head = token.startsWith(`${prefix}_`) ? `${prefix}_` : "";
  const chars = [...token];
  const start = [...head].length;
  const bytesBefore = (i: number): number => Buffer.byteLength(chars.slice(0, i).join(""));
  /** Deletes `del` characters at `i` and inserts `insert` there. */
  const splice = (what: string, i: number, del: number, insert: string): NearMiss => ({
    what,
    value: chars.slice(0, i).join("") + insert + chars.slice(i + del).join(""),
    shell:
      (i === 0 ? "" : cut(1, bytesBefore(i))) +
      quoted(insert) +
      (i + del >= chars.length ? "" : cut(bytesBefore(i + del) + 1)),
  });
  const headBytes = Buffer.byteLength(head);
  const secret = chars.slice(start).join("");
  const middle = start + Math.floor((chars.length - start) / 2);
  const firstLetter = chars.findIndex((c, i) => i >= start && isLetter(c));
  const last = chars.length - 1;
  const out: NearMiss[] = [
    ...(firstLetter === -1
      ? []
      : [
          {
            what: "every letter's case changed",
            value: head + [...secret].map(swapCase).join(""),
            shell:
              (headBytes === 0 ? "" : cut(1, headBytes)) +
              `$(printf %s "$T" | cut -c${headBytes + 1}- | tr a-zA-Z A-Za-z)`,
          },
          splice("one letter's case changed", firstLetter, 1, swapCase(chars[firstLetter] ?? "")),
        ]),
    {
      what: "the prefix in another case",
      value: head.toUpperCase() + secret,
      shell: quoted(head.toUpperCase()) + cut(headBytes + 1),
    },
    splice("its last character dropped", last, 1, ""),
    splice("its first character after the prefix dropped", start, 1, ""),
    splice("one character dropped from the middle", middle, 1, ""),
    splice("one character added at the end", chars.length, 0, "x"),
    splice("one character added in the middle", middle + 1, 0, other(chars[middle] ?? "")),
    splice("its last character changed", last, 1, other(chars[last] ?? "")),
  ];
  return out.filter((m) => m.value !== token);
}

/**
 * A token-shaped value as a report may show it: the prefix, the first and last three characters of
 * the rest, and how many are hidden between them. A near miss spelled out whole would give away all
 * but one character of the real token.
 */
export function maskInPart(value: string, prefix: string): string {
  const head = value.toLowerCase().startsWith(`${prefix.toLowerCase()}_`)
    ? value.slice(0, prefix.length + 1)
    : "";
  const rest = [...value.slice(head.length)];
  if (rest.length <= 8) return `${head}${"•".repeat(rest.length)}`;
  return `${head}${rest.slice(0, 3).join("")}…(${rest.length - 6} hidden)…${rest.slice(-3).join("")}`;
}
