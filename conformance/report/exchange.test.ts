import { describe, expect, it } from "vitest";
import { nth, testManifest } from "../test-support/local.js";
import { runVariant } from "../test-support/variants/harness.js";
import { limit200Refused } from "../test-support/variants/lists.js";
import type { HttpExchange } from "../types.js";
import { renderConsoleReport } from "./console.js";
import { exchangeText, showExchange, trimmed } from "./exchange.js";
import { renderHtmlReport } from "./html.js";
import { renderJsonReport } from "./json.js";
import { renderJunitReport } from "./junit.js";
import { parseReport } from "./read.js";

const manifest = testManifest();
const token = nth(manifest.tokens, 0);

const exchange = (over: Partial<HttpExchange>): HttpExchange => ({
  request: { method: "GET", path: "/api/v1/contacts", query: { limit: "5" }, auth: token },
  status: 200,
  headers: { "content-type": "application/json" },
  text: '{"data":[]}',
  json: { data: [] },
  curl: "",
  ...over,
});

describe("a failure's exchange, as reports show it", () => {
  it("is the request as sent (Origin, Content-Type) and the answer, every token masked", () => {
    const shown = showExchange(
      exchange({
        request: {
          method: "POST",
          path: "/api/v1/contacts",
          auth: token,
          json: { note: `leaked ${token.token}` },
        },
        status: 400,
        text: `{"error":{"code":"invalid_request","message":"bad ${token.token}"}}`,
      }),
      { origin: "https://app.example", tokens: manifest.tokens },
    );
    expect(shown.request).toEqual({
      method: "POST",
      target: "/api/v1/contacts",
      headers: [
        ["Authorization", `Bearer <token ${token.label}>`],
        ["Content-Type", "application/json"],
        ["Origin", "https://app.example"],
      ],
      body: `{"note":"leaked <token ${token.label}>"}`,
    });
    expect(shown.response.body).toBe(
      `{"error":{"code":"invalid_request","message":"bad <token ${token.label}>"}}`,
    );
    expect(JSON.stringify(shown)).not.toContain(token.token);
  });

  it("says a near miss of a token by how it is made from it, never spelling it", () => {
    const shown = showExchange(
      exchange({
        request: {
          method: "GET",
          path: "/api/v1/contacts",
          auth: {
            header: `Bearer ${token.token.slice(0, -1)}`,
            derivedFrom: { token, shell: 'Bearer $(printf %s "$T" | cut -c1-9)' },
          },
        },
      }),
      { tokens: manifest.tokens },
    );
    expect(shown.request.headers).toEqual([
      ["Authorization", `Bearer $(printf %s "<token ${token.label}>" | cut -c1-9)`],
    ]);
  });

  it("cuts long bodies, counting what it left out, and never splits a character", () => {
    expect(trimmed("é".repeat(10), 4)).toBe("éééé… (6 more characters)");
    expect(trimmed("🎉🎉🎉", 2)).toBe("🎉🎉… (1 more characters)");
    expect(trimmed("short", 10)).toBe("short");
  });

  it("reads as an HTTP transcript", () => {
    const text = exchangeText(showExchange(exchange({}), { tokens: manifest.tokens }));
    expect(text).toBe(
      `GET /api/v1/contacts?limit=5\nAuthorization: Bearer <token ${token.label}>\n\nHTTP 200\ncontent-type: application/json\n\n{"data":[]}`,
    );
  });
});

describe("one failure, the same data in every report", () => {
  it("is typed data in JSON, read back by compare, and shown by the console, JUnit and HTML alike", async () => {
    const { report } = await runVariant(limit200Refused, { grep: "^lists\\.page-max$" });
    const json = JSON.parse(renderJsonReport(report)) as unknown;
    const back = parseReport(json, "report.json");
    const f = back.results.find((r) => r.id === "lists.page-max")?.failure;
    expect(f?.cause).toBe("list.largest-page");
    expect(f?.exchange?.request).toMatchObject({ method: "GET", target: "/api/v1/contacts?limit=200" });
    expect(f?.exchange?.response.status).toBe(400);
    for (const t of manifest.tokens) expect(JSON.stringify(json)).not.toContain(t.token);

    const clause = "§8.2 “Page size (limit) · default 50, min 1, max 200”";
    const transcript = exchangeText(
      f?.exchange ?? {
        request: { method: "", target: "", headers: [] },
        response: { status: 0, headers: [], body: "" },
      },
    );
    expect(renderConsoleReport(back)).toContain(`  clauses:   ${clause}`);
    const junit = renderJunitReport(back);
    expect(junit).toContain(`clause: ${clause}`);
    expect(junit).toContain("exchange:\nGET /api/v1/contacts?limit=200");
    const html = renderHtmlReport([{ file: "report.json", report: back }]);
    expect(html).toContain("Page size (limit) · default 50, min 1, max 200");
    expect(html).toContain(transcript.split("\n")[0]);
  }, 60_000);
});
