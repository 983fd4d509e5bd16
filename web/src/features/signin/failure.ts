import { ApiError, errorMessage } from '../../api/client';

/** What a failed sign-in step says to the person: the throttle's wait in words, else the server's detail. */
export function signInFailure(error: unknown): string {
  if (error instanceof ApiError && error.status === 429) {
    return error.retryAfter !== undefined
      ? `Too many sign-in attempts: try again in ${error.retryAfter} seconds.`
      : 'Too many sign-in attempts: try again later.';
  }
  return errorMessage(error);
}
