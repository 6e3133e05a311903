import { isIP } from "node:net";
import type { RequestHandler } from "express";
import { ApiError } from "../model/errors.js";

export interface LocalOnlyOptions {
  /** Host names besides IP literals and localhost that name this server (`--host` when it is a name). */
  allowedHosts?: readonly string[];
}

/** The host name of a `Host` header, without its port; IPv6 literals without their brackets. */
export function hostName(host: string | undefined): string | undefined {
  if (host === undefined || host === "") return undefined;
  const m = /^\[([^\]]+)\](?::\d+)?$/.exec(host) ?? /^([^:]+)(?::\d+)?$/.exec(host);
  return m?.[1]?.toLowerCase();
}

/**
 * Whether a `Host` names this server. A DNS-rebinding page reaches 127.0.0.1 under its own domain,
 * so only names that cannot be rebound pass: IP literals, localhost (RFC 6761 keeps it on loopback)
 * and the names the server was told it has.
 */
export function isOwnHost(host: string | undefined, allowed: readonly string[] = []): boolean {
  const name = hostName(host);
  if (name === undefined) return false;
  return (
    isIP(name) !== 0 ||
    name === "localhost" ||
    name.endsWith(".localhost") ||
    allowed.some((a) => a.toLowerCase() === name)
  );
}

/**
 * The guard of the doors that only the developer's own tools may use (the control surface, the web
 * pages): anything a web page the developer visits could send is refused. These doors send no CORS
 * headers, so a cross-origin script cannot read them; this refuses the requests a browser sends
 * without asking first (forms, `no-cors` fetches, DNS rebinding).
 */
export function localOnly(options: LocalOnlyOptions = {}): RequestHandler {
  const allowed = options.allowedHosts ?? [];
  return (req, _res, next) => {
    const host = req.headers.host;
    if (!isOwnHost(host, allowed)) {
      next(new ApiError("forbidden", `Host ${JSON.stringify(host ?? "")} does not name this server`));
      return;
    }
    // Sent by every current browser: "same-site" is another port or subdomain, still another origin.
    const site = req.headers["sec-fetch-site"];
    if (site !== undefined && site !== "same-origin" && site !== "none") {
      next(new ApiError("forbidden", `Cross-site requests are refused (Sec-Fetch-Site: ${site})`));
      return;
    }
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== `http://${host}` && origin !== `https://${host}`) {
      next(new ApiError("forbidden", `Cross-origin requests are refused (Origin: ${origin})`));
      return;
    }
    next();
  };
}
