export { createApp, DEFAULT_BODY_LIMIT_BYTES, DEFAULT_RATE_LIMIT, type AppOptions } from "./edge/app.js";
export { createServer, SERVER_DEFAULTS, type ServerOptions } from "./edge/server.js";
export {
  createReference,
  DEFAULT_TOKEN_PREFIX,
  type Reference,
  type ReferenceOptions,
} from "./entry/reference.js";
export { TokenRegistry, type TokenStatus, type TokenView } from "./store/tokens.js";
export { Store } from "./store/store.js";
export { ManualClock, systemClock, type Clock } from "./model/clock.js";
export { ApiError, ERROR_STATUS, type ErrorCode } from "./model/errors.js";
export { loadFixtures, FixtureError, type FixtureSet } from "./store/fixtures/load.js";
export { defaultFixturesDir } from "./store/fixtures/paths.js";
export { TokenManifestSchema, type TokenManifest, type ManifestToken } from "./store/fixtures/manifest.js";
export {
  buildOpenApiDocument,
  renderOpenApiJson,
  type OpenApiDocument,
  type OpenApiOptions,
} from "./openapi/document.js";
export { docsRouter, type DocsOptions } from "./doors/pages/docs.js";
