import { SpecVariantError, applyVariant, defaultSpec, type Spec } from "../../../spec/index.js";
import { ApiError } from "../../model/errors.js";
import { compileSpec } from "../../routes/compile.js";
import { SandboxLimitError, type Sandbox, type Sandboxes } from "../../store/sandboxes.js";
import { CONTROL_BASE } from "./views.js";

/** How a sandbox is found, made or refused, and how its fixture names map to its own. */

/** Past the maximum: 429, saying why and what frees a place; the door sends `Retry-After`. */
export class SandboxesFull extends ApiError {
  readonly retryAfterSeconds: number;

  constructor(err: SandboxLimitError, sandboxes: Sandboxes) {
    const seconds = Math.max(1, Math.ceil(err.retryAfterMs / 1000));
    super(
      "rateLimited",
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

export const noSandbox = (sandboxes: Sandboxes, id: string): ApiError =>
  new ApiError(
    "notFound",
    `No sandbox ${id}: it was never made, was deleted, or ended after ${Math.round(sandboxes.idleMs / 1000)} s without a request; POST ${CONTROL_BASE}/sandboxes makes one`,
  );

/**
 * The spec a sandbox serves: `variant` merged over the reference's own (RFC 7396), or the reference's
 * when none is given. A bad one is the request's fault: 400 in the default table's envelope, `details`
 * keyed by the body's path to each bad key (`spec.limits.page.max`).
 */
function sandboxSpec(sandboxes: Sandboxes, variant: Record<string, unknown> | undefined): Spec | undefined {
  if (variant === undefined) return undefined;
  try {
    const spec = applyVariant(variant, sandboxes.spec ?? defaultSpec(), "spec");
    compileSpec(spec);
    return spec;
  } catch (err) {
    if (!(err instanceof SpecVariantError)) throw err;
    throw badSpec(err);
  }
}

const badSpec = (err: SpecVariantError): ApiError => {
  const details: Record<string, string[]> = {};
  for (const { path, message } of err.problems) {
    const key = path === "(the whole file)" ? "spec" : `spec.${path}`;
    details[key] = [...(details[key] ?? []), message];
  }
  return new ApiError("invalidRequest", err.message.replace(/\n\s*/g, " "), details);
};

/** Creates a sandbox (with a spec variant of its own, if given), or throws the 429 of the limit. */
export function newSandbox(
  sandboxes: Sandboxes,
  now: Date | undefined,
  variant?: Record<string, unknown> | undefined,
): Sandbox {
  const spec = sandboxSpec(sandboxes, variant);
  try {
    return sandboxes.create({ now, spec });
  } catch (err) {
    if (err instanceof SandboxLimitError) throw new SandboxesFull(err, sandboxes);
    if (err instanceof SpecVariantError) throw badSpec(err);
    throw err;
  }
}

/**
 * An organization id as an operation on `sandbox` reads it: a fixture id (`org_lumiere`) names the
 * sandbox's copy (`org_lumiere_sbx_…`), as its tokens keep the fixture labels; any other id is taken
 * as given. On the default state (no sandbox), every id is taken as given.
 */
export function ownOrganization(sandbox: Sandbox | undefined, id: string): string {
  // Own keys only: an id such as "constructor" must not meet Object.prototype.
  if (sandbox === undefined || !Object.hasOwn(sandbox.organizations, id)) return id;
  return sandbox.organizations[id] ?? id;
}
