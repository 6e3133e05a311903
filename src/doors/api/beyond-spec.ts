import type { NextFunction, Response } from "express";
import type { BeyondSpec } from "../../store/faults.js";
import { apiContext } from "./context.js";

/**
 * The failures beyond the spec that a fault may inject (src/store/faults.ts): what a gateway, a proxy
 * or a cut connection sends in place of the API's JSON. §7 lists none of them; they are answered only
 * while such a fault is armed. Each page carries a comment saying it was injected.
 */

const page = (status: string, kind: BeyondSpec, body: string): string =>
  `<html>\r\n<!-- accounting-api-reference: injected fault "${kind}", beyond the spec (§7 lists no such answer) -->\r\n` +
  `<head><title>${status}</title></head>\r\n<body>\r\n${body}\r\n</body>\r\n</html>\r\n`;

const gateway = (status: string, kind: BeyondSpec) =>
  page(status, kind, `<center><h1>${status}</h1></center>\r\n<hr><center>nginx</center>`);

const PAGES: Record<Exclude<BeyondSpec, "truncated_body">, { status: number; html: string }> = {
  bad_gateway: { status: 502, html: gateway("502 Bad Gateway", "bad_gateway") },
  service_unavailable: {
    status: 503,
    html: gateway("503 Service Temporarily Unavailable", "service_unavailable"),
  },
  gateway_timeout: { status: 504, html: gateway("504 Gateway Time-out", "gateway_timeout") },
  // What a proxy's sign-in page or a dev server's index.html fallback looks like to a fetch: 200, HTML.
  html_page: {
    status: 200,
    html: page(
      "Sign in",
      "html_page",
      '<h1>Sign in</h1>\r\n<form method="post" action="/login"><input name="user"><button>Continue</button></form>',
    ),
  },
};

/** Answers the request as the failure `kind`, or lets it go on to be cut short on its way out. */
export function failBeyondSpec(kind: BeyondSpec, res: Response, next: NextFunction): void {
  if (kind === "truncated_body") {
    cutShort(res);
    next();
    return;
  }
  const { status, html } = PAGES[kind];
  const bytes = Buffer.from(html, "utf8");
  res.statusCode = status;
  res.setHeader("Content-Type", "text/html");
  res.setHeader("Content-Length", bytes.length);
  res.end(bytes);
}

/**
 * The answer goes out with its status, its headers and the length of its whole body, then only the
 * first half of the body before the connection closes: what a client sees when a proxy or the
 * network drops it midway.
 */
function cutShort(res: Response): void {
  const end = (chunk?: unknown): Response => {
    const bytes =
      typeof chunk === "string"
        ? Buffer.from(chunk, "utf8")
        : Buffer.isBuffer(chunk)
          ? chunk
          : Buffer.alloc(0);
    if (!res.headersSent) res.setHeader("Content-Length", bytes.length);
    const half = bytes.subarray(0, Math.floor(bytes.length / 2));
    apiContext(res).responseBody = half;
    res.write(half, () => res.socket?.destroy());
    return res;
  };
  // Own property over the prototype's `end`: only this response is cut.
  Object.defineProperty(res, "end", { value: end, configurable: true, writable: true });
}
