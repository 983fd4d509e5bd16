import type { Problem } from './types';

/** Every API failure, including network failures (status 0), arrives as this error. */
export class ApiError extends Error {
  readonly status: number;
  readonly problem: Problem;
  /** Seconds, from the Retry-After header or the problem's retryAfter. */
  readonly retryAfter: number | undefined;

  constructor(problem: Problem, retryAfter?: number) {
    super(problem.detail || problem.title);
    this.name = 'ApiError';
    this.status = problem.status;
    this.problem = problem;
    this.retryAfter = retryAfter;
  }

  /** The message for a person: the problem's detail, else its title. */
  get detail(): string {
    return this.problem.detail || this.problem.title;
  }

  /** The message of the field error whose JSON pointer is `path` (e.g. "/Email"). */
  fieldError(path: string): string | undefined {
    return this.problem.errors?.find((e) => e.path.toLowerCase() === path.toLowerCase())?.message;
  }
}

export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.detail;
  if (error instanceof Error) return error.message;
  return 'Something went wrong.';
}

interface ClientHooks {
  /** The CSRF token of the current session; it lives in the session query data. */
  csrfToken: () => string | undefined;
  /** Called when a request that expected a session got 401: the session has ended. */
  onUnauthorized: () => void;
}

let hooks: ClientHooks = { csrfToken: () => undefined, onUnauthorized: () => {} };

// Set once by the app so the client does not depend on the query cache or the router.
export function configureClient(next: ClientHooks): void {
  hooks = next;
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  body?: unknown;
  /** A list value repeats the parameter (State=Open&State=Reopened). */
  query?: Record<string, string | number | boolean | readonly string[] | undefined>;
  /** Another representation than JSON (e.g. text/csv): the answer is then a Blob. */
  accept?: string;
  signal?: AbortSignal;
  /** A 401 is an answer, not an expired session (sign-in, the session probe). */
  expectUnauthorized?: boolean;
}

const BASE = '/api/latest';

export async function api<T>(path: string, options: RequestOptions = {}): Promise<T> {
  return (await apiWithStatus<T>(path, options)).body;
}

/** As `api`, with the success status too (e.g. 201 created against 200 merged). */
export async function apiWithStatus<T>(
  path: string,
  options: RequestOptions = {},
): Promise<{ status: number; body: T }> {
  const method = options.method ?? 'GET';
  const headers: Record<string, string> = { Accept: options.accept ?? 'application/json' };
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  if (method !== 'GET') {
    const token = hooks.csrfToken();
    if (token) headers['X-CSRF-Token'] = token;
  }

  let url = BASE + path;
  if (options.query) {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(options.query)) {
      if (Array.isArray(value)) for (const item of value) params.append(key, item);
      else if (value !== undefined) params.set(key, String(value));
    }
    const search = params.toString();
    if (search) url += `?${search}`;
  }

  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      credentials: 'same-origin',
      signal: options.signal,
    });
  } catch (cause) {
    if (cause instanceof DOMException && cause.name === 'AbortError') throw cause;
    throw new ApiError({
      title: 'Network error',
      status: 0,
      detail: 'Could not reach the Rampart server. Check your connection and try again.',
    });
  }

  if (response.ok) {
    const { status } = response;
    if (status === 204) return { status, body: undefined as T };
    if (options.accept) return { status, body: (await response.blob()) as T };
    const type = response.headers.get('Content-Type') ?? '';
    return { status, body: (type.includes('json') ? await response.json() : await response.text()) as T };
  }

  const problem = await readProblem(response);
  const header = Number.parseInt(response.headers.get('Retry-After') ?? '', 10);
  const retryAfter = Number.isFinite(header) ? header : problem.retryAfter;
  if (response.status === 401 && !options.expectUnauthorized) hooks.onUnauthorized();
  throw new ApiError(problem, retryAfter);
}

async function readProblem(response: Response): Promise<Problem> {
  const fallback: Problem = {
    title: response.statusText || 'Request failed',
    status: response.status,
    detail: `The server answered ${response.status}${response.statusText ? ` ${response.statusText}` : ''}.`,
  };
  const type = response.headers.get('Content-Type') ?? '';
  if (!type.includes('json')) return fallback;
  try {
    const body = (await response.json()) as Partial<Problem>;
    return { ...fallback, ...body, status: response.status };
  } catch {
    return fallback;
  }
}
