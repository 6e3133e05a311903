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

/**
 * The kit's layering (CONTRIBUTING, "The kit"): the command line (bin.ts, cli.ts) and the API
 * (index.ts) on top; beside each other below them, the engine (engine/: runner, client, pacer,
 * tokens, preflight), the catalogue (checks/, written with support/) and the reports (report/); under
 * all of them the contract (types.ts, exchange.ts, failures.ts, the manifest's schema, kit.ts) and the
 * kit's own reading of the spec (spec/). The engine runs checks it knows only by the contract; a check
 * reaches the target only through the context it is given.
 */
const KIT = "^conformance/";
const KIT_TOP = "^conformance/(index|cli|bin)\\.ts$";
const KIT_CONTRACT = "^conformance/(types|exchange|failures|manifest-schema|kit)\\.ts$";
const KIT_TESTS = `${TESTS}|^conformance/test-support/`;

/** @type {import('dependency-cruiser').IForbiddenRuleType[]} */
const kit = [
  {
    name: "kit-spec-imports-nothing-of-the-kit",
    comment: "spec/ is the kit's reading of the spec: under everything, over nothing",
    severity: "error",
    from: { path: "^conformance/spec/", pathNot: TESTS },
    to: { path: `${KIT}(?!spec/)|^src/` },
  },
  {
    name: "kit-contract-imports-only-the-contract-and-spec",
    comment: "The contract between engine, catalogue and reports names none of them",
    severity: "error",
    from: { path: KIT_CONTRACT },
    to: { path: KIT, pathNot: `${KIT_CONTRACT}|^conformance/spec/` },
  },
  {
    name: "kit-engine-imports-no-catalogue-or-report",
    comment:
      "The engine runs whatever checks it is given, and reports nothing itself; but it records each exchange with its curl command and as reports show it (report/curl.ts, report/exchange.ts, no cycle: the no-cycle rule holds)",
    severity: "error",
    from: { path: "^conformance/engine/", pathNot: TESTS },
    to: {
      path: `^conformance/(checks|support|report)/|${KIT_TOP}`,
      pathNot: "^conformance/report/(curl|exchange)\\.ts$",
    },
  },
  {
    name: "kit-catalogue-imports-no-engine-or-report",
    comment: "A check reaches the target, the tokens and the clock only through its context (types.ts)",
    severity: "error",
    from: { path: "^conformance/(checks|support)/", pathNot: TESTS },
    to: { path: `^conformance/(engine|report)/|${KIT_TOP}|^conformance/manifest\\.ts$` },
  },
  {
    name: "kit-support-imports-no-check",
    comment: "support/ is what checks are written with",
    severity: "error",
    from: { path: "^conformance/support/", pathNot: TESTS },
    to: { path: "^conformance/checks/" },
  },
  {
    name: "kit-reports-import-no-catalogue",
    comment: "A report renders results: it knows no check's code",
    severity: "error",
    from: { path: "^conformance/report/", pathNot: TESTS },
    to: { path: `^conformance/(checks|support)/|${KIT_TOP}` },
  },
  {
    name: "kit-reads-the-spec-not-the-reference",
    comment:
      "The kit's reading of the spec is its own (DECISIONS): only the API (the embedded reference) and the manifest's default path reach into src/",
    severity: "error",
    from: { path: KIT, pathNot: `${KIT_TESTS}|^conformance/(index|manifest)\\.ts$` },
    to: { path: "^src/" },
  },
  {
    name: "kit-imports-no-tests",
    severity: "error",
    from: { path: KIT, pathNot: KIT_TESTS },
    to: { path: KIT_TESTS },
  },
  {
    name: "kit-no-cycle",
    comment: "No cycle of kit files, not even of type-only imports: each layer reads as itself",
    severity: "error",
    from: { path: KIT },
    to: { path: KIT, circular: true },
  },
];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [...forbidden, ...kit],
  options: {
    // Type-only imports count: a layer that names another's types depends on it as surely.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^dist/" },
  },
};
