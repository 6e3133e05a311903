// @ts-check
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import globals from "globals";

/** What writes an answer: patching one of these on a response changes how that one response is sent. */
const WRITERS = "/^(end|write|writeHead|setHeader|flushHeaders)$/";

const NO_PATCHED_RESPONSE = [
  {
    selector: `AssignmentExpression > MemberExpression.left[property.name=${WRITERS}]`,
    message: "No response is patched per request: write the answer through the door's own writer.",
  },
  {
    selector: `CallExpression[callee.property.name=/^(defineProperty|defineProperties|assign)$/] > Literal.arguments[value=${WRITERS}]`,
    message: "No response is patched per request: write the answer through the door's own writer.",
  },
  {
    selector: `CallExpression[callee.property.name=/^(defineProperty|defineProperties|assign)$/] Property > Identifier.key[name=${WRITERS}]`,
    message: "No response is patched per request: write the answer through the door's own writer.",
  },
];

/**
 * No object spread on the per-request path: on Node 20 its result was promoted to the old generation
 * far more often than a literal's, with what it points to (DECISIONS.md, "Performance (issue #11)":
 * 840 -> 245 bytes promoted per 404). Build the object as a literal, or once.
 */
const NO_SPREAD_PER_REQUEST = [
  {
    selector: "ObjectExpression > SpreadElement",
    message: "No object spread on the per-request path: write the object as a literal (or make it once).",
  },
];

/** The modules every API request runs through (the doors' own, the control surface and the pages, are not). */
const PER_REQUEST = [
  "src/doors/api/**/*.ts",
  "src/auth/**/*.ts",
  "src/http/**/*.ts",
  "src/validation/**/*.ts",
  "src/serialization/**/*.ts",
  "src/edge/fast-path.ts",
  "src/edge/fetch.ts",
  "src/store/tokens.ts",
  "src/store/windows.ts",
  "src/store/journal.ts",
  "src/store/store.ts",
];

const ONE_CREDENTIAL_STEP = [
  {
    selector: "MemberExpression[property.name=/^(authorization|rawHeaders|headersDistinct)$/]",
    message: "Only the credential step (src/doors/api/credentials.ts) reads the Authorization header.",
  },
  {
    // A list that names the header (CORS's allowed headers) does not read it.
    selector: "Literal[value=/^authorization$/i]:not(ArrayExpression > Literal)",
    message: "Only the credential step (src/doors/api/credentials.ts) reads the Authorization header.",
  },
];

/** The credential step is the one caller of `identify`: nothing else turns a header into a state. */
const ONE_IDENTIFY = {
  patterns: [
    {
      group: ["**/auth/authenticate.js"],
      importNames: ["identify"],
      message: "Only the credential step (src/doors/api/credentials.ts) identifies the caller.",
    },
  ],
};

/** Where the API's requests run and no step but the credential step reads the Authorization header. */
const CREDENTIAL_FREE = ["src/edge/**/*.ts", ...PER_REQUEST];
const CREDENTIAL_STEP = "src/doors/api/credentials.ts";
/** The credential step, and the reader of any header by name it reads the header's lines with. */
const READS_AUTHORIZATION = [CREDENTIAL_STEP, "src/http/headers.ts"];

export default tseslint.config(
  // `*.generated.ts`: written by a tool (npm run openapi), compared byte for byte by a test.
  { ignores: ["dist/", "node_modules/", "coverage/", "**/*.generated.ts"] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    languageOptions: { globals: globals.node },
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/ban-ts-comment": "error",
      "@typescript-eslint/consistent-type-imports": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      eqeqeq: ["error", "always"],
      "no-console": "off",
    },
  },
  {
    // No response is patched per request: the API door writes every answer through its exchange
    // (src/doors/api/exchange.ts, whose `cutShort` is the one hook a fault cuts a body with), and
    // the journal records the body there. An own `end` or `write` on one response also takes it off
    // V8's fast paths (DECISIONS.md, "The API door as one chain").
    files: ["src/**/*.{ts,tsx}"],
    ignores: ["src/**/*.test.{ts,tsx}"],
    rules: { "no-restricted-syntax": ["error", ...NO_PATCHED_RESPONSE] },
  },
  {
    // One credential step: only src/doors/api/credentials.ts reads the Authorization header on the
    // API's path (the edge, the door, auth, http, validation, serialization, the store it reads), and
    // only it calls `identify`, so that a token is read, checked and hashed once per request.
    files: CREDENTIAL_FREE,
    ignores: ["src/**/*.test.ts", ...READS_AUTHORIZATION],
    rules: { "no-restricted-syntax": ["error", ...NO_PATCHED_RESPONSE, ...ONE_CREDENTIAL_STEP] },
  },
  {
    files: ["src/**/*.{ts,tsx}"],
    ignores: ["src/**/*.test.{ts,tsx}", CREDENTIAL_STEP],
    rules: { "no-restricted-imports": ["error", ONE_IDENTIFY] },
  },
  {
    files: PER_REQUEST,
    ignores: ["src/**/*.test.ts", ...READS_AUTHORIZATION],
    rules: {
      "no-restricted-syntax": [
        "error",
        ...NO_PATCHED_RESPONSE,
        ...NO_SPREAD_PER_REQUEST,
        ...ONE_CREDENTIAL_STEP,
      ],
    },
  },
  {
    files: READS_AUTHORIZATION,
    rules: { "no-restricted-syntax": ["error", ...NO_PATCHED_RESPONSE, ...NO_SPREAD_PER_REQUEST] },
  },
  {
    // vitest reads which fixtures a fixture or a test needs from its first parameter, which must be a
    // destructuring pattern: `({}, { onCleanup }) => …` is how a fixture that needs none is written.
    files: ["**/*.test.ts", "src/test-support/**/*.ts", "conformance/support/**/*.ts"],
    rules: { "no-empty-pattern": ["error", { allowObjectPatternsAsParameters: true }] },
  },
  {
    // The pages' one script runs in the browser, as a classic script.
    files: ["src/doors/pages/assets/**/*.js"],
    languageOptions: { globals: globals.browser, sourceType: "script" },
  },
);
