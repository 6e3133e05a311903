import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import express, { type Response, type Router } from "express";
import type { Spec } from "../../../spec/index.js";
import type { OpenApiDocument } from "../../openapi/document.js";
import { packageRoot } from "../../store/fixtures/paths.js";

/**
 * The OpenAPI document at `/openapi.json` and its docs page at `/docs`, served from this package
 * only: no CDN, font, telemetry or validator service is ever asked for anything. A
 * web page, not the API: no CORS headers (the pages door that mounts it checks Host and refuses
 * cross-site requests). "Try it" sends its requests to the server that served the document.
 */

export interface DocsOptions {
  /** The document to serve; the reference's own by default. */
  document?: OpenApiDocument;
  /** The spec the reference serves (`--spec`): its document is served, with its numbers and fields. */
  spec?: Spec | undefined;
  /**
   * A token the page fills in for "try it", e.g. a fixture token of the reference (they are test
   * tokens, printed in its banner). Never pass a real token: the page shows it to whoever loads it.
   */
  tryItToken?: string;
}

/**
 * Swagger UI's files: from swagger-ui-dist in a checkout of this project (a devDependency), and from
 * the copy the build makes in `dist/swagger-ui/` in the installed package, which does not depend on
 * swagger-ui-dist (its dependency @scarf/scarf runs an install script in every project).
 */
function swaggerUiDir(): string {
  try {
    return dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
  } catch {
    return join(packageRoot(), "dist", "swagger-ui");
  }
}
const SWAGGER_UI_DIR = swaggerUiDir();

/** Only what the page loads: not swagger-ui-dist's own index.html, whose initializer asks the Internet. */
const ASSETS: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
};

/** Everything from this server; inline styles because Swagger UI sets some. No inline script. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function pageHtml(base: string, tryItToken: string | undefined): string {
  const token = tryItToken === undefined ? "" : ` data-try-it-token="${escapeHtml(tryItToken)}"`;
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Accounting API</title>
    <link rel="icon" type="image/svg+xml" href="${base}/assets/favicon.svg" />
    <link rel="stylesheet" href="${base}/docs/assets/swagger-ui.css" />
    <link rel="stylesheet" href="${base}/docs/docs.css" />
  </head>
  <body>
    <header class="docs-header">
      <a class="docs-site" href="${base}/">Accounting API reference</a>
      <nav aria-label="Main">
        <a href="${base}/">Home</a>
        <a href="${base}/settings/api-tokens">API tokens</a>
        <a href="${base}/docs" aria-current="page">Docs</a>
      </nav>
    </header>
    <div id="swagger-ui"></div>
    <script src="${base}/docs/assets/swagger-ui-bundle.js"></script>
    <script src="${base}/docs/init.js" data-spec-url="${base}/openapi.json"${token}></script>
  </body>
</html>
`;
}

/**
 * The way back to the other pages, and Swagger UI made to fit a phone: at 360 px its tables and an
 * expanded operation's summary were wider than the screen (593 px). Tables scroll inside their own
 * box; the summary wraps; the operation id, repeated in the operation's body, gives way.
 */
const DOCS_CSS = `.docs-header {
  display: flex;
  flex-wrap: wrap;
  align-items: center;
  justify-content: space-between;
  gap: 0.5rem 1.5rem;
  padding: 0.75rem 1rem;
  border-bottom: 1px solid #d8dde3;
  background: #f5f7fa;
  font-family: system-ui, sans-serif;
}
.docs-header a { color: #0b57d0; }
.docs-site { font-weight: 700; color: #1b1f24 !important; text-decoration: none; }
.docs-header nav { display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; }
.docs-header a[aria-current="page"] { font-weight: 700; color: #1b1f24; }
body { margin: 0; }
.swagger-ui table { display: block; max-width: 100%; overflow-x: auto; }
.swagger-ui .opblock .opblock-summary { flex-wrap: wrap; }
.swagger-ui .opblock .opblock-summary-path { max-width: none; }
@media (max-width: 40rem) {
  .swagger-ui .wrapper { padding: 0 0.5rem; }
  .swagger-ui .opblock .opblock-summary-operation-id { display: none; }
  .swagger-ui .opblock .opblock-summary-description { flex-basis: 100%; }
  .swagger-ui .opblock-body pre, .swagger-ui .highlight-code { max-width: 100%; overflow-x: auto; }
}
`;

/** Served as a file so that the page needs no inline script (the policy above forbids them). */
const INIT_JS = `"use strict";
(function () {
  var script = document.currentScript;
  var token = script.dataset.tryItToken;
  var ui = SwaggerUIBundle({
    url: script.dataset.specUrl,
    dom_id: "#swagger-ui",
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
    deepLinking: false,
    tryItOutEnabled: true,
    displayOperationId: true,
    // The default sends the document to validator.swagger.io for a badge.
    validatorUrl: null,
    onComplete: function () {
      // Works for an http bearer scheme too: it stores the value under the scheme's name.
      if (token) ui.preauthorizeApiKey("bearerAuth", token);
    },
  });
  window.ui = ui;
})();
`;

function pageHeaders(res: Response): void {
  res.set({
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
  });
}

/** GET /openapi.json, GET /docs and the page's assets under /docs/. Mount it on the pages door. */
export function docsRouter(options: DocsOptions = {}): Router {
  // Built on its first request, not at start (DECISIONS.md, "Performance").
  let json: Promise<string> | undefined;
  const documentJson = () =>
    (json ??= import("../../openapi/document.js").then(({ buildOpenApiDocument, renderOpenApiJson }) =>
      renderOpenApiJson(options.document ?? buildOpenApiDocument({ spec: options.spec })),
    ));
  const router = express.Router({ strict: true, caseSensitive: true });

  router.get("/openapi.json", async (_req, res) => {
    const body = await documentJson();
    res.set({ "X-Content-Type-Options": "nosniff", "Cache-Control": "no-cache" });
    res.type("application/json; charset=utf-8").send(body);
  });
  router.get("/docs", (req, res) => {
    pageHeaders(res);
    res.type("text/html; charset=utf-8").send(pageHtml(req.baseUrl, options.tryItToken));
  });
  router.get("/docs/docs.css", (_req, res) => {
    pageHeaders(res);
    res.type("text/css; charset=utf-8").send(DOCS_CSS);
  });
  router.get("/docs/init.js", (_req, res) => {
    pageHeaders(res);
    res.type("text/javascript; charset=utf-8").send(INIT_JS);
  });
  router.get("/docs/assets/:file", (req, res, next) => {
    const type = ASSETS[req.params.file];
    if (type === undefined) {
      next();
      return;
    }
    pageHeaders(res);
    res.sendFile(join(SWAGGER_UI_DIR, req.params.file), { headers: { "Content-Type": type } });
  });
  return router;
}
