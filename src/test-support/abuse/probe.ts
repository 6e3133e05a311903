/**
 * What a probe of the abuse suite is (requests as a hostile or clumsy client writes them, as raw
 * bytes), and the helpers the catalogue writes them with.
 */

export interface ProbeContext {
  /** A token with every scope (`lumiere-full`). */
  token: string;
  /** A fixture token by label. */
  tokenOf(label: string): string;
}

export interface Probe {
  name: string;
  /** What is written, in order, on one fresh connection. */
  send(ctx: ProbeContext): string | Buffer | (string | Buffer)[];
  /** The status every answer must have; undefined when several are acceptable. */
  status?: number;
  /** How many answers to wait for (pipelining); 1 by default. */
  responses?: number;
  /** Half-close after writing. */
  end?: boolean;
  /** The answers have no body (HEAD). */
  bodiless?: boolean;
}

export type ProbeClass = "framing" | "json" | "query" | "token" | "slow";

export const HOST = "Host: 127.0.0.1";
export const CONTACTS = "/api/v1/contacts";
export const PRODUCTS = "/api/v1/products";
export const LISTS = ["/api/v1/contacts", "/api/v1/products", "/api/v1/invoices", "/api/v1/expenses"];

export const req = (line: string, headers: readonly string[], body = "") =>
  `${line}\r\n${headers.map((h) => `${h}\r\n`).join("")}\r\n${body}`;
export const bearer = (ctx: ProbeContext) => `Authorization: Bearer ${ctx.token}`;
export const get = (
  target: string,
  headers: (ctx: ProbeContext) => readonly string[] = (ctx) => [bearer(ctx)],
) => {
  return (ctx: ProbeContext) => req(`GET ${target} HTTP/1.1`, [HOST, ...headers(ctx)]);
};
export const postJson =
  (body: string | Buffer, path = CONTACTS, extra: readonly string[] = []) =>
  (ctx: ProbeContext) => {
    const bytes = typeof body === "string" ? Buffer.from(body, "utf8") : body;
    const head = req(`POST ${path} HTTP/1.1`, [
      HOST,
      bearer(ctx),
      "Content-Type: application/json",
      `Content-Length: ${bytes.length}`,
      ...extra,
    ]);
    return [head, bytes];
  };
/** A POST to the contacts with the full token, then these header lines and this body, as written. */
export const post = (headers: readonly string[], body: string) => (ctx: ProbeContext) =>
  req(`POST ${CONTACTS} HTTP/1.1`, [HOST, bearer(ctx), ...headers], body);
/** A GET of the contacts with a fixture token. */
export const getAs = (label: string) =>
  get(CONTACTS, (ctx) => [`Authorization: Bearer ${ctx.tokenOf(label)}`]);
export const chunk = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;

/** A reproducible byte source (mulberry32), so that the garbage probes are the same in every run. */
export function bytesFrom(seed: number, length: number): Buffer {
  let state = seed;
  const out = Buffer.alloc(length);
  for (let i = 0; i < length; i += 1) {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    out[i] = ((t ^ (t >>> 14)) >>> 0) & 0xff;
  }
  return out;
}
