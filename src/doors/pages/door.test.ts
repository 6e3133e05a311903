import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import request from "supertest";
import { describe, expect } from "vitest";
import { expectError, referenceTest, testReference } from "../../test-support/reference.js";
import { NEW_TOKEN_PATH, TOKENS_PATH, createThroughPage, openBrowser } from "../../test-support/pages.js";
import { SECURITY_HEADERS } from "./guard.js";

// The pages' door: which paths are its own, who may reach them, forms and their CSRF field, and
// templates that always escape.

const it = referenceTest();

describe("which paths are the pages'", () => {
  it("serves the landing page: base URL, organizations, links to the token pages and the docs", async ({
    ref,
  }) => {
    const res = await request(ref.app).get("/").set("Host", "127.0.0.1:4010");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(res.text).toMatch(/^<!doctype html><html lang="en">/);
    expect(res.text).toContain("<code>http://127.0.0.1:4010</code>");
    for (const org of ref.store.organizations()) expect(res.text).toContain(org.id);
    for (const href of [TOKENS_PATH, NEW_TOKEN_PATH, "/docs"]) expect(res.text).toContain(`href="${href}"`);
    expect(res.text).toContain("curl -H &quot;Authorization: Bearer $TOKEN&quot;");
  });

  it.for([
    { path: "/assets/pages.css", type: "text/css; charset=utf-8" },
    { path: "/assets/pages.js", type: "text/javascript; charset=utf-8" },
    { path: "/assets/favicon.svg", type: "image/svg+xml" },
    { path: "/favicon.ico", type: "image/x-icon" },
  ])("serves $path as $type", async ({ path, type }, { ref }) => {
    const res = await request(ref.app).get(path);
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe(type);
  });

  it("answers /favicon.ico itself: no CORS, and the API door (its 401, its rate limit) never sees it", async ({
    ref,
  }) => {
    const res = await request(ref.app).get("/favicon.ico");
    expect(res.status).toBe(200);
    expect(res.headers["access-control-allow-origin"]).toBeUndefined();
    expect(res.headers.ratelimit).toBeUndefined();
    expect(ref.control.journal()).toEqual([]);
  });

  it.for([
    "/settings/nothing",
    "/settings/api-tokens/",
    "/settings/api-tokens/tok_x/revoke/x",
    "/SETTINGS/api-tokens",
  ])("answers %s under the pages' prefix with an HTML 404 page (or hands it on)", async (path, { ref }) => {
    // With an API token, so that a path handed on to the API reaches its 404 (a page ignores it).
    const res = await request(ref.app).get(path).set(ref.auth("lumiere-full"));
    expect(res.status).toBe(404);
    if (path.startsWith("/settings/")) {
      expect(res.headers["content-type"]).toMatch(/^text\/html/);
      expect(res.text).toContain("Page not found");
    } else {
      expectError(res, 404, "not_found");
    }
  });

  it.for(["/nothing", "/assets/other.css", "/index.html", "/api/v1/nothing"])(
    "leaves %s to the other doors: the JSON 404 envelope",
    async (path, { ref }) => {
      const res = await request(ref.app).get(path).set(ref.auth("lumiere-full"));
      expectError(res, 404, "not_found");
    },
  );

  it("sends its security headers, no CORS and nothing cacheable, on pages, errors and assets", async ({
    ref,
  }) => {
    const browser = await openBrowser(ref, "org_lumiere");
    const responses = [
      await request(ref.app).get("/").set("Origin", "http://127.0.0.1:5173"),
      await browser.agent.get(TOKENS_PATH).set("Origin", "http://127.0.0.1:5173"),
      await request(ref.app).get("/settings/nothing"),
      await request(ref.app).get("/assets/pages.js"),
      await request(ref.app).options(TOKENS_PATH).set("Origin", "http://evil.example"),
    ];
    for (const res of responses) {
      for (const [name, value] of Object.entries(SECURITY_HEADERS)) {
        expect(res.headers[name.toLowerCase()], name).toBe(value);
      }
      expect(Object.keys(res.headers).filter((h) => h.startsWith("access-control-"))).toEqual([]);
    }
  });
});

