import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import type { RequestHandler, Response } from "express";
import { presentedTokenId } from "../../auth/authenticate.js";
import { ApiError } from "../../model/errors.js";
import type { ReferenceState } from "../../store/state.js";
import { failBeyondSpec } from "./beyond-spec.js";
import { apiContext, type ApiContext } from "./context.js";

/**
 * The control surface's hooks in the API's pipeline, over the state's parts: the journal sees every
 * API request, armed faults take the ones they match, and the latency slows every answer. None of
 * them changes what an API request gets when nothing is armed.
 */

/** The label and organization of the token a request presented, if the registry knows it. */
function tokenOf({ state, presented }: ApiContext): { token?: string; organization?: string } {
  const id = presentedTokenId(presented);
  const view = presented.ok ? presented.token : id === undefined ? undefined : state.tokens.get(id);
  return view === undefined ? {} : { token: view.name, organization: view.organizationId };
}

/** What looks like a bearer token in a query string is blanked: the journal never holds a secret. */
function redactQuery(url: string, prefix: string, token: RegExp): string {
  const q = url.indexOf("?");
  if (q < 0) return "";
  return url.slice(q + 1).replace(token, `${prefix}_[redacted]`);
}

/** Each request is journaled once it is over, in the journal of the state that answered it. */
export function journalRequests(): RequestHandler {
  // A registry's prefix is fixed for its life, so each state's pattern is built once, not per request.
  const patterns = new WeakMap<ReferenceState, RegExp>();
  const patternOf = (state: ReferenceState): RegExp => {
    let pattern = patterns.get(state);
    if (pattern === undefined) {
      pattern = new RegExp(`${state.tokens.prefix}_[0-9A-Za-z]{8,}`, "g");
      patterns.set(state, pattern);
    }
    return pattern;
  };
  return (req, res, next) => {
    const started = performance.now();
    const arrived = apiContext(res).state.clock.now();
    keepBody(res);
    // A response emits "close" once, when it is over: after "finish" when it was sent in full, alone
    // when the connection went first (a dropped request); one listener tells both apart.
    res.on("close", () => {
      const ctx = apiContext(res);
      const { token, organization } = tokenOf(ctx);
      const prefix = ctx.state.tokens.prefix;
      ctx.state.journal.record({
        time: arrived,
        method: req.method,
        path: req.path,
        query: redactQuery(req.originalUrl, prefix, patternOf(ctx.state)),
        status: res.writableFinished ? res.statusCode : null,
        token: token ?? null,
        organization: organization ?? null,
        durationMs: Math.round((performance.now() - started) * 10) / 10,
        fault: ctx.fault ?? null,
        requestBody: ctx.requestBody ?? null,
        responseBody: ctx.responseBody ?? null,
      });
    });
    next();
  };
}

/** The answer's body is what `end` is given (a list, an error, a page): kept in the context for the journal. */
function keepBody(res: Response): void {
  const end = res.end;
  const keeping = (...args: unknown[]): unknown => {
    const [chunk] = args;
    if (typeof chunk === "string") apiContext(res).responseBody = Buffer.from(chunk, "utf8");
    else if (chunk instanceof Uint8Array) apiContext(res).responseBody = chunk;
    return Reflect.apply(end, res, args);
  };
  // Own property over the prototype's `end`, for this response only.
  Object.defineProperty(res, "end", { value: keeping, configurable: true, writable: true });
}

/** After the token is identified (faults may name a token or an organization) and the request counted. */
export const injectFaults: RequestHandler = (req, res, next) => {
  const ctx = apiContext(res);
  const { token, organization } = tokenOf(ctx);
  const fault = ctx.state.faults.take(
    { method: req.method, path: req.path, token, organization },
    ctx.state.clock.now(),
  );
  if (fault === undefined) {
    next();
    return;
  }
  ctx.fault = fault.id;
  void (async () => {
    if (fault.delayMs !== undefined) await sleep(fault.delayMs);
    if (fault.drop === true) {
      // As a network failure: no status line, no headers, the connection gone.
      req.socket.destroy();
      return;
    }
    if (fault.beyondSpec !== undefined) {
      failBeyondSpec(fault.beyondSpec, res, next);
      return;
    }
    if (fault.error === undefined) {
      next();
      return;
    }
    if (fault.error.retryAfterSeconds !== undefined) {
      res.setHeader("Retry-After", String(fault.error.retryAfterSeconds));
    }
    next(new ApiError(fault.error.code, fault.error.message));
  })();
};

/** The state's latency: a random delay in [minMs, maxMs] before every API request is handled. */
export function addLatency(random: () => number = Math.random): RequestHandler {
  return (_req, res, next) => {
    const latency = apiContext(res).state.latency;
    if (latency === null) {
      next();
      return;
    }
    const ms = latency.minMs + Math.floor(random() * (latency.maxMs - latency.minMs + 1));
    void sleep(ms).then(() => next());
  };
}
