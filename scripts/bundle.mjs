// The last step of `npm run build` before the stamp: the reference's entry file (dist/src/entry/bin.js, as
// tsc wrote it) as one ES module with its dependencies, in dist/bundle/, which `npm start` and the
// `accounting-reference` bin run. Unbundled, Node resolves, reads and compiles some 280 modules at
// each start (Express's and zod's alone are most of the start time); bundled, one file and a few
// chunks (the figures: DECISIONS.md, "What `npm start` runs"). What loads on first use (the pages,
// the OpenAPI document, --data) stays in chunks of its own. The library entries
// (dist/src/index.js, the control client) and the kit are not bundled.
import { build } from "esbuild";
import { copyFileSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const outdir = join(root, "dist", "bundle");
// Chunk names carry a hash of their content: without this, every rebuild would leave the last ones.
rmSync(outdir, { recursive: true, force: true });

/**
 * CommonJS modules that Express and raw-body require, and Node reads and evaluates, on the way to the
 * reference's first answer, for features it does not use then. Each is replaced in the bundle by a
 * stand-in of the same exports that loads the real module on first use:
 *
 * - body-parser (express.json & co; the API reads bodies with raw-body): kept in the bundle, evaluated
 *   on first use;
 * - iconv-lite (charsets raw-body decodes when asked to; the API never asks), mime-types (res.type,
 *   res.sendFile: the docs page's files; its mime-db is a 230 KB table) and qs (Express's "extended"
 *   query parser; the reference has its own): left out of the bundle and loaded, on first use, from
 *   the installed package that depends on them (`from`), as that package would load them. These were
 *   820 KB of the 2.1 MB bundle, read and parsed at every start.
 *
 * What it saves: 1 452 -> 1 379 M instructions from spawn to first answer (callgrind),
 * DECISIONS.md, "The request path (issue #28)"; `npm run bench` measures start to first answer.
 */
const STAND_INS = {
  "body-parser": { calls: ["json", "raw", "text", "urlencoded"] },
  "iconv-lite": {
    from: "raw-body",
    calls: ["decode", "encode", "encodingExists", "getDecoder", "getEncoder"],
  },
  "mime-types": {
    from: "express",
    calls: ["charset", "contentType", "extension", "lookup"],
    values: ["charsets", "extensions", "types"],
  },
  qs: { from: "express", calls: ["parse", "stringify"], values: ["formats"] },
};

/**
 * zod's locales: every language's messages (240 KB of the bundle), which `z.locales` and
 * `z.core.locales` name but the reference never uses (English is loaded on its own). The namespace is
 * replaced by one of the same names whose functions load zod's CommonJS build of them on first use.
 */
const ZOD_LOCALES = join(root, "node_modules", "zod", "v4", "locales", "index.js");
const localeNames = [...readFileSync(ZOD_LOCALES, "utf8").matchAll(/export \{ default as (\w+) \}/g)].map(
  ([, name]) => name,
);

/** @type {import("esbuild").Plugin} */
const zodLocalesOnFirstUse = {
  name: "zod-locales-on-first-use",
  setup(build) {
    build.onResolve({ filter: /locales\/index\.js$/ }, (args) =>
      args.importer.includes(join("node_modules", "zod", "v4"))
        ? { path: "zod/v4/locales", namespace: "zod-locales" }
        : undefined,
    );
    // Left out of the bundle: loaded from the installed zod, which the package depends on.
    build.onResolve({ filter: /^zod\/v4\/locales$/ }, (args) => ({ path: args.path, external: true }));
    build.onLoad({ filter: /.*/, namespace: "zod-locales" }, () => ({
      contents: [
        `let real;`,
        `const load = () => (real ??= require("zod/v4/locales"));`,
        ...localeNames.map((name) => `export const ${name} = (...args) => load().${name}(...args);`),
      ].join("\n"),
      loader: "js",
      resolveDir: root,
    }));
  },
};

/** @type {import("esbuild").Plugin} */
const loadOnFirstUse = {
  name: "load-on-first-use",
  setup(build) {
    const names = Object.keys(STAND_INS).join("|");
    build.onResolve({ filter: new RegExp(`^(${names})$`) }, (args) =>
      // A stand-in's own require of the module is the real one.
      args.namespace === "on-first-use" ? undefined : { path: args.path, namespace: "on-first-use" },
    );
    build.onLoad({ filter: /.*/, namespace: "on-first-use" }, (args) => {
      const name = /** @type {keyof typeof STAND_INS} */ (args.path);
      const {
        from,
        calls,
        values = [],
      } = /** @type {{ from?: string, calls: string[], values?: string[] }} */ (STAND_INS[name]);
      const load =
        from === undefined
          ? `() => require(${JSON.stringify(name)})`
          : `() => (real ??= require("node:module").createRequire(require.resolve(${JSON.stringify(from)}))(${JSON.stringify(name)}))`;
      const members = [
        ...calls.map((call) => `${call}: (...args) => load().${call}(...args)`),
        ...values.map((value) => `get ${value}() { return load().${value}; }`),
      ];
      return {
        contents: `let real; const load = ${load}; module.exports = { ${members.join(", ")} };`,
        loader: "js",
        resolveDir: root,
      };
    });
  },
};

await build({
  entryPoints: [join(root, "dist", "src", "entry", "bin.js")],
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  // Express and its dependencies are CommonJS: they require Node's modules, and write-file-atomic
  // hashes __filename into its temporary names. An ES module has neither, so each output file gets
  // them, imported under names no bundled module uses.
  banner: {
    js: [
      'import { createRequire as __bundleCreateRequire } from "node:module";',
      'import { fileURLToPath as __bundleFileURLToPath } from "node:url";',
      "const require = __bundleCreateRequire(import.meta.url);",
      "const __filename = __bundleFileURLToPath(import.meta.url);",
    ].join(" "),
  },
  // Express's view engine loader requires engines by name at run time; the reference renders no views.
  logOverride: { "unsupported-require-call": "silent" },
  legalComments: "eof",
  logLevel: "warning",
  plugins: [loadOnFirstUse, zodLocalesOnFirstUse],
});

// The docs page's Swagger UI files, with their licence, copied into the package: depending on
// swagger-ui-dist would make every project that installs this one run @scarf/scarf's install script.
const swaggerUi = join(root, "node_modules", "swagger-ui-dist");
const swaggerOut = join(root, "dist", "swagger-ui");
rmSync(swaggerOut, { recursive: true, force: true });
mkdirSync(swaggerOut, { recursive: true });
for (const file of [
  "swagger-ui-bundle.js",
  "swagger-ui-bundle.js.LICENSE.txt",
  "swagger-ui.css",
  "LICENSE",
  "NOTICE",
]) {
  copyFileSync(join(swaggerUi, file), join(swaggerOut, file));
}
