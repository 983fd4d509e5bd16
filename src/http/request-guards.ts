import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../problems/app-error.js';
import { Problems } from '../problems/catalogue.js';
import type { ValidationIssue } from './problems/handlers.js';

const NUL = '\u0000';
const NUL_MESSAGE = 'contains a NUL character (\\u0000), which text values cannot hold';
/** As many as a validation answer lists. */
const MAX_ISSUES = 20;

function pointerPart(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Every string (and property name) holding a NUL, by JSON pointer; iterative, so depth is no risk. */
export function nulPaths(value: unknown, limit = MAX_ISSUES): string[] {
  const found: string[] = [];
  const stack: [unknown, string][] = [[value, '']];
  while (stack.length > 0 && found.length < limit) {
    const [current, path] = stack.pop()!;
    if (typeof current === 'string') {
      if (current.includes(NUL)) found.push(path || '/');
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push([current[i], `${path}/${i}`]);
    } else if (current !== null && typeof current === 'object') {
      const entries = Object.entries(current);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, item] = entries[i]!;
        const at = `${path}/${pointerPart(key)}`;
        if (key.includes(NUL)) found.push(at);
        stack.push([item, at]);
      }
    }
  }
  return found.slice(0, limit);
}

// Reused by containsNul so that a request with nothing to look at allocates nothing.
const scratch: unknown[] = [];

/** Whether any string or property name holds a NUL: the common answer is no, found without allocating. */
function containsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes(NUL);
  if (value === null || typeof value !== 'object') return false;
  scratch.length = 0;
  scratch.push(value);
  while (scratch.length > 0) {
    const current = scratch.pop();
    if (typeof current === 'string') {
      if (current.includes(NUL)) {
        scratch.length = 0;
        return true;
      }
    } else if (Array.isArray(current)) {
      for (const item of current) scratch.push(item);
    } else if (current !== null && typeof current === 'object') {
      for (const key in current) {
        if (!Object.hasOwn(current, key)) continue;
        if (key.includes(NUL)) {
          scratch.length = 0;
          return true;
        }
        scratch.push((current as Record<string, unknown>)[key]);
      }
    }
  }
  return false;
}

/**
 * A NUL character is refused wherever a client can put text (path parameters, query string, JSON
 * body), with a 400 naming where: PostgreSQL cannot store it, and no text Rampart keeps needs it.
 * One rule in one place, rather than a 500 from whichever statement meets it first.
 */
function refuseNul(request: FastifyRequest): void {
  if (!containsNul(request.params) && !containsNul(request.query) && !containsNul(request.body)) return;
  const parts: [string, unknown][] = [
    ['path', request.params],
    ['query string', request.query],
    ['body', request.body],
  ];
  for (const [where, value] of parts) {
    const paths = nulPaths(value);
    if (paths.length === 0) continue;
    const errors: ValidationIssue[] = paths.map((path) => ({ path, message: NUL_MESSAGE }));
    throw AppError.of(
      Problems.ValidationFailed,
      errors.map((e) => `${where} ${e.path}: ${e.message}`).join('; '),
      { errors },
    );
  }
}

/** RFC 2046: 1 to 70 characters from a small set, not ending with a space. */
const BOUNDARY = /^[0-9A-Za-z'()+_,./:=? -]{0,69}[0-9A-Za-z'()+_,./:=?-]$/;

function boundaryOf(contentType: string): string | undefined {
  const match = /;\s*boundary=(?:"([^"]*)"|([^;]*))/i.exec(contentType);
  if (!match) return undefined;
  return (match[1] ?? match[2] ?? '').trim();
}

/**
 * A multipart body is only as readable as its boundary: without one, or with one no form could
 * use, the parser would fail deep inside an upload. Refused up front, saying why.
 */
function refuseBadBoundary(request: FastifyRequest): void {
  const contentType = request.headers['content-type'];
  if (!contentType || !/^\s*multipart\//i.test(contentType)) return;
  const boundary = boundaryOf(contentType);
  if (boundary === undefined || !BOUNDARY.test(boundary)) {
    throw AppError.of(
      Problems.MalformedRequest,
      boundary === undefined
        ? 'Content-Type multipart/form-data has no boundary parameter: let the HTTP client build the form and its header.'
        : "The multipart boundary must be 1 to 70 letters, digits or '()+_,-./:=? (RFC 2046), not ending with a space.",
    );
  }
}

/** Checks every route makes before its schema is validated. */
export function registerRequestGuards(app: FastifyInstance): void {
  // Callback style: it runs on every request, and a promise per request costs more than the checks.
  app.addHook('preValidation', (request, _reply, done) => {
    try {
      refuseBadBoundary(request);
      refuseNul(request);
    } catch (error) {
      return done(error as Error);
    }
    done();
  });
}
