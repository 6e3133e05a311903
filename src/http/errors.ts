import type { ErrorRequestHandler, RequestHandler } from "express";
import { ApiError, errorBody } from "../model/errors.js";
import { DomainError } from "../domain/errors.js";

/** Unknown paths, methods without an endpoint and HEAD all end here (spec-gaps #23, #34). */
export const notFound: RequestHandler = (req, _res, next) => {
  next(new ApiError("not_found", `No endpoint ${req.method} ${req.path}`));
};

/** Errors thrown by body-parser carry `type` and a 4xx `status`; they are the client's fault. */
interface HttpishError {
  type?: unknown;
  status?: unknown;
  limit?: unknown;
}

export function toApiError(err: unknown): ApiError | undefined {
  if (err instanceof ApiError) return err;
  if (err instanceof DomainError) {
    return new ApiError("invalid_request", `${err.field} ${err.message}`, { [err.field]: [err.message] });
  }
  if (typeof err === "object" && err !== null) {
    const { type, status, limit } = err as HttpishError;
    if (type === "entity.too.large") {
      return new ApiError("invalid_request", `The request body exceeds the limit of ${String(limit)} bytes`);
    }
    if (typeof type === "string" && typeof status === "number" && status >= 400 && status < 500) {
      return new ApiError("invalid_request", "The request body could not be read");
    }
  }
  return undefined;
}

/**
 * The one place errors become responses: the §7 envelope, whatever went wrong. An error that is not
 * the client's becomes a bare 500 internal_error; its detail goes to the log, never to the client.
 */
export function errorHandler(log: (line: string) => void): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    let apiError = toApiError(err);
    if (apiError === undefined) {
      log(
        `internal error on ${req.method} ${req.path}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
      );
      apiError = new ApiError("internal_error", "Internal server error; retry in a few seconds");
    }
    if (res.headersSent) {
      res.destroy();
      return;
    }
    // A refusal sent before the body was read closes the connection: keeping it open would mean
    // reading the rest of the body, however long, only to throw it away.
    if (!req.complete) res.setHeader("Connection", "close");
    res.status(apiError.status).json(errorBody(apiError));
  };
}
