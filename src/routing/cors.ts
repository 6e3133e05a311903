import cors from "cors";

/**
 * §4 CORS: any origin; the listed methods and headers. It runs first, so every response carries
 * the headers, errors and 429s included, and a browser can read why it failed (spec-gaps #22);
 * pre-flights end here, without a token. The exposed headers let a browser read the rate-limit
 * state and the reason of a 401, which are otherwise hidden from scripts.
 */
export const corsMiddleware = () =>
  cors({
    origin: "*",
    methods: ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
    allowedHeaders: ["Authorization", "Content-Type"],
    exposedHeaders: ["RateLimit", "RateLimit-Policy", "Retry-After", "WWW-Authenticate"],
    optionsSuccessStatus: 204,
  });
