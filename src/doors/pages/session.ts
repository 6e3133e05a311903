import { randomBytes } from "node:crypto";
import type { CookieOptions, Request, RequestHandler } from "express";

/**
 * What the pages remember of a browser: an anonymous session id in a cookie (the CSRF token is bound
 * to it) and, on the server, a one-time notice and the token just created, each read once. The fake
 * has no users; the "signed-in" organization is a cookie of its own.
 *
 * A clear token waits here, in memory only, between the POST that created it and the GET that shows
 * it; that GET takes it out. It is never in a cookie, a URL or a log.
 */

export const SESSION_COOKIE = "reference_session";
export const ORGANIZATION_COOKIE = "reference_organization";
export const CSRF_COOKIE = "reference_csrf";

const SESSION_ID_RE = /^[A-Za-z0-9_-]{32}$/;
/** Sessions with something waiting; the oldest is forgotten beyond this. */
export const SESSION_CAPACITY = 256;

/**
 * Lax, not Strict: a link followed from another site (the developer's app on another port) still
 * arrives signed in. A cross-site POST carries none of them, and the door refuses it anyway.
 */
export const COOKIE_OPTIONS: CookieOptions = { httpOnly: true, sameSite: "lax", secure: false, path: "/" };

export interface CreatedToken {
  tokenId: string;
  secret: string;
}

interface Waiting {
  notice?: string;
  created?: CreatedToken;
}

/** A cookie's value when it is a string; cookie-parser may also give JSON cookies as objects. */
export function cookieValue(req: Request, name: string): string | undefined {
  const cookies: unknown = req.cookies;
  if (typeof cookies !== "object" || cookies === null) return undefined;
  const value: unknown = (cookies as Record<string, unknown>)[name];
  return typeof value === "string" ? value : undefined;
}

export class PageSessions {
  readonly #ids = new WeakMap<Request, string>();
  readonly #waiting = new Map<string, Waiting>();

  /** Gives every request a session id: the cookie's, or a new one set on the response. */
  middleware(): RequestHandler {
    return (req, res, next) => {
      let id = cookieValue(req, SESSION_COOKIE);
      if (id === undefined || !SESSION_ID_RE.test(id)) {
        id = randomBytes(24).toString("base64url");
        res.cookie(SESSION_COOKIE, id, COOKIE_OPTIONS);
      }
      this.#ids.set(req, id);
      next();
    };
  }

  /** The session of a request that went through `middleware`; "" otherwise, which no token is bound to. */
  id(req: Request): string {
    return this.#ids.get(req) ?? "";
  }

  setNotice(req: Request, notice: string): void {
    this.#update(req, { notice });
  }

  takeNotice(req: Request): string | undefined {
    const entry = this.#waiting.get(this.id(req));
    if (entry === undefined) return undefined;
    this.#leave(req, { created: entry.created });
    return entry.notice;
  }

  setCreated(req: Request, created: CreatedToken): void {
    this.#update(req, { created });
  }

  takeCreated(req: Request): CreatedToken | undefined {
    const entry = this.#waiting.get(this.id(req));
    if (entry === undefined) return undefined;
    this.#leave(req, { notice: entry.notice });
    return entry.created;
  }

  #update(req: Request, patch: Waiting): void {
    const id = this.id(req);
    if (id === "") return;
    const entry = { ...this.#waiting.get(id), ...patch };
    // Re-inserted, so that the Map's order is the order of last use.
    this.#waiting.delete(id);
    this.#waiting.set(id, entry);
    while (this.#waiting.size > SESSION_CAPACITY) {
      const oldest = this.#waiting.keys().next();
      if (oldest.done === true) break;
      this.#waiting.delete(oldest.value);
    }
  }

  /** What stays waiting once one thing is taken: nothing at all forgets the session. */
  #leave(req: Request, rest: Waiting): void {
    const id = this.id(req);
    if (rest.notice === undefined && rest.created === undefined) this.#waiting.delete(id);
    else this.#waiting.set(id, rest);
  }
}
