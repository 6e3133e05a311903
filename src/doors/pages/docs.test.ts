import express from "express";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { committedText, OPENAPI_JSON_PATH } from "../../test-support/openapi-artifacts.js";
import { docsRouter } from "./docs.js";

const app = express().use(docsRouter({ tryItToken: 'acct_"<token>' }));

describe("GET /openapi.json", () => {
  it("serves the committed document as JSON", async () => {
    const res = await request(app).get("/openapi.json");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(res.body).toEqual(JSON.parse((await committedText(OPENAPI_JSON_PATH)) ?? "null"));
  });

  it("carries no CORS header, even to a cross-origin request", async () => {
    const res = await request(app).get("/openapi.json").set("Origin", "https://elsewhere.example");
    expect(Object.keys(res.headers).filter((h) => h.startsWith("access-control-"))).toEqual([]);
  });
});

describe("GET /docs", () => {
  it("serves a page that loads only this server's files, with no inline script", async () => {
    const res = await request(app).get("/docs");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
    const urls = [...res.text.matchAll(/(?:src|href)="([^"]*)"/g)].map((m) => m[1]);
    expect(urls).toEqual([
      "/assets/favicon.svg",
      "/docs/assets/swagger-ui.css",
      "/docs/docs.css",
      "/",
      "/",
      "/settings/api-tokens",
      "/docs",
      "/docs/assets/swagger-ui-bundle.js",
      "/docs/init.js",
    ]);
    expect(res.text).not.toMatch(/<script>|<script [^>]*>[^<]/);
    expect(res.headers["content-security-policy"]).toContain("default-src 'none'");
    expect(res.headers["content-security-policy"]).toContain("connect-src 'self'");
    expect(res.headers["content-security-policy"]).not.toContain("unsafe-eval");
  });

  it("escapes the try-it token into an attribute", async () => {
    const res = await request(app).get("/docs");
    expect(res.text).toContain('data-try-it-token="acct_&#34;&#60;token&#62;"');
  });

  it("builds its links under the path it is mounted at", async () => {
    const mounted = express().use("/pages", docsRouter());
    const res = await request(mounted).get("/pages/docs");
    expect(res.text).toContain('src="/pages/docs/assets/swagger-ui-bundle.js"');
    expect(res.text).toContain('data-spec-url="/pages/openapi.json"');
    expect(res.text).not.toContain("data-try-it-token");
  });

  it.each([
    ["/docs/assets/swagger-ui-bundle.js", "text/javascript; charset=utf-8"],
    ["/docs/assets/swagger-ui.css", "text/css; charset=utf-8"],
    ["/docs/init.js", "text/javascript; charset=utf-8"],
  ])("serves %s from node_modules with its type", async (path, type) => {
    const res = await request(app).get(path);
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe(type);
    expect(Object.keys(res.headers).filter((h) => h.startsWith("access-control-"))).toEqual([]);
  });

  it.each([
    "/docs/assets/index.html",
    "/docs/assets/swagger-initializer.js",
    "/docs/assets/..%2Fpackage.json",
    "/docs/",
  ])("does not serve %s", async (path) => {
    expect((await request(app).get(path)).status).toBe(404);
  });
});
