/** One problem with one input field, as the envelope's `errors` lists it. */
export interface FieldError {
  field: string;
  message: string;
}

/**
 * An error meant for the API caller: an HTTP status, a human message and field errors.
 * The envelope renders it; anything else thrown becomes a logged 500 with no detail.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors: FieldError[] = [],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const VALIDATION_FAILED = 'Data validation failed';

export const WRONG_PASSWORD = 'Wrong password provided';

/**
 * The answer to a wrong wallet password, in the words of the chain's family (401 `Wrong password provided`
 * on most, 422 `Validate signature error: …` on a Tron send). Whatever its status, the request's quota unit
 * is kept: guessing costs quota.
 */
export class WrongPasswordAnswer extends ApiError {
  constructor(status = 401, message = WRONG_PASSWORD) {
    super(status, message);
    this.name = 'WrongPasswordAnswer';
  }
}

export function validationFailed(errors: FieldError[]): ApiError {
  return new ApiError(422, VALIDATION_FAILED, errors);
}

export function invalidField(field: string, message: string): ApiError {
  return validationFailed([{ field, message }]);
}

export function notFound(message = 'Not found'): ApiError {
  return new ApiError(404, message);
}
