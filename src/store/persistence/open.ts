import { performance } from "node:perf_hooks";
import type { ReferenceState } from "../state.js";
import { DataDir } from "./data-dir.js";
import { DataError } from "./load.js";

/** Reads the data directory into the state, then journals every later change there. */
export async function openData(
  state: ReferenceState,
  options: Parameters<typeof DataDir.open>[0] & { keepClock: boolean },
): Promise<DataDir> {
  const started = performance.now();
  const { dataDir, loaded } = await DataDir.open(options);
  try {
    let keptClock = false;
    if (loaded !== null) {
      state.restore(loaded.snapshot.state);
      for (const { change, at } of loaded.changes) {
        try {
          state.apply(change);
        } catch (err) {
          throw new DataError(
            `${at}: cannot be applied (${err instanceof Error ? err.message : String(err)})`,
          );
        }
      }
      keptClock = state.clock.setting() !== null;
      if (!options.keepClock) state.clock.applySetting(null);
    }
    await dataDir.start(state, loaded, performance.now() - started);
    state.attach(dataDir);
    // A kept clock that --now overrides is forgotten, so that a later start without --now runs on time.
    if (keptClock && !options.keepClock) state.clock.restore();
    return dataDir;
  } catch (err) {
    await dataDir.close();
    throw err;
  }
}
