import type { IncomingMessage } from "node:http";
import type { Request } from "express";
import { identify, type Identified } from "../../auth/authenticate.js";
import { clientAddressKey } from "../../http/client-address.js";
import { headerValues } from "../../http/headers.js";
import type { Sandboxes } from "../../store/sandboxes.js";
import type { ReferenceState } from "../../store/state.js";

/**
 * What the credential step establishes, before anything else happens to a request: the state that
 * answers it (the sandbox whose token it presents, or the default state for anything else), what its
 * one `Authorization` header came to, and what the rate limit counts it against.
 */
export interface Credentials extends Identified<ReferenceState> {
  /** Its token (`token:<id>`, a revoked or expired one included), or its client's address without one (spec-gaps #21). */
  readonly rateLimitKey: string;
}

const NONE: readonly string[] = Object.freeze([]);

/**
 * Every `Authorization` line the request carried, in the order sent. Node keeps only the first of
 * several in `req.headers`; without any, there are no raw lines to count.
 */
function authorizationOf(req: IncomingMessage): readonly string[] {
  return req.headers.authorization === undefined ? NONE : headerValues(req, "authorization");
}

/**
 * The credential step: the one place the API door reads the `Authorization` header (a lint rule holds
 * the door to it). A sandbox token's header is read once, its token checked once and hashed once
 * (src/auth/authenticate.ts `identify`).
 */
export function credentialStep(
  state: ReferenceState,
  sandboxes: Sandboxes | undefined,
): (req: Request) => Credentials {
  return (req) => {
    const { state: answering, presented } = identify(authorizationOf(req), state, sandboxes);
    const id = presented.token?.id;
    return {
      state: answering,
      presented,
      rateLimitKey: id === undefined ? `ip:${clientAddressKey(req.ip ?? "")}` : `token:${id}`,
    };
  };
}
