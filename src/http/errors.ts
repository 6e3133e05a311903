import type { ErrorRequestHandler, Request, Response } from "express";
import { ApiError, errorBody } from "../model/errors.js";
import { DomainError } from "../domain/errors.js";

/** Unknown paths, methods without an endpoint and HEAD (spec-gaps #23, #34). */
export const noEndpoint = (req: Request): ApiError =>
  new ApiError("notFound", `No endpoint ${req.method} ${req.path}`);

/** Errors thrown by body-parser carry `type` and a 4xx `status`; they are the client's fault. */
interface HttpishError {
  type?: unknown;
  status?: unknown;
  limit?: unknown;
}

export function toApiError(err: unknown): ApiError | undefined {
  if (err instanceof ApiError) return err;
  if (err instanceof DomainError) {
    return new ApiError(err.situation, `${err.field} ${err.message}`, { [err.field]: [err.message] });
  }
  if (typeof err === "object" && err !== null) {
    const { type, status, limit } = err as HttpishError;
    if (type === "entity.too.large") {
      return new ApiError("invalidRequest", `The request body exceeds the limit of ${String(limit)} bytes`);
    }
    if (typeof type === "string" && typeof status === "number" && status >= 400 && status < 500) {
      return new ApiError("invalidRequest", "The request body could not be read");
    }
  }
  return undefined;
}

/**
 * What an error is answered as: its own §7 code, or, when it is not the client's, a bare 500
 * internal_error whose detail goes to the log, never to the client.
 */
export function answerFor(err: unknown, req: Request, log: (line: string) => void): ApiError {
  const apiError = toApiError(err);
  if (apiError !== undefined) return apiError;
  log(
    `internal error on ${req.method} ${req.path}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
  );
  return new ApiError("internal", "Internal server error; retry in a few seconds");
}

/**
 * Whether an error can still be answered, and how: an answer already on its way is cut (the
 * connection destroyed: there is no telling the client otherwise); a refusal sent before the body
 * was read closes the connection, since keeping it open would mean reading the rest of the body,
 * however long, only to throw it away.
 */
export function prepareErrorAnswer(req: Request, res: Response): boolean {
  if (res.headersSent) {
    res.destroy();
    return false;
  }
  if (!req.complete) res.setHeader("Connection", "close");
  return true;
}

/**
 * The one place errors become responses in the doors Express answers (the control surface, the
 * pages, whatever no door handled): the §7 envelope, whatever went wrong. The API door writes its
 * own through its exchange (src/doors/api/exchange.ts), with the same two functions above.
 */
export function errorHandler(log: (line: string) => void): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    const apiError = answerFor(err, req, log);
    if (prepareErrorAnswer(req, res)) res.status(apiError.status).json(errorBody(apiError));
  };
}
