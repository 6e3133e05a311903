import { ApiError } from "../../model/errors.js";
import { SandboxLimitError, type Sandbox, type Sandboxes } from "../../store/sandboxes.js";
import { validate } from "../../validation/validate.js";
import { clockView } from "./runs.js";
import {
  CONTROL_BASE,
  CONTROL_OPERATIONS as ops,
  sandboxPath,
  type ControlOperation,
  type SandboxOperationId,
} from "./operations.js";
import { IdParams, SandboxInput } from "./schemas.js";
import type { SandboxCreatedView, SandboxDeletedView, SandboxView } from "./wire.js";

/** The operations that manage sandboxes over the registry, and how a sandbox is found or refused. */

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

/** Past the maximum: 429, saying why and what frees a place; the door sends `Retry-After`. */
export class SandboxesFull extends ApiError {
  readonly retryAfterSeconds: number;

  constructor(err: SandboxLimitError, sandboxes: Sandboxes) {
    const seconds = Math.max(1, Math.ceil(err.retryAfterMs / 1000));
    super(
      "rate_limited",
      `At most ${err.max} sandbox${err.max === 1 ? "" : "es"} at once (--max-sandboxes, REFERENCE_MAX_SANDBOXES): delete one ` +
        `(DELETE ${CONTROL_BASE}/sandboxes/{id}), or wait ${seconds} s until the least recently used one ` +
        `ends (sandboxes end after ${Math.round(sandboxes.idleMs / 1000)} s without a request)`,
    );
    this.retryAfterSeconds = seconds;
  }
}

/** The sandbox `id`, marked as used, or 404: an id that never was, one deleted, one ended for being idle. */
export function sandboxOf(sandboxes: Sandboxes, id: string): Sandbox {
  const sandbox = sandboxes.use(id);
  if (sandbox === undefined) throw noSandbox(sandboxes, id);
  return sandbox;
}

const noSandbox = (sandboxes: Sandboxes, id: string): ApiError =>
  new ApiError(
    "not_found",
    `No sandbox ${id}: it was never made, was deleted, or ended after ${Math.round(sandboxes.idleMs / 1000)} s without a request; POST ${CONTROL_BASE}/sandboxes makes one`,
  );

/** Creates a sandbox, or throws the 429 of the limit. */
export function newSandbox(sandboxes: Sandboxes, now: Date | undefined): Sandbox {
  try {
    return sandboxes.create({ now });
  } catch (err) {
    if (err instanceof SandboxLimitError) throw new SandboxesFull(err, sandboxes);
    throw err;
  }
}

export interface BoundSandboxOperation {
  readonly operation: ControlOperation;
  readonly source: "body" | "params" | "none";
  run(sandboxes: Sandboxes, input: unknown): unknown;
}

/** The operations that manage sandboxes, over the registry. */
export const SANDBOX_OPERATIONS = {
  sandboxes: {
    operation: ops.sandboxes,
    source: "none",
    run: (sandboxes: Sandboxes): SandboxView[] => sandboxes.list().map((s) => sandboxView(sandboxes, s)),
  },
  createSandbox: {
    operation: ops.createSandbox,
    source: "body",
    run: (sandboxes: Sandboxes, input: unknown): SandboxCreatedView => {
      const { now } = validate(SandboxInput, input, "body");
      const sandbox = newSandbox(sandboxes, now);
      return { ...sandboxView(sandboxes, sandbox), manifest: sandbox.state.manifest };
    },
  },
  deleteSandbox: {
    operation: ops.deleteSandbox,
    source: "params",
    run: (sandboxes: Sandboxes, input: unknown): SandboxDeletedView => {
      const { id } = validate(IdParams, input, "path");
      if (!sandboxes.delete(id)) throw noSandbox(sandboxes, id);
      return { deleted: id };
    },
  },
} as const satisfies Record<SandboxOperationId, BoundSandboxOperation>;
