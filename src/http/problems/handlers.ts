import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { suggestName } from '../../lib/spelling.js';
import { AppError } from '../../problems/app-error.js';
import { Problems, type ProblemType, problemTypeUri } from '../../problems/catalogue.js';
import { fieldPointer } from '../../problems/fields.js';

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  [extension: string]: unknown;
}

export interface ValidationIssue {
  path: string;
  message: string;
  suggestion?: string;
}

/** The request path without its query string: the problem's `instance`. */
function instanceOf(request: FastifyRequest): string {
  const q = request.url.indexOf('?');
  return q === -1 ? request.url : request.url.slice(0, q);
}

export function problemBody(
  request: FastifyRequest,
  problem: ProblemType,
  detail: string,
  extensions: Record<string, unknown> = {},
): ProblemBody {
  return {
    type: problemTypeUri(problem),
    title: problem.title,
    status: problem.status,
    detail,
    instance: instanceOf(request),
    ...extensions,
  };
}

export function sendProblem(
  request: FastifyRequest,
  reply: FastifyReply,
  problem: ProblemType,
  detail: string,
  extensions: Record<string, unknown> = {},
): FastifyReply {
  return reply
    .code(problem.status)
    .type('application/problem+json; charset=utf-8')
    .send(problemBody(request, problem, detail, extensions));
}

interface AjvError {
  keyword: string;
  instancePath: string;
  message?: string;
  params: Record<string, unknown>;
}

type JsonSchema = { properties?: Record<string, JsonSchema>; items?: JsonSchema };

/** The sub-schema at a JSON pointer, following `properties` and `items` only. */
function schemaAt(schema: JsonSchema | undefined, pointer: string): JsonSchema | undefined {
  let current = schema;
  for (const raw of pointer.split('/').slice(1)) {
    if (!current) return undefined;
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    current = /^\d+$/.test(part) && current.items ? current.items : current.properties?.[part];
  }
  return current;
}

const CONTEXT_NAMES: Record<string, string> = {
  body: 'body',
  querystring: 'query string',
  params: 'path',
  headers: 'headers',
};

/** Turns ajv's errors into issues a person can act on, with a spelling hint for unknown properties. */
export function validationIssues(request: FastifyRequest, error: FastifyError): ValidationIssue[] {
  const context = (error as { validationContext?: string }).validationContext ?? 'body';
  const schemas = request.routeOptions.schema as Record<string, JsonSchema | undefined> | undefined;
  const rootSchema = schemas?.[context];
  const issues = ((error.validation ?? []) as unknown as AjvError[]).map((e): ValidationIssue => {
    if (e.keyword === 'additionalProperties') {
      const name = String(e.params.additionalProperty);
      const path = `${e.instancePath}/${name}`;
      const known = Object.keys(schemaAt(rootSchema, e.instancePath)?.properties ?? {});
      const suggestion = suggestName(name, known);
      const message = suggestion
        ? `Unknown property '${name}'; did you mean '${suggestion}'? (property names are case-sensitive)`
        : `Unknown property '${name}'${known.length ? `; expected one of: ${known.join(', ')}` : ''}`;
      return suggestion ? { path, message, suggestion } : { path, message };
    }
    if (e.keyword === 'required') {
      return { path: `${e.instancePath}/${String(e.params.missingProperty)}`, message: 'is required' };
    }
    return { path: e.instancePath || '/', message: e.message ?? 'is not valid' };
  });
  // A mis-cased property also shows up as the real one missing; the spelling hint says it all.
  const suggested = new Set(
    issues.flatMap((i) =>
      i.suggestion ? [`${i.path.slice(0, i.path.lastIndexOf('/'))}/${i.suggestion}`] : [],
    ),
  );
  const relevant = issues.filter((i) => !(i.message === 'is required' && suggested.has(i.path)));
  relevant.sort((a, b) => Number(Boolean(b.suggestion)) - Number(Boolean(a.suggestion)));
  return relevant.slice(0, MAX_ISSUES);
}

/** Enough to fix a request; a huge invalid array must not produce a huge answer. */
const MAX_ISSUES = 20;

