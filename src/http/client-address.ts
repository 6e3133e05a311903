import { isIPv6 } from "node:net";

/** How many leading bits of an IPv6 address name one client: a /56 is what an ISP hands one customer. */
const IPV6_CLIENT_BITS = 56;

/**
 * What requests without a known token are rate-limited by (spec-gaps #21): the client's IPv4 address,
 * or the /56 network of its IPv6 address, since one IPv6 client can draw from a whole /64 or /56 to
 * dodge a limit counted per address. Written as `<first address of the network, RFC 5952>/56`, the
 * key express-rate-limit's `ipKeyGenerator` gives (a test holds the two equal); the package itself
 * is no longer loaded for it (DECISIONS.md, "The request path (issue #28)").
 */
export function clientAddressKey(ip: string): string {
  if (!isIPv6(ip)) return ip;
  const groups = ipv6Groups(ip);
  for (let g = 0; g < 8; g++) {
    const kept = Math.max(0, Math.min(16, IPV6_CLIENT_BITS - g * 16));
    groups[g] = (groups[g] ?? 0) & (kept === 0 ? 0 : (0xffff << (16 - kept)) & 0xffff);
  }
  return `${rfc5952(groups)}/${IPV6_CLIENT_BITS}`;
}

/** The eight 16-bit groups of an IPv6 address (`::` expanded, a trailing IPv4 as two groups, no zone). */
function ipv6Groups(ip: string): number[] {
  let text = ip.split("%")[0] ?? "";
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4 !== null) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((h) => parseInt(h, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/** RFC 5952 §4: lower case, no leading zeros, the longest run of two or more zero groups as `::` (the first of equals). */
function rfc5952(groups: readonly number[]): string {
  let best = { at: -1, length: 0 };
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > best.length && j - i >= 2) best = { at: i, length: j - i };
    i = j === i ? i + 1 : j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best.at < 0) return hex.join(":");
  const before = hex.slice(0, best.at).join(":");
  const after = hex.slice(best.at + best.length).join(":");
  return `${before}::${after}`;
}
