import { Problems, type ProblemType } from './catalogue.js';

/** A broken rule that maps to one catalogued problem. Services throw these; only HTTP knows statuses. */
export class AppError extends Error {
  constructor(
    readonly problem: ProblemType,
    readonly detail: string,
    readonly extensions: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = 'AppError';
  }

  static of(
    problem: ProblemType,
    detail: string,
    extensions?: Record<string, unknown>,
    headers?: Record<string, string>,
  ): AppError {
    return new AppError(problem, detail, extensions, headers);
  }
}

/** A request value that breaks a rule the schema cannot express: 400 naming the field. */
export function invalid(path: string, message: string): AppError {
  return AppError.of(Problems.ValidationFailed, `${path}: ${message}`, { errors: [{ path, message }] });
}
