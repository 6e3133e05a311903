import type { IncomingMessage } from "node:http";

/**
 * How many header lines named `name` (lower case) the request carried. `req.headers` cannot tell:
 * Node keeps only the first of single-value headers such as Authorization, Content-Type and Host.
 */
export function headerCount(req: IncomingMessage, name: string): number {
  let n = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i]?.toLowerCase() === name) n += 1;
  }
  return n;
}
