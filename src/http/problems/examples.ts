import { Problems, type ProblemType, problemTypeUri } from '../../problems/catalogue.js';
import type { ProblemBody } from './handlers.js';

/** What the documentation shows for each status: a typical problem and its `detail`. */
const TYPICAL: Record<
  number,
  { problem: ProblemType; detail: string; extensions?: Record<string, unknown> }
> = {
  400: {
    problem: Problems.ValidationFailed,
    detail:
      "body /email: Unknown property 'email'; did you mean 'Email'? (property names are case-sensitive)",
    extensions: {
      errors: [
        { path: '/email', message: "Unknown property 'email'; did you mean 'Email'?", suggestion: 'Email' },
      ],
    },
  },
  401: {
    problem: Problems.Unauthenticated,
    detail: 'Send a valid API key in the ApiAccessKey and ApiSecretKey headers.',
  },
  403: {
    problem: Problems.Forbidden,
    detail: 'This action needs the role Manager or higher; your role is Analyst.',
  },
  404: { problem: Problems.NotFound, detail: 'No such resource in your organisation.' },
  405: { problem: Problems.MethodNotAllowed, detail: 'PUT is not supported on this path; use GET, POST.' },
  409: { problem: Problems.Conflict, detail: 'A resource with the same unique value already exists.' },
  410: {
    problem: Problems.Gone,
    detail: 'This endpoint was removed on 2026-12-01.',
    extensions: { replacement: 'GET /api/latest/users' },
  },
  413: { problem: Problems.PayloadTooLarge, detail: 'The request body exceeds the limit of 1048576 bytes.' },
  415: {
    problem: Problems.UnsupportedMediaType,
    detail: "Content-Type 'text/plain' is not accepted here; send application/json.",
  },
  429: {
    problem: Problems.RateLimited,
    detail: 'Too many requests: the limit is 600 per 60 seconds for this client. Retry after 17 seconds.',
    extensions: { retryAfter: 17 },
  },
  500: {
    problem: Problems.Internal,
    detail:
      'An unexpected error occurred. Quote correlation id 0b9f2c44-5d0e-4b8a-9f63-2a7c1e5d8b10 when reporting it.',
    extensions: { correlationId: '0b9f2c44-5d0e-4b8a-9f63-2a7c1e5d8b10' },
  },
};

function anyOfStatus(status: number): (typeof TYPICAL)[number] | undefined {
  const problem = Object.values(Problems).find((p) => p.status === status);
  return problem ? { problem, detail: problem.title } : undefined;
}

/**
 * The example of an error response of one operation: a problem of that very status (the shared
 * Problem schema's own example is a 400, which the documentation would otherwise show for all).
 */
export function problemExample(status: number, instance: string): ProblemBody | undefined {
  const typical = TYPICAL[status] ?? anyOfStatus(status);
  if (!typical) return undefined;
  return {
    type: problemTypeUri(typical.problem),
    title: typical.problem.title,
    status,
    detail: typical.detail,
    instance,
    ...typical.extensions,
  };
}
