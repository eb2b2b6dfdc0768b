// The indexer's errors: an HTTP status and a JSON body `{"error": "<text>"}`.

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** A query or body the API cannot read (toncenter answers 422). */
export const unprocessable = (message: string) => new ApiError(422, message);
