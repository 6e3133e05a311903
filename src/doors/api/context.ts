import type { Request, RequestHandler } from "express";
import type { Presented, Principal } from "../../auth/authenticate.js";
import type { ReferenceState } from "../../store/state.js";
import type { JsonValue } from "../../validation/json.js";

/**
 * What the API door knows of one request as it goes through the door's steps. It belongs to this
 * door alone (the control surface and the pages have none of it): kept beside the response rather
 * than in Express's `res.locals`, whose one type every door would share.
 */
export interface ApiContext {
  /** The state this request is answered from. */
  readonly state: ReferenceState;
  /** What the request's credentials came to; known before the rate limit counts the request. */
  presented: Presented;
  /** What the rate limit counts the request against: its token, or its client's address. */
  rateLimitKey: string;
  /** The active token and its organization, once the token and the plan let the request in. */
  principal: Principal | undefined;
  /** The request body as parsed (numbers keep their text), for the endpoints that read one. */
  json: JsonValue | undefined;
  /** The fault that took this request, for the journal. */
  fault: string | undefined;
  /** The body's bytes as read, for the journal. */
  requestBody: Buffer | undefined;
  /** The answer's body as sent (or as far as it was sent), for the journal. */
  responseBody: Uint8Array | undefined;
}

const contexts = new WeakMap<object, ApiContext>();

/**
 * The door's first step: a fresh context over the state that answers the request (`stateOf`: the
 * default state, or the sandbox whose token it presents), before anything else is known of it.
 */
export const openContext =
  (stateOf: (req: Request) => ReferenceState): RequestHandler =>
  (req, res, next) => {
    const state = stateOf(req);
    // The answer's Date is the state's own time, the time its createdAt and expiries are on: a clock
    // moved by the control surface (or a sandbox's) moves it too.
    res.setHeader("Date", state.clock.now().toUTCString());
    contexts.set(res, {
      state,
      presented: { ok: false, reason: "missing" },
      rateLimitKey: "",
      principal: undefined,
      json: undefined,
      fault: undefined,
      requestBody: undefined,
      responseBody: undefined,
    });
    next();
  };

/** The context of a response the door has opened (its every step runs after `openContext`). */
export function apiContext(res: object): ApiContext {
  const context = contexts.get(res);
  if (context === undefined) throw new Error("the API door's steps run after openContext");
  return context;
}
