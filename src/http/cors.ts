import cors from "cors";

/**
 * §4 CORS: any origin; the methods and request headers of the spec (`cors`, spec/accounting-api.json).
 * The exposed headers let a browser read the rate-limit state and the reason of a 401, which are
 * otherwise hidden from scripts. Exported so that answers written outside Express
 * (src/edge/server.ts) carry the same headers.
 */
export const CORS_ORIGIN = "*";

/** What a spec's pre-flights allow (its `cors`). */
export interface CorsOptions {
  readonly methods: readonly string[];
  readonly headers: readonly string[];
}
export const CORS_EXPOSED_HEADERS = [
  "RateLimit",
  "RateLimit-Policy",
  "Retry-After",
  "WWW-Authenticate",
] as const;

/**
 * The CORS headers of an actual (not pre-flight) response, as the middleware below writes them, for
 * an answer that never reaches Express: without them a browser hides the answer from the script.
 */
export const corsResponseHeaders = (): Record<string, string> => ({
  "Access-Control-Allow-Origin": CORS_ORIGIN,
  "Access-Control-Expose-Headers": CORS_EXPOSED_HEADERS.join(","),
});

/**
 * How long a browser may reuse a pre-flight's answer, in seconds: the answer is §4's and never
 * changes while the server runs, so caching it allows nothing the spec does not. Two hours is
 * Chromium's cap; without it, every cross-origin request under `--latency` paid the delay twice.
 */
export const CORS_MAX_AGE_SECONDS = 7200;

/**
 * It runs first, so every response carries the headers, errors and 429s included, and a browser can
 * read why it failed (spec-gaps #22); pre-flights end here, without a token.
 */
export const corsMiddleware = (options: CorsOptions) =>
  cors({
    origin: CORS_ORIGIN,
    methods: [...options.methods],
    allowedHeaders: [...options.headers],
    exposedHeaders: [...CORS_EXPOSED_HEADERS],
    optionsSuccessStatus: 204,
    maxAge: CORS_MAX_AGE_SECONDS,
  });
