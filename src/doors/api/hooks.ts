import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import type { Request, RequestHandler, Response } from "express";
import { ApiError } from "../../model/errors.js";
import type { ReferenceState } from "../../store/state.js";
import type { Latency } from "../control/control.js";

/**
 * The control surface's hooks in the API's pipeline: the journal sees every API request, armed
 * faults take the ones they match, and `--latency` slows every answer. None of them changes what an
 * API request gets when nothing is armed.
 */

declare module "express-serve-static-core" {
  interface Locals {
    /** The fault that took this request, for the journal. */
    fault?: string;
  }
}

/** The label and organization of the token a request presented, if the registry knows it. */
function tokenOf(state: ReferenceState, res: Response): { token?: string; organization?: string } {
  const resolution = res.locals.identity?.resolution;
  if (resolution === undefined) return {};
  const view = resolution.ok
    ? resolution.token
    : resolution.tokenId === undefined
      ? undefined
      : state.tokens.get(resolution.tokenId);
  return view === undefined ? {} : { token: view.name, organization: view.organizationId };
}

/** What looks like a bearer token in a query string is blanked: the journal never holds a secret. */
function redactQuery(url: string, prefix: string, token: RegExp): string {
  const q = url.indexOf("?");
  if (q < 0) return "";
  return url.slice(q + 1).replace(token, `${prefix}_[redacted]`);
}

export function journalRequests(state: ReferenceState): RequestHandler {
  // The registry's prefix is fixed for its life, so the pattern is built once, not per request.
  const prefix = state.tokens.prefix;
  const token = new RegExp(`${prefix}_[0-9A-Za-z]{8,}`, "g");
  return (req, res, next) => {
    const started = performance.now();
    const time = state.clock.now();
    // A response emits "close" once, when it is over: after "finish" when it was sent in full, alone
    // when the connection went first (a dropped request); one listener tells both apart. `on`, not
    // `once`: the event cannot come twice, and `once` wraps and later unhooks a listener per request.
    res.on("close", () => {
      const { token: label, organization } = tokenOf(state, res);
      state.journal.record({
        time,
        method: req.method,
        path: req.path,
        query: redactQuery(req.originalUrl, prefix, token),
        status: res.writableFinished ? res.statusCode : null,
        token: label ?? null,
        organization: organization ?? null,
        durationMs: Math.round((performance.now() - started) * 10) / 10,
        fault: res.locals.fault ?? null,
      });
    });
    next();
  };
}

/** After the token is identified (faults may name a token or an organization) and the request counted. */
export function injectFaults(state: ReferenceState): RequestHandler {
  return (req: Request, res: Response, next) => {
    const { token, organization } = tokenOf(state, res);
    const fault = state.faults.take({ method: req.method, path: req.path, token, organization });
    if (fault === undefined) {
      next();
      return;
    }
    res.locals.fault = fault.id;
    void (async () => {
      if (fault.delayMs !== undefined) await sleep(fault.delayMs);
      if (fault.drop === true) {
        // As a network failure: no status line, no headers, the connection gone.
        req.socket.destroy();
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
}

/** `--latency`: a random delay in [minMs, maxMs] before every API request is handled. */
export function addLatency(latency: Latency, random: () => number = Math.random): RequestHandler {
  return (_req, _res, next) => {
    const ms = latency.minMs + Math.floor(random() * (latency.maxMs - latency.minMs + 1));
    void sleep(ms).then(() => next());
  };
}
