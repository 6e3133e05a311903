import { http, type HttpHandler } from "msw";
import { createReference, type CreateReferenceOptions, type Reference } from "../entry/reference.js";

/**
 * `accounting-api-reference/msw`: Mock Service Worker handlers (msw 2, `setupServer` in Node) that
 * answer every request under a base URL through `reference.fetch`, so that component tests get the
 * reference's answers (tokens, scopes, limits, errors, state) without a server. Node only: in a
 * browser, run the server (docs/frontend.md, "Component tests").
 */

/** A reference, a promise of one, or the options to create one on the first request. */
export type ReferenceSource = Reference | Promise<Reference> | CreateReferenceOptions;

const isReference = (source: ReferenceSource): source is Reference =>
  "fetch" in source && typeof source.fetch === "function" && "app" in source;

/**
 * The handlers for `setupServer(...referenceHandlers(reference, "http://localhost:4010"))`. Every
 * request whose URL is under `baseUrl` (its origin, and its path when it has one) goes to the
 * reference, pre-flights included, with the base's path taken off; any other request is left to the
 * other handlers and to msw's `onUnhandledRequest`. A `drop` fault answers `Response.error()`, which
 * msw turns into the network error `fetch` and `XMLHttpRequest` report.
 */
export function referenceHandlers(source: ReferenceSource, baseUrl: string | URL): HttpHandler[] {
  const base = new URL(baseUrl);
  // "/backend" for a base URL with a path, "" for an origin alone.
  const prefix = base.pathname.replace(/\/+$/, "");
  // Compared as text: the request's URL and the base are both serialized by URL, so that the base's
  // origin and path begin the request's URL exactly when the request is under it.
  const root = `${base.origin}${prefix}`;
  const under = (url: string): boolean =>
    url.startsWith(root) && (url.length === root.length || "/?#".includes(url.charAt(root.length)));
  let reference: Promise<Reference> | undefined;
  let ready: Reference | undefined;
  const resolve = async (): Promise<Reference> =>
    (ready ??= await (reference ??= isReference(source)
      ? Promise.resolve(source)
      : source instanceof Promise
        ? source
        : createReference(source)));

  return [
    http.all(
      ({ request }) => under(request.url),
      async ({ request }) => {
        const { fetch } = ready ?? (await resolve());
        try {
          return await fetch(prefix === "" ? request : await rebased(request, prefix));
        } catch (err) {
          // A connection closed without an answer (a `drop` fault); an abort is the client's own.
          if (err instanceof TypeError) return Response.error();
          throw err;
        }
      },
    ),
  ];
}

/** The request as the reference sees it: the base URL's path taken off. */
async function rebased(request: Request, prefix: string): Promise<Request> {
  const url = new URL(request.url);
  url.pathname = url.pathname.slice(prefix.length) || "/";
  return new Request(url, {
    method: request.method,
    headers: request.headers,
    body: request.body === null ? null : await request.arrayBuffer(),
    signal: request.signal,
  });
}
