import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["spec/**/*.test.ts", "src/**/*.test.ts", "conformance/**/*.test.ts", "scripts/**/*.test.ts"],
    environment: "node",
    // Every response the HTTP tests receive is checked against openapi.json (see the file).
    setupFiles: ["src/test-support/openapi-responses.setup.ts"],
    // Property tests print their seed on failure; keep runs deterministic unless FC_SEED is given.
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
