import type { ErrorRole } from "../../spec/index.js";

/**
 * A request the domain refuses on its own rules (not on the shape of the input, which validation
 * has already checked). It names the field at fault; the HTTP layer decides how to say it.
 */
export class DomainError extends Error {
  override readonly name = "DomainError";

  constructor(
    readonly field: string,
    message: string,
    /** The spec's situation it is (the spec says with which status and code): invalidRequest unless said. */
    readonly situation: ErrorRole = "invalidRequest",
  ) {
    super(message);
  }
}
