import { runVariant, startVariant } from "./test-support/variants/harness.js";
import { VARIANTS as variants } from "./test-support/variants/index.js";
import { detailsAsArray } from "./test-support/variants/errors.js";
import { renderConsoleReport } from "./report/console.js";
import { preflight, ManifestMismatchError } from "./preflight.js";
import { FetchHttpClient } from "./client.js";
import { RatePacer } from "./pacer.js";

const run = await runVariant(detailsAsArray);
const out = renderConsoleReport(run.report);
console.log(out.slice(out.indexOf("Failures")));

const rows: string[] = [];
for (const v of variants) {
  const t = await startVariant(v);
  const pacer = new RatePacer({
    rateLimit: 150,
    windowMs: 1000,
    per: "token",
    manifest: t.manifest,
    timer: t.clock,
    wallClock: t.clock.now,
  });
  const http = new FetchHttpClient({
    baseUrl: t.baseUrl,
    pacer,
    tokens: t.manifest.tokens,
    sleep: t.clock.sleep,
    now: t.clock.now,
  });
  try {
    await preflight(http, t.manifest, t.clock.now());
  } catch (e) {
    if (e instanceof ManifestMismatchError) rows.push(`${v.kind} ${v.id}: ${e.lines().join(" || ")}`);
    else rows.push(`${v.id}: ERROR ${String(e)}`);
  } finally {
    await t.close();
  }
}
console.log(`preflight refused ${rows.length} of ${variants.length} variants`);
console.log(rows.join("\n"));
