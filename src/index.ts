export { createApp, DEFAULT_BODY_LIMIT_BYTES, DEFAULT_RATE_LIMIT, type AppOptions } from "./app.js";
export { createServer, SERVER_DEFAULTS, type ServerOptions } from "./server.js";
export { createReference, DEFAULT_TOKEN_PREFIX, type Reference, type ReferenceOptions } from "./reference.js";
export { TokenRegistry, type TokenStatus, type TokenView } from "./auth/tokens.js";
export { Store } from "./store/store.js";
export { ManualClock, systemClock, type Clock } from "./clock.js";
export { ApiError, ERROR_STATUS, type ErrorCode } from "./errors.js";
export { loadFixtures, FixtureError, type FixtureSet } from "./fixtures/load.js";
export { defaultFixturesDir } from "./fixtures/paths.js";
export { TokenManifestSchema, type TokenManifest, type ManifestToken } from "./fixtures/manifest.js";
export {
  buildOpenApiDocument,
  renderOpenApiJson,
  type OpenApiDocument,
  type OpenApiOptions,
} from "./openapi/document.js";
export { docsRouter, type DocsOptions } from "./pages/docs.js";
