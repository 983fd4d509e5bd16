import { Problems, type ProblemType } from './catalogue.js';
import { type Field, type FieldIssue, fieldPath, fieldPointer } from './fields.js';

/** A broken rule that maps to one catalogued problem. Services throw these; only HTTP knows statuses. */
export class AppError extends Error {
  constructor(
    readonly problem: ProblemType,
    readonly detail: string,
    readonly extensions: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
    /** The request values at fault, by domain field; HTTP lists them as the problem's `errors`. */
    readonly fields: readonly FieldIssue[] = [],
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

/**
 * Request values that break rules the schema cannot express: 400 naming the fields. The detail
 * lists them as clients name them unless a sentence of its own is given.
 */
export function invalidFields(
  issues: readonly { field: Field; message: string }[],
  detail?: string,
): AppError {
  const fields = issues.map((i) => ({ field: fieldPath(i.field), message: i.message }));
  const described = detail ?? fields.map((i) => `${fieldPointer(i.field)}: ${i.message}`).join('; ');
  return new AppError(Problems.ValidationFailed, described, {}, {}, fields);
}

/** A request value that breaks a rule the schema cannot express: 400 naming the field. */
export function invalid(field: Field, message: string): AppError {
  return invalidFields([{ field, message }]);
}
