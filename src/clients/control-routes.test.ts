import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { CONTROL_ROUTES_PATH, renderControlRoutes } from "../../scripts/control-routes.js";

describe("the HTTP client's routes", () => {
  it("are the control table's, as `npm run control-routes` writes them", async () => {
    const committed = await readFile(CONTROL_ROUTES_PATH, "utf8");
    expect(committed, "src/clients/control-routes.ts is stale: run `npm run control-routes`").toBe(
      await renderControlRoutes(),
    );
  });
});
