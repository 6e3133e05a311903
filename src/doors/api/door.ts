import { setTimeout as sleep } from "node:timers/promises";
import type { Request, RequestHandler, Response } from "express";
import type { Principal } from "../../auth/authenticate.js";
import { corsMiddleware } from "../../http/cors.js";
import { noEndpoint } from "../../http/errors.js";
import { ApiError } from "../../model/errors.js";
import { compileSpec, type CompiledSpec } from "../../routes/compile.js";
import { JSON_CONTENT_TYPE } from "../../serialization/envelope.js";
import type { IdGenerator } from "../../store/ids.js";
import type { Sandboxes } from "../../store/sandboxes.js";
import type { ReferenceState } from "../../store/state.js";
import { admitted, requireScope } from "./auth.js";
import { readJsonBody } from "./body.js";
import { credentialStep } from "./credentials.js";
import { Exchange } from "./exchange.js";
import { accountingOf, boundFor } from "./handlers.js";
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

/** What a compiled spec serves: its routes by `METHOD path` (exact, spec-gaps #34) and its CORS step. */
interface Serving {
  routes: ReadonlyMap<string, Route>;
  cors: RequestHandler;
}

/**
 * The API door: the chain of §4, §5, §7 and §8 over the reference state, one explicit sequence of
 * steps (`serve`), each given what the earlier ones established. The credential step comes first and
 * yields the state that answers (a sandbox's or the default); every later step reads that state's
 * spec (`compileSpec(state.spec)`): its CORS options, rate limit, routes (exact paths, spec-gaps #34),
 * schemas and error table. The route comes last. It answers every path the other doors leave, so that
 * a mistyped path still gets the API's CORS headers and envelope.
 */
export function apiDoor(state: ReferenceState, options: ApiDoorOptions): RequestHandler {
  const credentials = credentialStep(state, options.sandboxes);
  const accounting = accountingOf(options.ids);
  const servings = new WeakMap<CompiledSpec, Serving>();

  /** A compiled spec's routes and CORS step, made on its first request. */
  const servingOf = (compiled: CompiledSpec): Serving => {
    let serving = servings.get(compiled);
    if (serving === undefined) {
      serving = { routes: routesOf(compiled), cors: corsMiddleware(compiled.cors) };
      servings.set(compiled, serving);
    }
    return serving;
  };

  const routesOf = (compiled: CompiledSpec): Map<string, Route> => {
    const routes = new Map<string, Route>();
    for (const bound of Object.values(boundFor(compiled))) {
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
      routes.set(`${endpoint.method.toUpperCase()} ${endpoint.path}`, route);
    }
    // Announced endpoints answer 404 saying so (spec-gaps #24).
    for (const { row } of compiled.rows) {
      if (row.announced !== true) continue;
      const message = `${row.what} (${row.method.toUpperCase()} ${row.path}) is announced but not yet available`;
      routes.set(`${row.method.toUpperCase()} ${row.path}`, () => {
        throw new ApiError("notFound", message);
      });
    }
    return routes;
  };

  /** CORS's headers on every answer; a pre-flight is answered here, without a token (true). */
  const corsAnswered = (exchange: Exchange, cors: RequestHandler): boolean => {
    let goesOn = false;
    void cors(exchange.req, exchange.res, () => {
      goesOn = true;
    });
    if (goesOn) return false;
    // The middleware calls on at once for an actual request and ends a pre-flight itself.
    if (!exchange.res.writableEnded) throw new Error("the CORS step neither answered nor called on");
    exchange.answeredAsPreflight();
    return true;
  };

  /** The chain, in the precedence of spec-gaps #26. */
  async function serve(req: Request, res: Response): Promise<void> {
    // 1. Credentials: the one reading of Authorization, and what it decides: the state that answers
    // (a sandbox's or the default, with its spec), the token, the rate-limit key.
    const who = credentials(req);
    const serving = servingOf(compileSpec(who.state.spec));
    // 2. The journal: the exchange is recorded in that state's journal once the response is over,
    // and every answer below is written through it. It sees pre-flights and refusals too.
    const exchange = new Exchange(who, req, res, options.log);
    try {
      // 3. The state's latency, if one is set.
      const delay = latencyMs(who.state.latency);
      if (delay !== undefined) await sleep(delay);
      // 4. CORS: every answer carries its headers (spec-gaps #22); a pre-flight ends here.
      if (corsAnswered(exchange, serving.cors)) return;
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
      // 9. HEAD has no endpoint in §4.
      if (req.method === "HEAD") throw noEndpoint(req);
      // 10. The route of the state's spec, exact (spec-gaps #34): scope (403), body and query (400),
      // the operation, the answer; or 404.
      const route = serving.routes.get(`${req.method} ${req.path}`);
      if (route === undefined) throw noEndpoint(req);
      const routed = route(exchange, principal);
      if (routed !== undefined) await routed;
    } catch (err) {
      exchange.fail(err);
    }
  }

  return (req, res, next) => {
    serve(req, res).catch(next);
  };
}
