// @ts-check
/**
 * The server's layering, checked in `npm test` (README, "Working on it"). A request flows through the
 * layers in this order, and a module may import only from its own layer or one below it: never
 * against the flow. `model/` (the spec's vocabulary) sits under all of them.
 */
const LAYERS = [
  // What users import into their test runners (control client, Playwright fixture, msw handlers):
  // outside the server, above it, and imported by none of it.
  ["clients", "^src/clients/"],
  ["entry", "^src/(entry/|index\\.ts$)"],
  ["edge", "^src/edge/"],
  ["doors", "^src/doors/"],
  ["openapi", "^src/openapi/"],
  ["routes", "^src/routes/"],
  ["http", "^src/http/"],
  ["auth", "^src/auth/"],
  ["validation", "^src/validation/"],
  ["domain", "^src/domain/"],
  ["store", "^src/store/"],
  ["serialization", "^src/serialization/"],
  ["model", "^src/model/"],
];

const DOORS = ["api", "control", "pages"];
const TESTS = "\\.test\\.tsx?$";

/** @type {import('dependency-cruiser').IForbiddenRuleType[]} */
const forbidden = [
  ...LAYERS.slice(1).map(([name, path], i) => ({
    name: `${name}-imports-no-layer-above`,
    comment: `${name}/ is below ${LAYERS.slice(0, i + 1)
      .map(([n]) => n)
      .join(", ")} in the request's flow`,
    severity: /** @type {const} */ ("error"),
    // Tests may build whatever they check with: a whole reference, a server around it.
    from: { path, pathNot: TESTS },
    to: {
      path: LAYERS.slice(0, i + 1)
        .map(([, p]) => `(${p})`)
        .join("|"),
    },
  })),
  ...DOORS.map((door) => ({
    name: `${door}-door-imports-no-other-door`,
    comment: "The API, the control surface and the pages are separate doors onto one state",
    severity: /** @type {const} */ ("error"),
    from: { path: `^src/doors/${door}/`, pathNot: TESTS },
    to: { path: `^src/doors/(?!${door}/)` },
  })),
  {
    name: "inner-layers-know-no-http",
    comment: "auth, validation, domain, store, serialization and model know nothing of HTTP",
    severity: "error",
    from: { path: "^src/(auth|validation|domain|store|serialization|model)/", pathNot: "\\.test\\.tsx?$" },
    to: {
      path: "^(node_modules/(express|cors|express-rate-limit|raw-body|cookie-parser|csrf-csrf)/|http$|https$)",
    },
  },
  {
    name: "clients-run-no-server-code",
    comment:
      "The control client and the Playwright fixture run in test runners and browsers: they take the server's types (type-only imports) and their generated routes, never its code",
    severity: "error",
    from: { path: "^src/clients/", pathNot: `(${TESTS}|^src/clients/msw\\.ts$)` },
    to: { path: "^src/(?!clients/)", dependencyTypesNot: ["type-only"] },
  },
  {
    name: "msw-handlers-run-only-the-factory",
    comment: "The msw handlers run the reference in process: its factory, and nothing else of the server",
    severity: "error",
    from: { path: "^src/clients/msw\\.ts$" },
    to: { path: "^src/(?!clients/|entry/reference\\.ts$)", dependencyTypesNot: ["type-only"] },
  },
  {
    name: "control-client-uses-no-node-module",
    comment: "The control client runs in browsers too (Cypress, Vitest's browser mode): fetch, not Node",
    severity: "error",
    from: { path: "^src/clients/control(-routes)?\\.ts$" },
    to: { dependencyTypes: ["core"] },
  },
  {
    name: "spec-file-imports-neither-tool",
    comment:
      "spec/ is the spec as data, read by the reference and the kit alike: it must not lean on either, or the kit would judge the reference by the reference's own reading",
    severity: "error",
    from: { path: "^spec/" },
    to: { path: "^(src|conformance)/" },
  },
  {
    name: "production-code-imports-no-tests",
    severity: "error",
    from: { path: "^src/", pathNot: "(\\.test\\.tsx?$|^src/test-support/)" },
    to: { path: "(\\.test\\.tsx?$|^src/test-support/)" },
  },
  {
    name: "no-circular",
    comment: "No cycle of imports that run (a cycle of type-only imports is erased at build)",
    severity: "error",
    from: {},
    to: { circular: true, viaOnly: { dependencyTypesNot: ["type-only"] } },
  },
];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden,
  options: {
    // Type-only imports count: a layer that names another's types depends on it as surely.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^dist/" },
  },
};
