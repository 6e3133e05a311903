import { once } from "node:events";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Express } from "express";
import { afterEach } from "vitest";
import { createServer, type ServerOptions } from "../edge/server.js";
import { close, listen } from "./raw-http.js";

// Servers on ephemeral loopback ports, for clients that need a real socket (fetch, raw bytes, a
// chosen local address); every server is closed after the test that started it.

function serversPerTest(): (server: Server) => Server {
  const open: Server[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((server) => close(server)));
  });
  return (server) => {
    open.push(server);
    return server;
  };
}

/** The app behind the reference's node:http server (its framing refusals): `serve(app)` gives the port. */
export function servePerTest(): (
  app: Parameters<typeof createServer>[0],
  options?: ServerOptions,
) => Promise<number> {
  const kept = serversPerTest();
  return (app, options) => listen(kept(createServer(app, options)));
}

/** The app on Express's own `listen`, a bare Node server without the reference's edge: the port. */
export function listenPerTest(): (app: Express) => Promise<number> {
  const kept = serversPerTest();
  return async (app) => {
    const server = kept(app.listen(0, "127.0.0.1"));
    await once(server, "listening");
    return (server.address() as AddressInfo).port;
  };
}