function validationDetail(context: string, issues: ValidationIssue[]): string {
  const where = CONTEXT_NAMES[context] ?? context;
  return issues.map((i) => `${where} ${i.path}: ${i.message}`).join('; ');
}

/** A JSON body that failed to parse, with where. */
export class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly position: number,
    readonly line: number,
    readonly column: number,
  ) {
    super(message);
    this.name = 'JsonSyntaxError';
  }
}

/**
 * The multipart parser (busboy) reports a broken form with plain errors; they are the client's
 * doing (a form cut short, a boundary the body never uses), so a 400 that says so.
 */
function multipartProblem(error: Error): { problem: ProblemType; detail: string } | undefined {
  if (
    !/(unexpected end of multipart data|malformed part header|multipart: boundary not found)/i.test(
      error.message,
    )
  )
    return undefined;
  return {
    problem: Problems.MalformedRequest,
    detail: `The multipart form cannot be read: ${error.message}. Check that the body uses the boundary its Content-Type names and is complete.`,
  };
}

function fromFastifyError(
  request: FastifyRequest,
  error: FastifyError,
): { problem: ProblemType; detail: string; extensions?: Record<string, unknown> } | undefined {
  if (error.validation) {
    const context = (error as { validationContext?: string }).validationContext ?? 'body';
    const issues = validationIssues(request, error);
    return {
      problem: Problems.ValidationFailed,
      detail: validationDetail(context, issues),
      extensions: { errors: issues },
    };
  }
  if (error instanceof JsonSyntaxError) {
    return {
      problem: Problems.MalformedJson,
      detail: `${error.message} at line ${error.line}, column ${error.column} (position ${error.position})`,
      extensions: { errors: [{ path: '/', message: error.message }] },
    };
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return {
        problem: Problems.PayloadTooLarge,
        detail: `The request body exceeds the limit of ${request.routeOptions.bodyLimit} bytes.`,
      };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return {
        problem: Problems.UnsupportedMediaType,
        detail: `Content-Type '${request.headers['content-type'] ?? ''}' is not accepted here; send application/json.`,
      };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return {
        problem: Problems.MalformedJson,
        detail: 'The body is empty but Content-Type says application/json; send a JSON document.',
      };
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { problem: Problems.MalformedJson, detail: 'The request body is not valid JSON.' };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return {
        problem: Problems.ValidationFailed,
        detail: 'Content-Length does not match the body received.',
      };
    case '23505':
      return { problem: Problems.Conflict, detail: 'A resource with the same unique value already exists.' };
    // character_not_in_repertoire, untranslatable_character: a NUL that reached a statement by a
    // way the request guards do not see (a form's file name). Nothing was stored.
    case '22021':
    case '22P05':
      return {
        problem: Problems.ValidationFailed,
        detail: 'A text value contains a character that cannot be stored (NUL, \\u0000).',
      };
  }
  const multipart = multipartProblem(error);
  if (multipart) return multipart;
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    // Fastify's own client errors (bad URL encoding, …) carry safe messages.
    const byStatus = Object.values(Problems).find((p) => p.status === error.statusCode);
    return { problem: byStatus ?? Problems.ValidationFailed, detail: error.message };
  }
  return undefined;
}

/** A service names the fields at fault by their domain names; the client reads JSON pointers. */
function appErrorExtensions(error: AppError): Record<string, unknown> {
  if (error.fields.length === 0) return error.extensions;
  const errors = error.fields.map((i) => ({ path: fieldPointer(i.field), message: i.message }));
  return { ...error.extensions, errors };
}

/** One error handler for the whole app: everything a client sees is a catalogued problem. */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof AppError) {
      reply.headers(error.headers);
      return sendProblem(request, reply, error.problem, error.detail, appErrorExtensions(error));
    }
    const mapped = fromFastifyError(request, error);
    if (mapped) {
      if (mapped.problem.status >= 500) request.log.error({ err: error }, 'request failed');
      return sendProblem(request, reply, mapped.problem, mapped.detail, mapped.extensions);
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendProblem(
      request,
      reply,
      Problems.Internal,
      `An unexpected error occurred. Quote correlation id ${request.id} when reporting it.`,
      { correlationId: request.id },
    );
  });
}
