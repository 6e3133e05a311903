/**
 * `npm run bench:start -- [DIR …]`: the work of a start, counted in instructions rather than timed:
 * valgrind's callgrind runs `node --single-threaded dist/bundle/bin.js` of each built checkout (this one
 * by default), and a bare `node:http` server, from spawn to the first list read answered and the exit.
 * Wall time to first answer moves by 2x on a shared machine; these counts do not. Both depend on the
 * environment alike: with NODE_EXTRA_CA_CERTS set, Node loads its root certificates at start in every
 * process (about 420 M instructions here, the bare one included).
 *
 * Usage: npm run bench:start [-- DIR …]   (needs valgrind; slow: a minute or two per target)
 */
import { spawn, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";

const ROOT = join(import.meta.dirname, "..");
const dirs = process.argv.slice(2).length > 0 ? process.argv.slice(2) : [ROOT];
if (spawnSync("valgrind", ["--version"]).status !== 0) {
  console.error("valgrind is not installed: apt-get install valgrind");
  process.exit(2);
}
const token =
  (
    JSON.parse(readFileSync(join(ROOT, "fixtures", "tokens.json"), "utf8")) as {
      tokens: { label: string; token: string }[];
    }
  ).tokens.find((t) => t.label === "lumiere-full")?.token ?? "";

const bare = join(tmpdir(), "bench-bare-http.cjs");
writeFileSync(
  bare,
  `const s = require("node:http").createServer((q, r) => r.end("{}")).listen(0, "127.0.0.1", function () { console.log("http://127.0.0.1:" + this.address().port); });
process.once("SIGTERM", () => s.close(() => process.exit(0)));
`,
);

/** Instructions from spawning `script` to its first answer and its exit. */
async function instructions(script: string, args: string[]): Promise<number> {
  const child = spawn(
    "valgrind",
    [
      "--tool=callgrind",
      "--callgrind-out-file=/dev/null",
      process.execPath,
      "--single-threaded",
      script,
      ...args,
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  let url: string | undefined;
  for await (const line of createInterface({ input: child.stdout })) {
    url = /(http:\/\/\S+)/.exec(line)?.[1];
    if (url !== undefined) break;
  }
  if (url === undefined) throw new Error(`${script} printed no URL: ${stderr}`);
  await (
    await fetch(`${url}/api/v1/contacts?limit=1`, { headers: { Authorization: `Bearer ${token}` } })
  ).arrayBuffer();
  child.kill("SIGTERM");
  await new Promise((done) => child.once("exit", done));
  return Number(/Collected : (\d+)/.exec(stderr)?.[1] ?? NaN);
}

const floor = await instructions(bare, []);
console.log(`bare node:http: ${(floor / 1e6).toFixed(0)} M instructions`);
for (const dir of dirs) {
  const count = await instructions(join(resolve(dir), "dist", "bundle", "bin.js"), [
    "--port",
    "0",
    "--quiet",
  ]);
  console.log(
    `${dir}: ${(count / 1e6).toFixed(0)} M instructions, ${(count / floor).toFixed(2)}x the bare start`,
  );
}