describe("who may reach the pages", () => {
  const NAVIGATE = { "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document" };
  const rows: { why: string; method: "get" | "post"; headers: Record<string, string>; status: number }[] = [
    { why: "a request to 127.0.0.1", method: "get", headers: { Host: "127.0.0.1:4010" }, status: 200 },
    { why: "a request to localhost", method: "get", headers: { Host: "localhost:4010" }, status: 200 },
    { why: "a request to [::1]", method: "get", headers: { Host: "[::1]:4010" }, status: 200 },
    {
      why: "a DNS-rebinding page (Host: its own domain)",
      method: "get",
      headers: { Host: "attacker.example:4010" },
      status: 403,
    },
    {
      why: "a rebinding page even as a navigation",
      method: "get",
      headers: { Host: "attacker.example", "Sec-Fetch-Site": "same-origin", ...NAVIGATE },
      status: 403,
    },
    {
      why: "a link followed from another site",
      method: "get",
      headers: { "Sec-Fetch-Site": "cross-site", ...NAVIGATE },
      status: 200,
    },
    {
      why: "another site's fetch or <img>",
      method: "get",
      headers: { "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors", "Sec-Fetch-Dest": "image" },
      status: 403,
    },
    {
      why: "another site's <iframe>",
      method: "get",
      headers: { "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "iframe" },
      status: 403,
    },
    {
      why: "another site's form",
      method: "post",
      headers: { "Sec-Fetch-Site": "cross-site", Origin: "http://evil.example", ...NAVIGATE },
      status: 403,
    },
    {
      why: "a form from another port of the same host (same-site, another origin)",
      method: "post",
      headers: { "Sec-Fetch-Site": "same-site", Origin: "http://127.0.0.1:5173" },
      status: 403,
    },
    {
      why: "a form with another Origin and no Sec-Fetch-Site",
      method: "post",
      headers: { Origin: "http://evil.example" },
      status: 403,
    },
  ];

  it.for(rows)("answers $why with $status", async ({ method, headers, status }, { ref }) => {
    const browser = await openBrowser(ref, "org_lumiere");
    const before = ref.tokens.list("org_lumiere").length;
    const req =
      method === "get"
        ? browser.agent.get(TOKENS_PATH)
        : browser.agent
            .post(TOKENS_PATH)
            .type("form")
            .send({ _csrf: browser.csrf, name: "x", scopes: "contacts:read" });
    const res = await req.set(headers);
    expect(res.status, res.text.slice(0, 300)).toBe(status);
    expect(res.headers["content-type"]).toMatch(/^text\/html/);
    expect(ref.tokens.list("org_lumiere")).toHaveLength(before);
  });

  it("takes a host name given to the server (--host) besides IP literals and localhost", async () => {
    const named = await testReference({ allowedHosts: ["devbox.internal"] });
    const res = await request(named.app).get("/").set("Host", "devbox.internal:4010");
    expect(res.status).toBe(200);
  });
});

describe("forms and CSRF", () => {
  it("puts a CSRF field in every form that posts, on every page", async ({ ref }) => {
    const browser = await openBrowser(ref, "org_lumiere");
    const pages = [
      await browser.agent.get("/"),
      await browser.agent.get(TOKENS_PATH),
      await browser.agent.get(NEW_TOKEN_PATH),
      await browser.agent.get(`${TOKENS_PATH}/${ref.tokenId("lumiere-full")}/revoke`),
      (await createThroughPage(browser, { name: "csrf", scopes: "contacts:read" })).page,
    ];
    let forms = 0;
    for (const page of pages) {
      for (const form of page.text.match(/<form[^>]*method="post".*?<\/form>/gs) ?? []) {
        forms += 1;
        expect(form).toContain(`name="_csrf" value="${browser.csrf}"`);
      }
    }
    expect(forms).toBe(3);
  });

  const refusals: { why: string; csrf: (own: string, other: string) => string | undefined }[] = [
    { why: "no CSRF field", csrf: () => undefined },
    { why: "a CSRF field from another browser", csrf: (_own, other) => other },
    {
      why: "a CSRF field that was tampered with",
      csrf: (own) => `${own.slice(0, -1)}${own.endsWith("0") ? "1" : "0"}`,
    },
  ];
  it.for(refusals)("refuses a form with $why, and nothing changes", async ({ csrf }, { ref }) => {
    const browser = await openBrowser(ref, "org_lumiere");
    const other = await openBrowser(ref, "org_lumiere");
    const field = csrf(browser.csrf, other.csrf);
    const before = ref.tokens.list("org_lumiere").length;
    const posts = [
      browser.agent
        .post(TOKENS_PATH)
        .type("form")
        .send({ ...(field === undefined ? {} : { _csrf: field }), name: "x", scopes: "contacts:read" }),
      browser.agent
        .post(`${TOKENS_PATH}/${ref.tokenId("lumiere-full")}/revoke`)
        .type("form")
        .send({ ...(field === undefined ? {} : { _csrf: field }), confirm: "yes" }),
    ];
    for (const res of await Promise.all(posts)) {
      expect(res.status).toBe(403);
      expect(res.text).toContain("Nothing changed");
    }
    expect(ref.tokens.list("org_lumiere")).toHaveLength(before);
    expect(ref.tokens.get(ref.tokenId("lumiere-full"))?.status).toBe("Active");
  });

  it("gives an API bearer token no access: it neither signs in nor stands for the CSRF field", async ({
    ref,
  }) => {
    const page = await request(ref.app).get(TOKENS_PATH).set(ref.auth("lumiere-full"));
    expect(page.status).toBe(200);
    expect(page.text).not.toContain("data-token-id");
    const post = await request(ref.app)
      .post(TOKENS_PATH)
      .set(ref.auth("lumiere-full"))
      .type("form")
      .send({ name: "x", scopes: "contacts:read" });
    expect(post.status).toBe(403);
    expect(ref.tokens.list("org_lumiere")).toHaveLength(
      ref.manifest.tokens.filter((t) => t.organization === "org_lumiere").length,
    );
  });

  it("refuses a form body that is not a form with 403, not with an error", async ({ ref }) => {
    const browser = await openBrowser(ref, "org_lumiere");
    const res = await browser.agent
      .post(TOKENS_PATH)
      .set("Content-Type", "application/json")
      .send(JSON.stringify({ _csrf: browser.csrf }));
    expect(res.status).toBe(403);
  });
});

describe("the templates", () => {
  it("never opt out of escaping", async () => {
    const dir = new URL(".", import.meta.url).pathname;
    const sources = (await readdir(dir)).filter((f) => /\.tsx?$/.test(f) && !f.endsWith(".test.ts"));
    expect(sources.length).toBeGreaterThan(3);
    for (const file of sources) {
      const text = await readFile(join(dir, file), "utf8");
      expect(text, file).not.toMatch(/dangerouslySetInnerHTML=|\braw\(|"hono\/html"/);
    }
  });
});
