import { defaultSpec, type ErrorAnswer, type ErrorRole, type Spec } from "../../spec/index.js";

/**
 * §7's errors by situation (spec-gaps #23, DECISIONS.md "Spec variants, the reference"): an error
 * names what went wrong (its `ErrorRole`: invalidRequest, unauthorized, … duplicateSku), and the spec
 * of the state that answers says with which status and code (`spec.errors`). The set of codes is
 * closed: the codes of that table, whatever path the failure took.
 */
export type { ErrorRole };
/** The status and code of each situation: a spec's `errors`. */
export type ErrorTable = Spec["errors"];
/** A §7 code: one of an error table's. */
export type ErrorCode = string;

/** The default spec's table: what the control surface and the pages answer with, whatever the API's. */
export const defaultErrors = (): ErrorTable => defaultSpec().errors;

const ROLES = Object.keys(defaultErrors()) as ErrorRole[];

/** The codes of a table, each once, in the order of their statuses. */
export const codesOf = (table: ErrorTable): ErrorCode[] =>
  [...new Map(ROLES.map((role) => [table[role].code, table[role].status]))]
    .sort((a, b) => a[1] - b[1])
    .map(([code]) => code);

/** Each code of a table with its one status (the spec file refuses a code with two). */
export const statusByCode = (table: ErrorTable): Readonly<Record<ErrorCode, number>> =>
  Object.fromEntries(ROLES.map((role) => [table[role].code, table[role].status]));

/** The situation a code of a table names first (a fault armed by code, a status read back). */
export const roleOfCode = (table: ErrorTable, code: ErrorCode): ErrorRole | undefined =>
  ROLES.find((role) => table[role].code === code);

/** The default table's codes with their statuses, and in status order (the control surface's faults). */
export const ERROR_STATUS: Readonly<Record<ErrorCode, number>> = statusByCode(defaultErrors());
export const ERROR_CODES: readonly ErrorCode[] = codesOf(defaultErrors());

/** The default table's code of a status, if one has it. */
export const errorCodeOf = (status: number): ErrorCode | undefined =>
  ERROR_CODES.find((code) => ERROR_STATUS[code] === status);

/** Per-field messages, keyed by the field's path (`name`, `limit`, `contact.email`). */
export type ErrorDetails = Record<string, string[]>;

export class ApiError extends Error {
  readonly role: ErrorRole;
  readonly details: ErrorDetails | undefined;

  constructor(role: ErrorRole, message: string, details?: ErrorDetails) {
    super(message);
    this.name = "ApiError";
    this.role = role;
    this.details = details;
  }

  /** Its status and code in `table` (the answering state's spec; the default one's by default). */
  answer(table: ErrorTable = defaultErrors()): ErrorAnswer {
    return table[this.role];
  }

  /** The default table's status: the control surface's and the pages' (the API reads its state's). */
  get status(): number {
    return this.answer().status;
  }

  /** The default table's code (see `status`). */
  get code(): ErrorCode {
    return this.answer().code;
  }
}

export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: ErrorDetails };
}

export function errorBody(err: ApiError, table: ErrorTable = defaultErrors()): ErrorBody {
  return {
    error: {
      code: err.answer(table).code,
      message: err.message,
      // Absent without details: JSON leaves out what is undefined.
      details: err.details,
    },
  };
}
