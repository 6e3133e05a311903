import type { Server } from "node:http";
import { afterEach } from "vitest";
import { createServer, type ServerOptions } from "../edge/server.js";
import { close, listen } from "./raw-http.js";

/**
 * Serves apps with the reference's node:http server on ephemeral loopback ports, for clients that need
 * a real socket (fetch, raw bytes); every server is closed after the test that started it.
 * `serve(app)` resolves with the port.
 */
export function servePerTest(): (
  app: Parameters<typeof createServer>[0],
  options?: ServerOptions,
) => Promise<number> {
  const open: Server[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((server) => close(server)));
  });
  return (app, options) => {
    const server = createServer(app, options);
    open.push(server);
    return listen(server);
  };
}
