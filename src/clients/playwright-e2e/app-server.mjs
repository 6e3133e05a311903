// Serves app.html at APP_URL (http://127.0.0.1:<port>), for the Playwright fixture's test: the app a
// README's `webServer` starts with `npm run dev`.
import { readFileSync } from "node:fs";
import { createServer } from "node:http";

const url = new URL(process.env.APP_URL ?? "http://127.0.0.1:5173");
const page = readFileSync(new URL("./app.html", import.meta.url));

createServer((req, res) => {
  if (req.url === "/" || req.url?.startsWith("/?")) {
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8", "Content-Length": page.length });
    res.end(page);
    return;
  }
  res.writeHead(404).end();
}).listen(Number(url.port), url.hostname);
