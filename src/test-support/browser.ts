import { existsSync } from "node:fs";
import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { chromium, type Browser } from "playwright-core";

/**
 * A real browser for the pages' tests and the README's screenshot: Debian's Chromium driven by
 * playwright-core (no browser download). `.ci/run` installs it when it is missing; CHROMIUM_PATH
 * points elsewhere.
 */

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--headless",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
  "--disable-sync",
];

/**
 * Launches Chromium. `resolve` maps host names to 127.0.0.1 inside this browser only, so that a
 * test can play a web page of another site (`evil.example`) without any DNS.
 */
export async function launchChromium(options: { resolve?: readonly string[] } = {}): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `No Chromium at ${CHROMIUM_PATH}: install it (apt-get install -y chromium) or set CHROMIUM_PATH`,
    );
  }
  const rules = (options.resolve ?? []).map((host) => `MAP ${host} 127.0.0.1`).join(", ");
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...CHROMIUM_ARGS, ...(rules === "" ? [] : [`--host-resolver-rules=${rules}`])],
  });
}

export interface Served {
  /** `http://127.0.0.1:<port>` */
  baseUrl: string;
  port: number;
  close(): Promise<void>;
}

/** Serves a request listener (an Express app) on 127.0.0.1, on a port of the system's choosing. */
export async function serve(listener: RequestListener): Promise<Served> {
  const server: Server = createServer(listener);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err === undefined ? resolve() : reject(err)));
        server.closeAllConnections();
      }),
  };
}
