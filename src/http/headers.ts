import type { IncomingMessage } from "node:http";

/**
 * Every value of the header `name` (lower case), in the order sent. `req.headers` cannot tell: Node
 * keeps only the first of single-value headers such as Authorization, Content-Type and Host.
 */
export function headerValues(req: IncomingMessage, name: string): string[] {
  const values: string[] = [];
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const line = raw[i] as string;
    // The length first: most names differ in it, and lower-casing one makes a string.
    if (line.length === name.length && line.toLowerCase() === name) values.push(raw[i + 1] ?? "");
  }
  return values;
}

/** How many header lines named `name` (lower case) the request carried. */
export const headerCount = (req: IncomingMessage, name: string): number => headerValues(req, name).length;
