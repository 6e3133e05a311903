import { ERROR_STATUS } from "../../model/errors.js";
import type { Fault } from "../../store/faults.js";
import type { JournalEntry } from "../../store/journal.js";
import type { Sandbox, Sandboxes } from "../../store/sandboxes.js";
import type { ReferenceState } from "../../store/state.js";
import type { ClockView, FaultView, JournalEntryView, SandboxCreatedView, SandboxView } from "./wire.js";

/** The state's parts as the control surface answers them (wire.ts): instants as ISO 8601 text. */

/** Where the control surface is mounted. */
export const CONTROL_BASE = "/__control";

/** Where a sandbox's own surface is, under the control surface: every operation on one state again. */
export const SANDBOX_BASE = "/sandboxes/:id";

export const sandboxPath = (id: string): string => SANDBOX_BASE.replace(":id", encodeURIComponent(id));

export const clockView = (state: ReferenceState): ClockView => {
  const { now, frozen, offsetMs } = state.clock.state();
  return { now: now.toISOString(), frozen, offsetMs };
};

export const entryView = (e: JournalEntry): JournalEntryView => ({ ...e, time: e.time.toISOString() });

export function faultView(f: Fault): FaultView {
  return {
    id: f.id,
    method: f.method ?? null,
    path: f.path ?? null,
    token: f.token ?? null,
    organization: f.organization ?? null,
    times: f.times,
    remaining: f.remaining,
    until: f.until?.toISOString() ?? null,
    untilCleared: f.untilCleared,
    taken: f.taken,
    status: f.error === undefined ? null : (ERROR_STATUS[f.error.code] ?? null),
    code: f.error?.code ?? null,
    message: f.error?.message ?? null,
    retryAfter: f.error?.retryAfterSeconds ?? null,
    delayMs: f.delayMs ?? null,
    drop: f.drop === true,
    beyondSpec: f.beyondSpec ?? null,
    createdAt: f.createdAt.toISOString(),
  };
}

/** A sandbox as listed: never its tokens. */
export function sandboxView(sandboxes: Sandboxes, sandbox: Sandbox): SandboxView {
  return {
    id: sandbox.id,
    path: `${CONTROL_BASE}${sandboxPath(sandbox.id)}`,
    organizations: { ...sandbox.organizations },
    createdAt: sandbox.createdAt.toISOString(),
    lastUsedAt: sandbox.lastUsedAt.toISOString(),
    expiresAt: sandboxes.expiresAt(sandbox).toISOString(),
    clock: clockView(sandbox.state),
  };
}

/** A sandbox as created: with its token manifest, the one time its tokens are shown. */
export const createdView = (sandboxes: Sandboxes, sandbox: Sandbox): SandboxCreatedView => ({
  ...sandboxView(sandboxes, sandbox),
  manifest: sandbox.state.manifest,
});
