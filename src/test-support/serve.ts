import { once } from "node:events";
import type { Server } from "node:http";
import { createServer as createNetServer, type AddressInfo } from "node:net";
import type { Express } from "express";
import { test as base } from "vitest";
import { createServer, type ServerOptions } from "../edge/server.js";

// Servers on ephemeral loopback ports, for clients that need a real socket (fetch, raw bytes, a
// chosen local address); every server is closed after the test that started it.

/** Listens on an ephemeral loopback port; returns the port. */
export async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

/** Closes the server and every connection still open on it. */
export function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

export type Serve = (app: Parameters<typeof createServer>[0], options?: ServerOptions) => Promise<number>;
export type ServeBare = (app: Express) => Promise<number>;

/** Keeps the servers a test starts, to close them when it ends. */
function serversOf(onCleanup: (cleanup: () => Promise<void>) => void): (server: Server) => Server {
  const open: Server[] = [];
  onCleanup(async () => {
    await Promise.all(open.splice(0).map((server) => close(server)));
  });
  return (server) => {
    open.push(server);
    return server;
  };
}

/**
 * vitest's `test` with two fixtures that start servers the test stops when it ends:
 * `serve(app, options?)`, the app behind the reference's node:http server (its framing refusals), and
 * `serveBare(app)`, the app on Express's own `listen`, a bare Node server without the reference's edge.
 * Both answer the port.
 */
export const serverTest = base
  .extend("serve", ({}, { onCleanup }): Serve => {
    const kept = serversOf(onCleanup);
    return (app, options) => listen(kept(createServer(app, options)));
  })
  .extend("serveBare", ({}, { onCleanup }): ServeBare => {
    const kept = serversOf(onCleanup);
    return async (app) => {
      const server = kept(app.listen(0, "127.0.0.1"));
      await once(server, "listening");
      return (server.address() as AddressInfo).port;
    };
  });

/**
 * A port nothing listens on now, for a server a test starts in another process (Playwright's
 * `webServer`, a guide's script), which needs its port before it starts.
 */
export async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}
