/**
 * A bare server for `npm run bench`, run in its own process: `express`, `express-born` or `http`,
 * sending for each path the bytes the reference served for that read, with the reference's
 * Content-Type. It stands for the limit of Node (`http`) or of the framework (`express`): no
 * parsing, no lookup, no serialization. `express-born` is the same app served as the reference
 * serves its own (src/edge/fast-path.ts `appPrototypeOptions`), so that Express's floor under that option is
 * known too. Usage: tsx bench/bare-target.ts express|express-born|http BODIES.json (prints its port).
 */
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { appPrototypeOptions } from "../src/edge/fast-path.js";

const [kind, bodiesFile] = process.argv.slice(2);
if ((kind !== "express" && kind !== "express-born" && kind !== "http") || bodiesFile === undefined) {
  console.error("usage: bare-target.ts express|express-born|http BODIES.json");
  process.exit(2);
}
const raw = JSON.parse(readFileSync(bodiesFile, "utf8")) as Record<string, string>;
const bodies = new Map(Object.entries(raw).map(([path, base64]) => [path, Buffer.from(base64, "base64")]));
const CONTENT_TYPE = "application/json; charset=utf-8";

let server: Server;
if (kind === "http") {
  server = createServer((req, res) => {
    const body = bodies.get((req.url ?? "").split("?")[0] ?? "");
    if (body === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "Content-Type": CONTENT_TYPE, "Content-Length": body.length }).end(body);
  });
} else {
  const app = express();
  // The reference sends neither; leaving them on would charge Express for work the reference skips.
  app.disable("x-powered-by");
  app.set("etag", false);
  for (const [path, body] of bodies) {
    app.get(path, (_req, res) => {
      res.type(CONTENT_TYPE).send(body);
    });
  }
  server = kind === "express-born" ? createServer(appPrototypeOptions(app), app) : createServer(app);
}
server.listen(0, "127.0.0.1");
server.once("listening", () => console.log((server.address() as AddressInfo).port));
process.once("SIGTERM", () => server.close(() => process.exit(0)));
