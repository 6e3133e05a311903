// The package's public surface (`accounting-api-reference`): one factory, the HTTP server around it,
// and what a test or a tool may want to read of the state. README.md documents each.
export {
  createReference,
  DEFAULT_BODY_LIMIT_BYTES,
  DEFAULT_RATE_LIMIT,
  DEFAULT_TOKEN_PREFIX,
  type Reference,
  type ReferenceOptions,
} from "./entry/reference.js";
export { createServer, SERVER_DEFAULTS, type ServerOptions } from "./edge/server.js";
export type { Fetch } from "./edge/fetch.js";
export { Control, SandboxControl } from "./doors/control/control.js";
export { docsRouter, type DocsOptions } from "./doors/pages/docs.js";
export {
  buildOpenApiDocument,
  renderOpenApiJson,
  type OpenApiDocument,
  type OpenApiOptions,
} from "./openapi/document.js";
export { ManualClock, systemClock, type Clock } from "./model/clock.js";
export { ApiError, ERROR_CODES, ERROR_STATUS, type ErrorCode } from "./model/errors.js";
export type {
  Contact,
  Expense,
  Invoice,
  LedgerAccount,
  Organization,
  Product,
  Scope,
} from "./model/records.js";
export { loadFixtures, type FixtureSet } from "./store/fixtures/load.js";
export { FixtureError } from "./store/fixtures/failure.js";
export { defaultFixturesDir } from "./store/fixtures/paths.js";
export { TokenManifestSchema, type TokenManifest, type ManifestToken } from "./store/fixtures/manifest.js";
export type { Latency, ReferenceState } from "./store/state.js";
export {
  DEFAULT_MAX_SANDBOXES,
  DEFAULT_SANDBOX_IDLE_MS,
  type Sandbox,
  type Sandboxes,
} from "./store/sandboxes.js";
export { Store, type PageQuery } from "./store/store.js";
export { TokenRegistry, type TokenStatus, type TokenView } from "./store/tokens.js";
export type { RateLimitOptions } from "./store/windows.js";
