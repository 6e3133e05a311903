import { setTimeout as sleep } from "node:timers/promises";
import express, { type Request, type RequestHandler, type Response, type Router } from "express";
import type { Principal } from "../../auth/authenticate.js";
import { corsMiddleware } from "../../http/cors.js";
import { noEndpoint } from "../../http/errors.js";
import { ApiError } from "../../model/errors.js";
import { TABLE_ROWS } from "../../routes/table.js";
import { JSON_CONTENT_TYPE } from "../../serialization/envelope.js";
import type { IdGenerator } from "../../store/ids.js";
import type { Sandboxes } from "../../store/sandboxes.js";
import type { ReferenceState } from "../../store/state.js";
import { admitted, requireScope } from "./auth.js";
import { readJsonBody } from "./body.js";
import { credentialStep } from "./credentials.js";
import { Exchange } from "./exchange.js";
import { accountingOf, BOUND } from "./handlers.js";
import { applyFault, latencyMs, takeFault } from "./hooks.js";
import { rateLimit } from "./rate-limit.js";

export interface ApiDoorOptions {
  /** The cap on a request body (spec-gaps #15). */
  bodyLimitBytes: number;
  log: (line: string) => void;
  /** Ids of created records (tests fix them); random by default. */
  ids?: IdGenerator | undefined;
  /** The sandboxes whose tokens the door answers from their own state. */
  sandboxes?: Sandboxes | undefined;
}

/**
 * What a request's path and method matched, run last: an endpoint of §4's table, an announced one, or
 * none. It gets what the chain established (the exchange, who the request acts for) and writes the
 * answer; only a route that reads a body or awaits persistence returns a promise.
 */
type Route = (exchange: Exchange, principal: Principal) => void | Promise<void>;

/** The query string of a request target, as Express's `req.query` reads it: after `?`, before `#`. */
function queryText(url: string): string {
  const hash = url.indexOf("#");
  const target = hash < 0 ? url : url.slice(0, hash);
  const q = target.indexOf("?");
  return q < 0 ? "" : target.slice(q + 1);
}

/**
 * The API door: the chain of §4, §5, §7 and §8 over the reference state, one explicit sequence of
 * steps (`serve`), each given what the earlier ones established. Express's router matches the path
 * and method to a route first (exact paths only, spec-gaps #34); every request then runs the same
 * chain, and its route comes last. It answers every path the other doors leave, so that a mistyped
 * path still gets the API's CORS headers and envelope.
 */
export function apiDoor(state: ReferenceState, options: ApiDoorOptions): Router {
  const credentials = credentialStep(state, options.sandboxes);
  const cors = corsMiddleware();

  /** CORS's headers on every answer; a pre-flight is answered here, without a token (true). */
  const corsAnswered = (exchange: Exchange): boolean => {
    let goesOn = false;
    cors(exchange.req, exchange.res, () => {
      goesOn = true;
    });
    if (goesOn) return false;
    // The middleware calls on at once for an actual request and ends a pre-flight itself.
    if (!exchange.res.writableEnded) throw new Error("the CORS step neither answered nor called on");
    exchange.answeredAsPreflight();
    return true;
  };

  /** The chain, in the precedence of spec-gaps #26. */
  async function serve(req: Request, res: Response, route: Route): Promise<void> {
    // 1. Credentials: the one reading of Authorization, and what it decides: the state that answers
    // (a sandbox's or the default), the token, the rate-limit key.
    const who = credentials(req);
    // 2. The journal: the exchange is recorded in that state's journal once the response is over,
    // and every answer below is written through it. It sees pre-flights and refusals too.
    const exchange = new Exchange(who, req, res, options.log);
    try {
      // 3. The state's latency, if one is set.
      const delay = latencyMs(who.state.latency);
      if (delay !== undefined) await sleep(delay);
      // 4. CORS: every answer carries its headers (spec-gaps #22); a pre-flight ends here.
      if (corsAnswered(exchange)) return;
      // 5. An active token's use is counted, whatever the outcome (spec-gaps #28).
      if (who.presented.ok) who.state.tokens.recordUse(who.presented.token.id);
      // 6. The rate limit (429), counted before anything can fail.
      rateLimit(who, res);
      // 7. Armed faults, once the token is known (they may aim at one) and the request counted, so
      // that an injected answer carries the rate-limit headers every API answer has.
      const fault = takeFault(exchange);
      if (fault !== undefined && (await applyFault(fault, exchange))) return;
      // 8. The token (401), then the organization's plan (403), before the path says anything.
      const principal = admitted(who, res);
      // 9. HEAD has no endpoint in §4 (Express would otherwise answer it from the GET route).
      if (req.method === "HEAD") throw noEndpoint(req);
      // 10. The route: scope (403), body and query (400), the operation, the answer.
      const routed = route(exchange, principal);
      if (routed !== undefined) await routed;
    } catch (err) {
      exchange.fail(err);
    }
  }

  const door = express.Router({ strict: true, caseSensitive: true });
  const to =
    (route: Route): RequestHandler =>
    (req, res, next) => {
      serve(req, res, route).catch(next);
    };
  const accounting = accountingOf(options.ids);
  for (const bound of Object.values(BOUND)) {
    const { endpoint } = bound;
    const answer = (exchange: Exchange, principal: Principal, body: unknown): Buffer =>
      bound.answer({ query: queryText(exchange.req.url), body, principal }, accounting(exchange.who.state));
    const route: Route =
      endpoint.method === "get"
        ? (exchange, principal) => {
            requireScope(principal, endpoint.scope);
            exchange.send(endpoint.status, JSON_CONTENT_TYPE, answer(exchange, principal, undefined));
          }
        : async (exchange, principal) => {
            requireScope(principal, endpoint.scope);
            const bytes = answer(exchange, principal, await readJsonBody(exchange, options.bodyLimitBytes));
            // A write is answered only once it is kept (`--data`: once its change is on disk).
            await exchange.who.state.durable();
            exchange.send(endpoint.status, JSON_CONTENT_TYPE, bytes);
          };
    door[endpoint.method](endpoint.path, to(route));
  }
  // Announced endpoints answer 404 saying so (spec-gaps #24).
  for (const { row } of TABLE_ROWS) {
    if (row.announced !== true) continue;
    const message = `${row.what} (${row.method.toUpperCase()} ${row.path}) is announced but not yet available`;
    door[row.method](
      row.path,
      to(() => {
        throw new ApiError("not_found", message);
      }),
    );
  }
  // Every other path and method: the chain, then 404 (pre-flights are answered by CORS on the way).
  door.use(
    to((exchange) => {
      throw noEndpoint(exchange.req);
    }),
  );
  return door;
}
