import type { ProblemType } from './types.js';

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
