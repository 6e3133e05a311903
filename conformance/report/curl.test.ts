import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { FetchHttpClient, prepareRequest } from "../engine/client.js";
import { Pacer } from "../engine/pacer.js";
import { nearMisses } from "../support/near-miss.js";
import { echoServer, nth, testManifest, type LocalServer } from "../test-support/local.js";
import { renderCurl } from "./curl.js";

const manifest = testManifest();
const fullToken = nth(manifest.tokens, 0);
const otherToken = nth(manifest.tokens, 5);

let server: LocalServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function client(baseUrl: string): { http: FetchHttpClient } {
  return {
    http: new FetchHttpClient({
      baseUrl,
      pacer: new Pacer({ rateLimit: 100, windowMs: 60_000 }),
      tokens: manifest.tokens,
      sleep: () => Promise.resolve(),
    }),
  };
}

describe("curl commands", () => {
  const base = "http://127.0.0.1:3000";
  const curl = (request: Parameters<typeof prepareRequest>[1], tokens = manifest.tokens) =>
    renderCurl(prepareRequest(base, request), tokens);

  it("shows a manifest token as $TOKEN, never in clear, and names it in a comment", () => {
    const command = curl({ method: "GET", path: "/api/v1/contacts", query: { limit: "5" }, auth: fullToken });
    expect(command).toBe(
      `curl -sS -i 'http://127.0.0.1:3000/api/v1/contacts?limit=5' -H "Authorization: Bearer \${TOKEN}" # $TOKEN = manifest token "a-full"`,
    );
  });

  it("masks a manifest secret inside a raw header, the query and the body", () => {
    const command = curl({
      method: "POST",
      path: "/api/v1/contacts",
      query: { access_token: otherToken.token },
      auth: { header: `bearer ${fullToken.token}` },
      json: { note: `"${fullToken.token}"` },
    });
    for (const t of manifest.tokens) expect(command).not.toContain(t.token);
    expect(command).toContain(`-H "Authorization: bearer \${TOKEN_2}"`);
    expect(command).toContain(`"http://127.0.0.1:3000/api/v1/contacts?access_token=\${TOKEN}"`);
    expect(command).toContain('# $TOKEN = manifest token "b-full", $TOKEN_2 = manifest token "a-full"');
  });

  it("masks a token given as auth even when the manifest does not list it", () => {
    const stray = { ...fullToken, label: "stray", token: "tst_notInTheList99" };
    const http = new FetchHttpClient({
      baseUrl: base,
      pacer: new Pacer({ rateLimit: 5, windowMs: 1000 }),
    });
    expect(http.curl({ method: "GET", path: "/", auth: stray })).not.toContain(stray.token);
  });

  it("sends bodies with --data-binary, clears curl's default content type and quotes for POSIX shells", () => {
    const command = curl({ method: "POST", path: "/p", rawBody: `it's $HOME \`x\` "q"\n\\` });
    expect(command).toBe(
      `curl -sS -i -X POST http://127.0.0.1:3000/p -H 'Content-Type:' --data-binary 'it'\\''s $HOME \`x\` "q"\n\\'`,
    );
  });

  it("pipes long and binary bodies in instead of spelling them out", () => {
    const long = curl({ method: "POST", path: "/p", json: { name: "a".repeat(5000) } });
    expect(long.length).toBeLessThan(400);
    expect(long).toContain("head -c 5000 /dev/zero | tr '\\000' '\\141'");
    expect(long).toContain("--data-binary @-");
    const binary = curl({ method: "POST", path: "/p", rawBody: new Uint8Array([0, 0xff, 0x25, 0x2d]) });
    expect(binary.startsWith("printf '\\000\\377\\045-' | curl")).toBe(true);
  });

  // The commands are meant to be pasted into a shell: run them and compare with what fetch sent.
  const hasCurl = existsSync("/usr/bin/curl") || existsSync("/bin/curl") || existsSync("/usr/local/bin/curl");
  it.skipIf(!hasCurl)("replays the same request when run by sh with $TOKEN set", async () => {
    server = await echoServer();
    const { http } = client(server.baseUrl);
    const requests = [
      {
        method: "POST",
        path: "/api/v1/contacts",
        auth: fullToken,
        json: { name: `it's "$x" \`y\` \\ !é😀` },
      },
      {
        method: "POST",
        path: "/p",
        query: { q: ["a b", "[x]"] },
        rawBody: new Uint8Array([0, 1, 0xfe, 0x27, 0x25]),
      },
      {
        method: "PUT",
        path: "/p",
        auth: { header: `Bearer ${fullToken.token}!` },
        rawBody: `x${"b".repeat(3000)}y`,
      },
      { method: "HEAD", path: "/h" },
      // Near misses of the token: the command rebuilds each from $TOKEN instead of spelling it out.
      ...nearMisses(fullToken.token, manifest.tokenPrefix).map((m) => ({
        method: "GET",
        path: "/near",
        auth: {
          header: `Bearer ${m.value}`,
          derivedFrom: { token: fullToken, shell: `Bearer ${m.shell}` },
        },
      })),
    ];
    for (const request of requests) {
      const ex = await http.send(request);
      const secret = fullToken.token.slice(manifest.tokenPrefix.length + 1);
      expect(ex.curl).not.toContain(secret.slice(1, -1));
      const before = server.seen.length;
      await promisify(execFile)("sh", ["-c", ex.curl], { env: { ...process.env, TOKEN: fullToken.token } });
      const viaFetch = nth(server.seen, before - 1);
      const viaCurl = nth(server.seen, before);
      expect(viaCurl.method).toBe(viaFetch.method);
      expect(viaCurl.url).toBe(viaFetch.url);
      expect(viaCurl.body.equals(viaFetch.body)).toBe(true);
      expect(viaCurl.headers.authorization).toBe(viaFetch.headers.authorization);
      expect(viaCurl.headers["content-type"]).toBe(viaFetch.headers["content-type"]);
    }
  });
});
