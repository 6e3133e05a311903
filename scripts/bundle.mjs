// The last step of `npm run build` before the stamp: the reference's entry file (dist/src/entry/bin.js, as
// tsc wrote it) as one ES module with its dependencies, in dist/bundle/, which `npm start` and the
// `accounting-reference` bin run. Unbundled, Node resolves, reads and compiles some 280 modules at
// each start (Express's and zod's alone are most of the start time); bundled, one file and a few
// chunks (the figures: DECISIONS.md, "What `npm start` runs"). What loads on first use (the pages,
// the OpenAPI document, --data) stays in chunks of its own. The library entries
// (dist/src/index.js, the control client) and the kit are not bundled.
import { build } from "esbuild";
import { copyFileSync, mkdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const outdir = join(root, "dist", "bundle");
// Chunk names carry a hash of their content: without this, every rebuild would leave the last ones.
rmSync(outdir, { recursive: true, force: true });

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
