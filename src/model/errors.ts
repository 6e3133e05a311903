/**
 * The six error codes of §7, each with its one HTTP status. The set is closed: every failure the
 * server reports, however it arises, is one of these (spec-gaps #23, DECISIONS.md).
 */
export const ERROR_STATUS = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  rate_limited: 429,
  internal_error: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** The codes in the order of their statuses, for whoever lists them all. */
export const ERROR_CODES = [
  "invalid_request",
  "unauthorized",
  "forbidden",
  "not_found",
  "rate_limited",
  "internal_error",
] as const satisfies readonly ErrorCode[];

/** The code of a status of §7's table, if it is one. */
export const errorCodeOf = (status: number): ErrorCode | undefined =>
  ERROR_CODES.find((code) => ERROR_STATUS[code] === status);

/** Per-field messages, keyed by the field's path (`name`, `limit`, `contact.email`). */
export type ErrorDetails = Record<string, string[]>;

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: ErrorDetails | undefined;

  constructor(code: ErrorCode, message: string, details?: ErrorDetails) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.details = details;
  }
}

export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: ErrorDetails };
}

export function errorBody(err: ApiError): ErrorBody {
  return {
    error: {
      code: err.code,
      message: err.message,
      // Absent without details: JSON leaves out what is undefined.
      details: err.details,
    },
  };
}
