import {
  IncomingMessage as NodeIncomingMessage,
  ServerResponse as NodeServerResponse,
  type IncomingMessage,
  type RequestListener,
  type ServerOptions as HttpServerOptions,
  type ServerResponse,
} from "node:http";
// Imported rather than global: Jest's jsdom environment has no global setImmediate, and
// reference.fetch serves through this hand-off there too.
import { setImmediate } from "node:timers";

/**
 * The HTTP edge's two measures that only make it faster: without them every answer is the same, only
 * slower. Each says here what it saved when it was measured (DECISIONS.md, "Performance (issue #11)");
 * `npm run bench` re-measures them (its "bare Express 5, born" row is Express alone under the first).
 * The other measures of the request path say the same where they live, and DECISIONS.md, "The
 * request path (issue #28)", lists them all with their figures.
 */

/** What `createServer` serves: any request listener; an Express app's prototypes are used as below. */
export type App = RequestListener & { request?: object; response?: object };

/**
 * Measured: 199 -> 103 us of CPU per list read. Node's options under which it builds each request and
 * response on the app's own prototypes (`app.request`, `app.response`), so that Express 5's
 * per-request `Object.setPrototypeOf` finds nothing to change and V8 keeps the objects on its fast
 * paths. Node's IncomingMessage and
 * ServerResponse are constructor functions, called here on an object made from the app's prototype;
 * were they ever classes (which cannot be called so), Node's own objects are used, as with a plain
 * listener.
 */
export function appPrototypeOptions(app: App): Pick<HttpServerOptions, "IncomingMessage" | "ServerResponse"> {
  const { request, response } = app;
  if (request === undefined || response === undefined) return {};
  if (isClass(NodeIncomingMessage) || isClass(NodeServerResponse)) return {};
  function Request(this: IncomingMessage, ...args: unknown[]): void {
    Reflect.apply(NodeIncomingMessage, this, args);
  }
  Request.prototype = request;
  function Response(this: ServerResponse, ...args: unknown[]): void {
    Reflect.apply(NodeServerResponse, this, args);
  }
  Response.prototype = response;
  // Node types its options as classes; these are the same constructors, called as functions.
  return {
    IncomingMessage: Request as unknown as typeof IncomingMessage,
    ServerResponse: Response as unknown as typeof ServerResponse,
  };
}

const isClass = (f: unknown): boolean =>
  typeof f === "function" && Function.prototype.toString.call(f).startsWith("class");

/**
 * Measured: 125 -> 100 us of CPU per list read at 20 connections. Hands a request to the app in the
 * check phase, once the poll phase has read every connection with input: under concurrent clients the
 * server then reads, answers and writes in batches.
 */
export const handOff = (app: RequestListener, req: IncomingMessage, res: ServerResponse): void => {
  setImmediate(app, req, res);
};
