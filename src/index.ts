// The package's root (`accounting-api-reference`): what README.md documents, and nothing else. The
// factory, the HTTP server around its app, the docs page's router, the error the in-process control
// throws, and the types that name what they take and give. The clients have entries of their own
// (`/control`, `/msw`, `/playwright`), and so has the kit (`/conformance`).
export { createReference, type CreateReferenceOptions, type Reference } from "./entry/reference.js";
export { createServer, type ServerOptions } from "./edge/server.js";
export type { Fetch } from "./edge/fetch.js";
export { docsRouter, type DocsOptions } from "./doors/pages/docs.js";
export type { Control, SandboxControl, StateControl } from "./doors/control/in-process.js";
export { ApiError, type ErrorCode } from "./model/errors.js";
export type { Clock } from "./model/clock.js";
export type { Latency, ReferenceState } from "./store/state.js";
export type { RateLimitOptions } from "./store/windows.js";
