/**
 * The catalogue of problem types (RFC 9457). Every error a client can see is one of these;
 * `type` is `{base}/problems/<slug>`. A test checks that each is documented in docs/api.md.
 */
export const Problems = {
  ValidationFailed: { slug: 'validation-failed', status: 400, title: 'The request is not valid' },
  MalformedJson: { slug: 'malformed-json', status: 400, title: 'The request body is not valid JSON' },
  MalformedRequest: { slug: 'malformed-request', status: 400, title: 'The request is malformed' },
  IdempotencyKeyInvalid: {
    slug: 'idempotency-key-invalid',
    status: 400,
    title: 'The Idempotency-Key header is not valid',
  },
  Unauthenticated: { slug: 'unauthenticated', status: 401, title: 'Authentication required' },
  Forbidden: { slug: 'forbidden', status: 403, title: 'Your role does not allow this action' },
  SsoRequired: {
    slug: 'sso-required',
    status: 403,
    title: 'This organisation signs in with single sign-on',
  },
  CsrfFailed: { slug: 'csrf-token-invalid', status: 403, title: 'Missing or wrong CSRF token' },
  NotFound: { slug: 'not-found', status: 404, title: 'Not found' },
  MethodNotAllowed: { slug: 'method-not-allowed', status: 405, title: 'Method not allowed' },
  RequestTimeout: { slug: 'request-timeout', status: 408, title: 'The request did not arrive in time' },
  Conflict: { slug: 'conflict', status: 409, title: 'Conflict' },
  SecondFactorInvalid: {
    slug: 'second-factor-invalid',
    status: 401,
    title: 'The code is not right',
  },
  SignInChallengeExpired: {
    slug: 'sign-in-challenge-expired',
    status: 401,
    title: 'This sign-in has expired',
  },
  IdempotencyKeyInUse: {
    slug: 'idempotency-key-in-use',
    status: 409,
    title: 'A request with this Idempotency-Key is still being processed',
  },
  Gone: { slug: 'gone', status: 410, title: 'This endpoint has been removed' },
  IdempotencyAnswerGone: {
    slug: 'idempotency-answer-gone',
    status: 410,
    title: 'The first answer to this Idempotency-Key cannot be given again',
  },
  PayloadTooLarge: { slug: 'payload-too-large', status: 413, title: 'The request body is too large' },
  UriTooLong: { slug: 'uri-too-long', status: 414, title: 'The request path is too long' },
  UnsupportedMediaType: { slug: 'unsupported-media-type', status: 415, title: 'Unsupported content type' },
  UnknownReportFormat: { slug: 'unknown-report-format', status: 422, title: 'Unknown report format' },
  UnknownFeedFormat: { slug: 'unknown-feed-format', status: 422, title: 'Unknown intelligence feed format' },
  ParseLimitExceeded: {
    slug: 'parse-limit-exceeded',
    status: 422,
    title: 'The file goes beyond a parsing limit',
  },
  ScanTargetRefused: {
    slug: 'scan-target-refused',
    status: 422,
    title: 'A scan target is not allowed',
  },
  NotificationDestinationRefused: {
    slug: 'notification-destination-refused',
    status: 422,
    title: 'A notification destination is not allowed',
  },
  ReportScopeEmpty: {
    slug: 'report-scope-empty',
    status: 422,
    title: 'The report would be empty',
  },
  IdempotencyKeyReused: {
    slug: 'idempotency-key-reused',
    status: 422,
    title: 'Idempotency-Key is already used with a different payload',
  },
  RateLimited: { slug: 'rate-limited', status: 429, title: 'Too many requests' },
  HeadersTooLarge: { slug: 'headers-too-large', status: 431, title: 'The request headers are too large' },
  Internal: { slug: 'internal', status: 500, title: 'Internal server error' },
  NotReady: { slug: 'not-ready', status: 503, title: 'The service is not ready' },
} as const;

export type ProblemType = (typeof Problems)[keyof typeof Problems];

export const PROBLEM_BASE = 'https://rampart.dev/problems/';

export function problemTypeUri(problem: ProblemType): string {
  return `${PROBLEM_BASE}${problem.slug}`;
}
