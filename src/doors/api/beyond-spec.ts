import type { BeyondSpec } from "../../store/faults.js";
import type { Exchange } from "./exchange.js";

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

/**
 * Answers the request as the failure `kind` (true), or marks its answer to be cut short on its way
 * out and lets it go on (false): what a client sees when a proxy or the network drops it midway.
 */
export function failBeyondSpec(kind: BeyondSpec, exchange: Exchange): boolean {
  if (kind === "truncated_body") {
    exchange.cutShort();
    return false;
  }
  const { status, html } = PAGES[kind];
  exchange.send(status, "text/html", Buffer.from(html, "utf8"));
  return true;
}
