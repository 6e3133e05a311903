// Stoplight Prism in proxy mode in front of the reference, during a full conformance kit run:
// every exchange is checked against openapi.json by a tool we did not write, and the violations it
// reports in its `sl-violations` header are counted. Not part of CI (Prism is large):
//
//   npm ci --prefix scripts/prism && npm run prism
//
// kit -> counting relay -> Prism (proxy, validating) -> reference. Request violations are expected
// (the kit sends invalid requests on purpose); a response violation means openapi.json and the
// server disagree, and the script exits 1.
import { spawn } from "node:child_process";
import { createWriteStream, existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { runConformance } from "../conformance/index.js";
import { createReference } from "../src/entry/reference.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const prismBin = fileURLToPath(new URL("./prism/node_modules/.bin/prism", import.meta.url));
const logPath = `${root}.conformance/prism.log`;
const seed = Number(process.env.SEED ?? 20261120);

if (!existsSync(prismBin)) {
  console.error("Prism is not installed: npm ci --prefix scripts/prism");
  process.exit(2);
}

const listen = (server: Server): Promise<number> =>
  new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)),
  );
const close = (server: Server): Promise<void> => new Promise((resolve) => server.close(() => resolve()));

async function freePort(): Promise<number> {
  const probe = createServer();
  const port = await listen(probe);
  await close(probe);
  return port;
}

// 1. The reference, with the kit's embedded time scale: 100 requests per rolling second.
const reference = await createReference({ rateLimit: { limit: 100, windowMs: 1000 }, log: () => {} });
const upstream = createServer(reference.app);
const upstreamPort = await listen(upstream);

// 2. Prism, proxying to it. CORS is the server's own (Prism would answer pre-flights itself).
await mkdir(`${root}.conformance`, { recursive: true });
const prismPort = await freePort();
const prism = spawn(
  prismBin,
  [
    "proxy",
    `${root}openapi.json`,
    `http://127.0.0.1:${upstreamPort}`,
    ...["--host", "127.0.0.1", "--port", String(prismPort), "--cors", "false", "--errors", "false"],
  ],
  { stdio: ["ignore", "pipe", "pipe"] },
);
const log = createWriteStream(logPath);
prism.stdout.pipe(log);
prism.stderr.pipe(log);

async function prismReady(): Promise<void> {
  for (let i = 0; i < 120; i += 1) {
    if (prism.exitCode !== null) throw new Error(`Prism exited with ${prism.exitCode}; see ${logPath}`);
    const ok = await new Promise<boolean>((resolve) => {
      const req = request({ host: "127.0.0.1", port: prismPort, path: "/api/v1/contacts" }, (res) => {
        res.resume();
        resolve(true);
      });
      req.on("error", () => resolve(false));
      req.end();
    });
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`Prism did not start; see ${logPath}`);
}

interface Violation {
  location?: string[];
  severity?: string;
  code?: string | number;
  message?: string;
}

// 3. A relay that reads each answer's sl-violations header on its way back to the kit.
const tally = { exchanges: 0, withViolations: 0, request: 0, response: 0 };
/** Answers that never came from the reference (which sets RateLimit-Policy on every one): Prism's own. */
const prismOwn = new Map<string, number>();
const responseViolations = new Map<string, number>();
const relay = createServer((clientReq, clientRes) => {
  const upstreamReq = request(
    {
      host: "127.0.0.1",
      port: prismPort,
      method: clientReq.method,
      path: clientReq.url,
      headers: clientReq.headers,
    },
    (prismRes) => {
      tally.exchanges += 1;
      if (prismRes.headers["ratelimit-policy"] === undefined && clientReq.method !== "OPTIONS") {
        const key = `${clientReq.method} ${clientReq.url?.split("?")[0]} -> ${prismRes.statusCode}`;
        prismOwn.set(key, (prismOwn.get(key) ?? 0) + 1);
      }
      const header = prismRes.headers["sl-violations"];
      if (typeof header === "string") {
        tally.withViolations += 1;
        // Prism writes "Too many violations! [...]" (cut short) instead of JSON past a size.
        const json = header.startsWith("[") ? header : "[]";
        if (!header.startsWith("[")) {
          tally.response += 1;
          const key = `${clientReq.method} ${clientReq.url?.split("?")[0]} ${prismRes.statusCode}: ${header.slice(0, 300)}`;
          responseViolations.set(key, (responseViolations.get(key) ?? 0) + 1);
        }
        for (const v of JSON.parse(json) as Violation[]) {
          if (v.location?.[0] === "response") {
            tally.response += 1;
            const key = `${clientReq.method} ${clientReq.url?.split("?")[0]} ${prismRes.statusCode}: ${v.location.join(".")} ${v.message ?? ""}`;
            responseViolations.set(key, (responseViolations.get(key) ?? 0) + 1);
          } else {
            tally.request += 1;
          }
        }
      }
      clientRes.writeHead(prismRes.statusCode ?? 502, prismRes.headers);
      prismRes.pipe(clientRes);
    },
  );
  upstreamReq.on("error", (error) => {
    clientRes.writeHead(502);
    clientRes.end(String(error));
  });
  clientReq.pipe(upstreamReq);
});

try {
  await prismReady();
  const relayPort = await listen(relay);
  console.log(
    `reference :${upstreamPort} <- Prism :${prismPort} <- relay :${relayPort} <- kit (seed ${seed})`,
  );

  // 4. The whole kit, slow checks (waiting out a 429) included.
  const report = await runConformance({
    baseUrl: `http://127.0.0.1:${relayPort}`,
    manifest: reference.manifest,
    rateLimit: 100,
    rateWindowMs: 1000,
    seed,
    slow: true,
  });
  const outcomes = report.results.reduce<Record<string, number>>((acc, r) => {
    acc[r.outcome] = (acc[r.outcome] ?? 0) + 1;
    return acc;
  }, {});
  const failing = report.results.filter((r) => r.failsRun).map((r) => r.id);

  console.log(
    `kit: ${report.results.length} checks ${JSON.stringify(outcomes)}, ${report.requests} requests`,
  );
  if (failing.length > 0) console.log(`kit checks failing the run through Prism: ${failing.join(", ")}`);
  console.log(
    `Prism: ${tally.exchanges} exchanges, ${tally.withViolations} with sl-violations; ` +
      `${tally.request} request violations (the kit's deliberate bad requests), ${tally.response} response violations`,
  );
  for (const [key, n] of responseViolations) console.log(`  ${n} x ${key}`);
  const own = [...prismOwn].reduce((n, [, k]) => n + k, 0);
  console.log(`answered by Prism itself, not by the reference (so not checked against it): ${own}`);
  for (const [key, n] of prismOwn) console.log(`  ${n} x ${key}`);
  console.log(`Prism's log: ${logPath}`);
  process.exitCode = tally.response === 0 ? 0 : 1;
} finally {
  prism.kill("SIGTERM");
  await Promise.all([close(relay).catch(() => {}), close(upstream)]);
}
