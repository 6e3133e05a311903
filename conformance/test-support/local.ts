import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { TokenManifest } from "../manifest-schema.js";
import { kitSpec } from "../spec/kit-spec.js";

/** A request as a tiny test server saw it. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: Buffer;
}

export interface LocalServer {
  baseUrl: string;
  seen: SeenRequest[];
  close(): Promise<void>;
}

/** `listener` served on 127.0.0.1, an ephemeral port: its base URL, and how to close it. */
export async function listenLocally(
  listener: RequestListener,
): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // fetch keeps connections alive; close() alone would wait for them to time out.
        server.closeAllConnections();
      }),
  };
}

/** A server on 127.0.0.1, an ephemeral port; the test closes it. */
export async function startLocalServer(
  handle: (req: SeenRequest, res: ServerResponse) => void,
): Promise<LocalServer> {
  const seen: SeenRequest[] = [];
  const served = await listenLocally((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const request = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      seen.push(request);
      handle(request, res);
    });
  });
  return { ...served, seen };
}

/** Writes a JSON answer. */
export function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
  res.end(JSON.stringify(body));
}

/** A base URL where nothing listens: a port that was free a moment ago. */
export async function closedBaseUrl(): Promise<string> {
  const server = await startLocalServer((_req, res) => res.end());
  await server.close();
  return server.baseUrl;
}

/** A manifest with one token of each kind the kit asks for, in two organizations with API access. */
export function testManifest(overrides: Partial<TokenManifest> = {}): TokenManifest {
  const all = kitSpec().SCOPES;
  return {
    version: 1,
    tokenPrefix: "tst",
    organizations: [
      { id: "org_a", apiAccess: true },
      { id: "org_b", apiAccess: true },
      { id: "org_starter", apiAccess: false },
    ],
    tokens: [
      {
        label: "a-full",
        token: "tst_aFullSecret0001",
        organization: "org_a",
        scopes: [...all],
        state: "active",
        expiresAt: null,
      },
      {
        label: "a-contacts-read",
        token: "tst_aContactsRead02",
        organization: "org_a",
        scopes: ["contacts:read"],
        state: "active",
        expiresAt: null,
      },
      {
        label: "a-none",
        token: "tst_aNoScope0000003",
        organization: "org_a",
        scopes: [],
        state: "active",
        expiresAt: null,
      },
      {
        label: "a-revoked",
        token: "tst_aRevoked000004",
        organization: "org_a",
        scopes: [...all],
        state: "revoked",
        expiresAt: null,
      },
      {
        label: "a-expired",
        token: "tst_aExpired000005",
        organization: "org_a",
        scopes: [...all],
        state: "expired",
        expiresAt: "2020-01-01T00:00:00.000Z",
      },
      {
        label: "b-full",
        token: "tst_bFullSecret0006",
        organization: "org_b",
        scopes: [...all],
        state: "active",
        expiresAt: null,
      },
      {
        label: "starter-full",
        token: "tst_starterFull007",
        organization: "org_starter",
        scopes: [...all],
        state: "active",
        expiresAt: null,
      },
    ],
    ...overrides,
  };
}

/** `items[i]`, which a test knows is there; a clear error when it is not. */
export function nth<T>(items: readonly T[], i: number): T {
  const item = items[i];
  if (item === undefined) throw new Error(`expected an item at index ${i}, got ${items.length} items`);
  return item;
}

/** A server that echoes what it received, as JSON: method, url, headers and the body as latin1. */
export async function echoServer(): Promise<LocalServer> {
  return startLocalServer((req, res) =>
    json(res, 200, {
      method: req.method,
      url: req.url,
      headers: req.headers,
      body: req.body.toString("latin1"),
    }),
  );
}
