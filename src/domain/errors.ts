/**
 * A request the domain refuses on its own rules (not on the shape of the input, which validation
 * has already checked). It names the field at fault; the HTTP layer decides how to say it.
 */
export class DomainError extends Error {
  override readonly name = "DomainError";

  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}
