import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["spec/**/*.test.ts", "src/**/*.test.ts", "conformance/**/*.test.ts", "scripts/**/*.test.ts"],
    environment: "node",
    // Every response the HTTP tests receive is checked against openapi.json (see the file).
    setupFiles: ["src/test-support/openapi-responses.setup.ts"],
    // Property tests print their seed on failure; keep runs deterministic unless FC_SEED is given.
    testTimeout: 30_000,
    // Vitest's default in a run is one worker fewer than the cores: one on the 2-core machines CI runs on,
    // where many files mostly wait (servers, npm, a browser, paced kit runs). Two halve CI's wall time.
    maxWorkers: 2,
    hookTimeout: 30_000,
  },
});
