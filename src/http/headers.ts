import type { IncomingMessage } from "node:http";

/**
 * Every value of the header `name` (lower case), in the order sent. `req.headers` cannot tell: Node
 * keeps only the first of single-value headers such as Authorization, Content-Type and Host.
 */
export function headerValues(req: IncomingMessage, name: string): string[] {
  const values: string[] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i]?.toLowerCase() === name) values.push(req.rawHeaders[i + 1] ?? "");
  }
  return values;
}

/** How many header lines named `name` (lower case) the request carried. */
export const headerCount = (req: IncomingMessage, name: string): number => headerValues(req, name).length;
